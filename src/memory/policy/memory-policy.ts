import { z } from "zod";
import { plainText } from "../../util/plain-text.js";
import { JOURNAL_RECALL_DAYS } from "../recall/eligibility.js";

// PicoClaw's policy layer (docs/memory-policy.md): the knobs of a memory system, set in
// agenticbt.config.json's `memory` block and overridden by a run's policy_overrides.json. Names are
// PicoClaw's, in snake_case, so a PicoClaw config block reads the same here.

const int = (min: number, max: number, what: string) =>
  z
    .number({ error: `must be a number (${what})` })
    .int({ error: `must be a whole number from ${min} to ${max} (${what})` })
    .min(min, { error: `must be from ${min} to ${max} (${what})` })
    .max(max, { error: `must be from ${min} to ${max} (${what})` });

/** How a session summary is made: deterministic stubs, or a model call (the seed's way). */
export const SESSION_SUMMARY_MODES = ["stub", "model"] as const;
export type SessionSummaryMode = (typeof SESSION_SUMMARY_MODES)[number];

/** Who compresses the files memory's playbook: the deterministic merge, or the model (with the
 * merge as its fallback). */
export const PLAYBOOK_COMPRESS_MODES = ["rule", "model"] as const;
export type PlaybookCompressMode = (typeof PLAYBOOK_COMPRESS_MODES)[number];

export const POLICY_SHAPE = {
  retrieve_limit: int(1, 20, "most recall results returned or injected per query"),
  recent_days: int(1, 366, "trading days of journal kept recallable in full"),
  session_summary_message_threshold: int(
    0,
    1000,
    "messages in one decision's conversation before older tool results are summarised; 0 = never",
  ),
  session_summary_token_percent: int(
    1,
    100,
    "percent of the prompt budget that triggers a summary",
  ),
  session_summary_keep_count: int(0, 100, "most recent messages kept whole by a summary"),
  long_term_compress_char_threshold: int(
    0,
    100_000_000,
    "characters of the long-term index before it is compressed; 0 = never",
  ),
  evolution_enabled: z.boolean({ error: "must be true or false" }),
  session_relevant_history_limit: int(
    0,
    100,
    "earlier tool rounds of a decision kept by relevance to its context; 0 = keep them all",
  ),
  session_relevant_fallback_keep: int(
    0,
    100,
    "messages kept when no earlier round is relevant; 0 = none",
  ),
  session_summary_mode: z.enum(SESSION_SUMMARY_MODES, {
    error: `must be ${SESSION_SUMMARY_MODES.map((m) => JSON.stringify(m)).join(" or ")} (stub: older tool results become a one-line stub; model: the model summarises them)`,
  }),
  playbook_compress_char_threshold: int(
    0,
    100_000_000,
    "characters of the files memory's playbook before it is compressed; 0 = never",
  ),
  playbook_compress_mode: z.enum(PLAYBOOK_COMPRESS_MODES, {
    error: `must be ${PLAYBOOK_COMPRESS_MODES.map((m) => JSON.stringify(m)).join(" or ")} (rule: duplicate lessons merged by their text; model: the model rewrites the lessons, the rule when its answer fails the checks)`,
  }),
} as const;

export const memoryPolicySchema = z.strictObject(POLICY_SHAPE);
export type MemoryPolicy = z.infer<typeof memoryPolicySchema>;
export type PolicyKey = keyof MemoryPolicy;
export const POLICY_KEYS = Object.keys(POLICY_SHAPE) as PolicyKey[];

/**
 * Defaults that leave every system as it was without a policy (PicoClaw's own defaults are
 * retrieve_limit 10, recent_days 3 and a summary after 20 messages): 20 is the recall tools' own
 * maximum, so nothing is capped, recent_days is the files memory's journal tier (5 trading days),
 * and no decision's conversation is summarised.
 */
export const DEFAULT_MEMORY_POLICY: Readonly<MemoryPolicy> = Object.freeze({
  retrieve_limit: 20,
  recent_days: JOURNAL_RECALL_DAYS,
  session_summary_message_threshold: 0,
  session_summary_token_percent: 75,
  session_summary_keep_count: 4,
  long_term_compress_char_threshold: 0,
  evolution_enabled: false,
  session_relevant_history_limit: 0,
  session_relevant_fallback_keep: 8,
  session_summary_mode: "stub",
  playbook_compress_char_threshold: 0,
  playbook_compress_mode: "rule",
});

/**
 * The keys the agent may change at a month end. The later keys are the user's alone: adding them
 * to the proposal tool would change its schema, and so every evolving run's prompts.
 */
export const EVOLVABLE_KEYS = [
  "retrieve_limit",
  "recent_days",
  "session_summary_message_threshold",
  "session_summary_token_percent",
  "session_summary_keep_count",
  "long_term_compress_char_threshold",
] as const satisfies readonly PolicyKey[];

/** Any subset of the policy: a config block or an overrides file. */
export const policyOverridesSchema = memoryPolicySchema.partial();
export type PolicyOverrides = z.infer<typeof policyOverridesSchema>;

/**
 * What the agent may change at a month end: the evolvable knobs (never the evolution switch, the
 * user's), at least one of them, and a reason for the record.
 */
export const policyProposalSchema = z
  .strictObject({
    retrieve_limit: POLICY_SHAPE.retrieve_limit.optional(),
    recent_days: POLICY_SHAPE.recent_days.optional(),
    session_summary_message_threshold: POLICY_SHAPE.session_summary_message_threshold.optional(),
    session_summary_token_percent: POLICY_SHAPE.session_summary_token_percent.optional(),
    session_summary_keep_count: POLICY_SHAPE.session_summary_keep_count.optional(),
    long_term_compress_char_threshold: POLICY_SHAPE.long_term_compress_char_threshold.optional(),
    reason: plainText(1, 1000).describe("Why this change should help, 1-1000 characters."),
  })
  .refine((p) => EVOLVABLE_KEYS.some((k) => k in p), {
    error: "propose at least one policy value to change (e.g. retrieve_limit)",
  });
export type PolicyProposal = z.infer<typeof policyProposalSchema>;

/** `base` with `over`'s keys laid on top (undefined values are absent, not overrides). */
export function applyOverrides(base: MemoryPolicy, over: PolicyOverrides): MemoryPolicy {
  const out = { ...base };
  for (const key of POLICY_KEYS) {
    const value = over[key];
    if (value !== undefined) (out as Record<PolicyKey, unknown>)[key] = value;
  }
  return out;
}

/** The keys whose values differ, with both values, in POLICY_KEYS order. */
export function policyChanges(
  before: MemoryPolicy,
  after: MemoryPolicy,
): { key: PolicyKey; before: unknown; after: unknown }[] {
  return POLICY_KEYS.filter((k) => before[k] !== after[k]).map((key) => ({
    key,
    before: before[key],
    after: after[key],
  }));
}

/**
 * A policy as a run recorded it, completed with the defaults of keys added after it was recorded
 * (they were not in force, and their defaults change nothing). null when it is not a valid policy.
 */
export function recordedPolicy(recorded: unknown): MemoryPolicy | null {
  if (typeof recorded !== "object" || recorded === null || Array.isArray(recorded)) return null;
  const parsed = memoryPolicySchema.safeParse({ ...DEFAULT_MEMORY_POLICY, ...recorded });
  return parsed.success ? parsed.data : null;
}
