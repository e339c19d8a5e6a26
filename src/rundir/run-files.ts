import path from "node:path";
import { RunReadError } from "../errors/report-error.js";
import { listMarkdown, readTextOrNull as readMemoryText } from "../memory/memory-files.js";
import { isJsonObject } from "../util/json-object.js";

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
 * fact about the run. Named with the file and what is wrong (exit code 2). `end` follows "cut
 * short or edited)" and `Err` is the error's class: a resume says it cannot go on, as a UsageError.
 */
export function damagedRunFile<E extends Error = RunReadError>(
  file: string,
  what: string,
  end = ". Run the backtest again to get its files back.",
  Err: new (message: string) => E = RunReadError as unknown as new (
    message: string,
  ) => E,
): E {
  return new Err(
    `${path.basename(file)} in ${path.dirname(file)} ${what}: the run directory is damaged (a ` +
      `file deleted, cut short or edited)${end}`,
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
    if (!isJsonObject(value)) {
      throw damagedRunFile(file, `has a line that is not a JSON object (line ${i + 1})`);
    }
    out.push(value);
  }
  return out;
}

/** The markdown files of one memory directory (journal/, notes/, reviews/), as "dir/name". */
export function markdownFiles(root: string, dir: string): string[] {
  return listMarkdown(path.join(root, dir))
    .sort()
    .map((name) => `${dir}/${name}`);
}
