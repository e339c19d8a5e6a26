import path from "node:path";
import type { ContextWindow } from "../../config/context-window.js";
import { didYouMean } from "../../util/did-you-mean.js";
import { isJsonObject } from "../../util/json-object.js";
import { readFileNoFollow } from "../../util/no-follow.js";
import {
  applyOverrides,
  DEFAULT_MEMORY_POLICY,
  type MemoryPolicy,
  POLICY_KEYS,
  POLICY_SHAPE,
  type PolicyKey,
  type PolicyOverrides,
} from "./memory-policy.js";
import { PolicyError } from "./policy-errors.js";

/** In a run directory: the overrides in force (seeded by `--policy-overrides`, then evolution). */
export const POLICY_OVERRIDES_FILE = "policy_overrides.json";

/** The resolved policy and where each layer came from (recorded in config.json `memoryPolicy`). */
export interface ResolvedPolicy {
  policy: MemoryPolicy;
  /** The `memory` block's policy keys (empty when there is no config file or block). */
  config: PolicyOverrides;
  configFile: string | null;
  overrides: PolicyOverrides;
  overridesFile: string | null;
  /** `--policy-from`: the run whose final policy was taken as overrides (absent: none). */
  policyFrom?: string;
  /** The context window the token-percent rule takes its percentage of, and where it came from
   * (absent: a run recorded before the setting). */
  contextWindow?: ContextWindow;
  /** `session_summary_token_percent` for this run, in words: its token limit or why none. */
  tokenPercentRule?: string;
}

/** Defaults, then the config block, then the overrides: the last one to set a key wins. */
export function resolvePolicy(config: PolicyOverrides, overrides: PolicyOverrides): MemoryPolicy {
  return applyOverrides(applyOverrides({ ...DEFAULT_MEMORY_POLICY }, config), overrides);
}

/**
 * The policy keys of a `memory` block, each checked. Keys naming a memory system (`layered`,
 * `persistent`…) are that system's own block and are left to it; any other key is an error that
 * names it (with the nearest valid key), so a typo never silently leaves a default in force.
 */
export function parsePolicyBlock(
  block: unknown,
  source: string,
  systemKeys: readonly string[] = [],
): PolicyOverrides {
  if (block === undefined) return {};
  if (!isJsonObject(block)) {
    throw new PolicyError(
      `${source}: "memory" must be an object of policy keys, e.g. {"retrieve_limit": 5}.`,
    );
  }
  return parseKeys(block, `${source}: memory.`, systemKeys);
}

/** Policy values given one by one (an experiment's `--grid <key>=…`), each checked. */
export function parsePolicyValues(
  values: Record<string, unknown>,
  source: string,
): PolicyOverrides {
  return parseKeys(values, `${source} `, []);
}

/** A policy_overrides.json: policy keys only. */
export function readOverridesFile(file: string): PolicyOverrides {
  const label = path.basename(file) === POLICY_OVERRIDES_FILE ? file : `${file} (policy overrides)`;
  const value = readJsonObject(file, label);
  if (value === null) {
    throw new PolicyError(
      `Cannot read ${file}: it does not exist. Check the --policy-overrides path.`,
    );
  }
  return parseKeys(value, `${label}: `, []);
}

function parseKeys(
  block: Record<string, unknown>,
  prefix: string,
  systemKeys: readonly string[],
): PolicyOverrides {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(block)) {
    if (systemKeys.includes(key)) continue;
    if (!(POLICY_KEYS as string[]).includes(key)) {
      const near = didYouMean(key, [...POLICY_KEYS, ...systemKeys]);
      const systems = systemKeys.length
        ? `, or a memory system's own block (${systemKeys.join(", ")})`
        : "";
      throw new PolicyError(
        `${prefix}${key} is not a memory policy key${near ? ` (did you mean ${near}?)` : ""}. ` +
          `The keys are ${POLICY_KEYS.join(", ")}${systems}.`,
      );
    }
    const parsed = POLICY_SHAPE[key as PolicyKey].safeParse(value);
    if (!parsed.success) {
      const message = parsed.error.issues[0]?.message ?? "is invalid";
      throw new PolicyError(`${prefix}${key} ${message}; got ${JSON.stringify(value)}.`);
    }
    out[key] = parsed.data;
  }
  return out as PolicyOverrides;
}

function readJsonObject(file: string, label: string): Record<string, unknown> | null {
  let bytes: Buffer | null;
  try {
    bytes = readFileNoFollow(file);
  } catch (err) {
    throw new PolicyError(`Cannot read ${label}: ${(err as Error).message}`);
  }
  if (bytes === null) return null;
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString("utf8"));
  } catch (err) {
    throw new PolicyError(`${label} is not valid JSON: ${(err as Error).message}. Fix the file.`);
  }
  if (!isJsonObject(value)) throw new PolicyError(`${label} must hold a JSON object ({…}).`);
  return value;
}
