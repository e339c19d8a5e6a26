import fs from "node:fs";
import path from "node:path";
import { UsageError } from "../errors/run-errors.js";
import { isErrnoCode } from "../util/errno.js";
import { isJsonObject } from "../util/json-object.js";

/** The project's settings file, read from the working directory. */
export const PROJECT_CONFIG_FILE = "agenticbt.config.json";

/**
 * The `memory` block of agenticbt.config.json ({} without the file or the block). Its keys:
 * `memory.<system>` (e.g. `memory.layered`) configures that memory system; the other keys belong
 * to the memory policy layer. A file that is not a JSON object is bad usage (exit code 2).
 */
export function readMemoryConfig(cwd: string = process.cwd()): Record<string, unknown> {
  const file = path.join(cwd, PROJECT_CONFIG_FILE);
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (err) {
    if (isErrnoCode(err, "ENOENT")) return {};
    throw new UsageError(`Cannot read ${file}: ${(err as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new UsageError(
      `${file} is not valid JSON (${(err as Error).message}): fix or remove it.`,
    );
  }
  if (!isJsonObject(parsed))
    throw new UsageError(`${file} must hold a JSON object ({"memory": {…}}).`);
  const memory = parsed.memory;
  if (memory === undefined) return {};
  if (!isJsonObject(memory)) {
    throw new UsageError(`${file}: "memory" must be an object, e.g. {"memory": {"layered": {…}}}.`);
  }
  return memory;
}
