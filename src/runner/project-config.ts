import fs from "node:fs";
import path from "node:path";
import { checkSetting } from "../config/check-setting.js";
import { AGENT_SETTINGS } from "../config/run-settings.js";
import { UsageError } from "../errors/run-errors.js";
import { isErrnoCode } from "../util/errno.js";
import { isJsonObject } from "../util/json-object.js";
import type { AgentOptions } from "./agent-options.js";

/** The project's settings file, read from the working directory. */
export const PROJECT_CONFIG_FILE = "agenticbt.config.json";

/** agenticbt.config.json as an object ({} without the file). Not a JSON object: exit code 2. */
function readProjectConfig(cwd: string): { file: string; config: Record<string, unknown> } {
  const file = path.join(cwd, PROJECT_CONFIG_FILE);
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (err) {
    if (isErrnoCode(err, "ENOENT")) return { file, config: {} };
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
  return { file, config: parsed };
}

/**
 * The `memory` block of agenticbt.config.json ({} without the file or the block). Its keys:
 * `memory.<system>` (e.g. `memory.layered`) configures that memory system; the other keys belong
 * to the memory policy layer. A file that is not a JSON object is bad usage (exit code 2).
 */
export function readMemoryConfig(cwd: string = process.cwd()): Record<string, unknown> {
  const { file, config } = readProjectConfig(cwd);
  const memory = config.memory;
  if (memory === undefined) return {};
  if (!isJsonObject(memory)) {
    throw new UsageError(`${file}: "memory" must be an object, e.g. {"memory": {"layered": {…}}}.`);
  }
  return memory;
}

/** A provider's limits in agenticbt.config.json: each key is its `agenticbt run` flag's name. */
const PROVIDER_LIMIT_KEYS = {
  concurrency: "concurrency",
  rpm: "rpm",
  tpm: "tpm",
  "rate-window": "rateWindowS",
} as const satisfies Record<string, keyof AgentOptions>;

export type ProviderLimitValues = Partial<
  Pick<AgentOptions, (typeof PROVIDER_LIMIT_KEYS)[keyof typeof PROVIDER_LIMIT_KEYS]>
>;

/** One entry of `providers`: the provider it is for (null: any), and its limits. */
export interface ProviderEntry {
  baseURL: string | null;
  model: string | null;
  limits: ProviderLimitValues;
}

/**
 * The `providers` list of agenticbt.config.json ([] without it): the limits of a provider,
 * `{"baseURL": "https://api.openai.com/v1", "model": "gpt-4o-mini", "rpm": 500, "tpm": 200000,
 * "concurrency": 8, "rate-window": 60}` (baseURL and model optional: absent, any). Each value is
 * checked as its flag's is.
 */
export function readProviderLimits(cwd: string = process.cwd()): ProviderEntry[] {
  const { file, config } = readProjectConfig(cwd);
  const list = config.providers;
  if (list === undefined) return [];
  const example = '{"providers": [{"baseURL": "https://api.openai.com/v1", "rpm": 500}]}';
  if (!Array.isArray(list))
    throw new UsageError(`${file}: "providers" must be a list, e.g. ${example}.`);
  return list.map((item, i) => {
    const at = `${file}: providers[${i}]`;
    if (!isJsonObject(item)) throw new UsageError(`${at} must be an object, e.g. ${example}.`);
    const entry: ProviderEntry = { baseURL: null, model: null, limits: {} };
    for (const [key, value] of Object.entries(item)) {
      if (key === "baseURL" || key === "model") {
        if (typeof value !== "string" || value.trim() === "")
          throw new UsageError(`${at}.${key} must be a text, e.g. ${example}.`);
        entry[key] = value.trim();
        continue;
      }
      const name = PROVIDER_LIMIT_KEYS[key as keyof typeof PROVIDER_LIMIT_KEYS];
      if (name === undefined)
        throw new UsageError(
          `${at} has an unknown key ${JSON.stringify(key)}: use baseURL, model, ${Object.keys(PROVIDER_LIMIT_KEYS).join(", ")}.`,
        );
      const checked = checkSetting(AGENT_SETTINGS[name], value, `${at}.${key}`);
      (entry.limits as Record<string, number | null>)[name] = checked;
    }
    return entry;
  });
}
