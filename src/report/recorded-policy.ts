import { monthKey } from "../engine/calendar.js";
import type { Millis } from "../engine/types.js";
import {
  type MemoryPolicy,
  memoryPolicySchema,
  recordedPolicy,
} from "../memory/policy/memory-policy.js";
import { readConfig } from "../rundir/run-record.js";
import { readPolicyHistory } from "./policy-history.js";

/**
 * The memory policy a recorded run had in force at `time`: the resolved policy of its config.json
 * with every evolution change whose month had begun. null for a run recorded without a policy
 * (before the policy layer), whose recall used the defaults.
 */
export function recordedPolicyAt(runDir: string, time: Millis): MemoryPolicy | null {
  const recorded = (readConfig(runDir).memoryPolicy as { policy?: unknown } | undefined)?.policy;
  const parsed = recordedPolicy(recorded);
  if (parsed === null) return null;
  const policy: Record<string, unknown> = { ...parsed };
  const month = monthKey(time);
  for (const change of readPolicyHistory(runDir)) {
    if (change.effectiveFrom <= month) policy[change.key] = change.after;
  }
  return memoryPolicySchema.parse(policy);
}
