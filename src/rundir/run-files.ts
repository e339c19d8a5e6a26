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

/**
 * A file of a run directory is missing or malformed where the run's own records say it must be
 * sound: the directory was damaged (a file deleted, cut short or edited), and what it holds is no
 * fact about the run. Named with the file and what is wrong (exit code 2).
 */
export function damagedRunFile(file: string, what: string): RunReadError {
  return new RunReadError(
    `${path.basename(file)} in ${path.dirname(file)} ${what}: the run directory is damaged (a ` +
      "file deleted, cut short or edited). Run the backtest again to get its files back.",
  );
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
 * The objects of a JSON-lines file the runner writes whole at the end of a run (decisions.jsonl;
 * absent = null): a line that is not a JSON object, the last one included, is damage.
 */
export function readJsonLines(file: string): Record<string, unknown>[] | null {
  const text = readTextOrNull(file);
  if (text === null) return null;
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  const out: Record<string, unknown>[] = [];
  for (const [i, line] of lines.entries()) {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      // reported below
    }
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
      throw damagedRunFile(file, `has a line that is not a JSON object (line ${i + 1})`);
    }
    out.push(value as Record<string, unknown>);
  }
  return out;
}

/** The markdown files of one memory directory (journal/, notes/, reviews/), as "dir/name". */
export function markdownFiles(root: string, dir: string): string[] {
  return listMarkdown(path.join(root, dir))
    .sort()
    .map((name) => `${dir}/${name}`);
}
