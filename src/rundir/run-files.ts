import path from "node:path";
import { RunReadError } from "../errors/report-error.js";
import { listMarkdown, readTextOrNull as readMemoryText } from "../memory/memory-files.js";

/** A file's text, or null when it does not exist (any other failure is an error naming it). */
export function readTextOrNull(file: string): string | null {
  try {
    return readMemoryText(file);
  } catch (err) {
    throw new RunReadError(`Could not read ${file}: ${(err as Error).message}`);
  }
}

/** Parsed JSON of a file that must exist. */
export function readJsonFile(file: string): unknown {
  const text = readTextOrNull(file);
  if (text === null) throw new RunReadError(`${file} does not exist.`);
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new RunReadError(`${file} is not valid JSON: ${(err as Error).message}`);
  }
}

/**
 * The objects of a JSON-lines file (absent = empty). A malformed last line is what a killed run
 * leaves behind, so it is skipped; a malformed line elsewhere means damage and is an error.
 */
export function readJsonLines(file: string): Record<string, unknown>[] {
  const text = readTextOrNull(file);
  if (text === null) return [];
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  const out: Record<string, unknown>[] = [];
  for (const [i, line] of lines.entries()) {
    try {
      const value: unknown = JSON.parse(line);
      if (value !== null && typeof value === "object" && !Array.isArray(value)) {
        out.push(value as Record<string, unknown>);
        continue;
      }
    } catch {
      // fall through: reported below unless it is the last line
    }
    if (i === lines.length - 1) break;
    throw new RunReadError(`Line ${i + 1} of ${file} is not a JSON object: the file is damaged.`);
  }
  return out;
}

/** The markdown files of one memory directory (journal/, notes/, reviews/), as "dir/name". */
export function markdownFiles(root: string, dir: string): string[] {
  return listMarkdown(path.join(root, dir))
    .sort()
    .map((name) => `${dir}/${name}`);
}
