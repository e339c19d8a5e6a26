import fs from "node:fs";
import path from "node:path";
import { UsageError } from "../errors/run-errors.js";
import { sha256 } from "../memory/recall/sync-index.js";
import { writeFileAtomic } from "../util/atomic-write.js";
import { RUN_FILE } from "./layout.js";

/** The strategy as the run used it, stored in its directory (config.json and result.json name it). */
export interface StrategyCopy {
  /** Relative to the run directory: `strategy.md` for a prompt, `strategy.<ext>` for code. */
  file: string;
  sha256: string;
}

/** An LLM strategy's prompt (a .md file's text, or --prompt) inside its run directory. */
const STORED_PROMPT = RUN_FILE.prompt;

/**
 * Writes the strategy's text into the run directory, so that the run does not depend on
 * `strategies/*` staying unchanged: `--replay` reads the prompt from here. A code strategy's
 * file is kept for the record (with its sha256); it is not run from the copy.
 */
export function storeStrategy(
  runDir: string,
  kind: "llm" | "code",
  content: string | Buffer,
  sourcePath: string,
): StrategyCopy {
  const ext = path.extname(sourcePath).toLowerCase();
  const file =
    kind === "llm" ? STORED_PROMPT : `strategy${/^\.[a-z]{1,5}$/.test(ext) ? ext : ".txt"}`;
  writeFileAtomic(path.join(runDir, file), content);
  return { file, sha256: sha256(content) };
}

/**
 * The stored prompt of a recorded run, for `--replay`: its path, or null for a run recorded
 * before prompts were stored. Refused (bad input) when it is not a plain file (a symlink is never
 * followed) or no longer matches the sha256 the run recorded.
 */
export function storedPrompt(runDir: string, recorded: StrategyCopy | undefined): string | null {
  const file = path.join(runDir, STORED_PROMPT);
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(file);
  } catch {
    return null;
  }
  if (!stat.isFile()) {
    throw new UsageError(`${file} is not a regular file (a symlink?): cannot replay from it.`);
  }
  if (recorded && sha256(fs.readFileSync(file)) !== recorded.sha256) {
    throw new UsageError(
      `${file} was changed after the run (its sha256 no longer matches config.json's strategyCopy): ` +
        "the recording cannot be replayed faithfully. Restore it, or run the strategy again without --replay.",
    );
  }
  return file;
}
