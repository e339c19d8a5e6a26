import type { Millis } from "../../engine/types.js";
import {
  defineMemoryTool,
  type MemoryCallSite,
  type MemoryDecisionView,
  type MemoryMoment,
  type MemorySection,
  type MemorySystem,
  type MemoryToolSpec,
  type SessionRules,
} from "../memory-system.js";
import { WrappedMemory } from "../wrapped-memory.js";
import { EVOLVABLE_KEYS, type MemoryPolicy, policyProposalSchema } from "./memory-policy.js";
import type { PolicyState } from "./policy-state.js";

const EVOLUTION_RULE =
  "- At a month end you may change your memory policy with propose_policy; an accepted change applies from the next month.";

const PROPOSE_GUIDE =
  "- propose_policy(…, reason): at a month end only, change memory policy values (retrieve_limit, recent_days, session_summary_*, long_term_compress_char_threshold) from next month.";

const PROPOSE_DESCRIPTION =
  "Propose changes to your memory policy, in the month-end memory turn only. Send only the values to change and a reason. They are checked, recorded, and apply from the first bar of the next month.";

/** The month-end prompt of the evolution step, with the policy now in force. */
function evolutionPrompt(policy: MemoryPolicy): string {
  const current = EVOLVABLE_KEYS.map((k) => `${k}=${String(policy[k])}`).join(", ");
  return `The month has ended: you may review your memory policy (${current}). If a change would help next month, call propose_policy with the values to change and a reason; otherwise do nothing.`;
}

/**
 * PicoClaw's policy layer (docs/memory-policy.md) around any memory system: recall obeys
 * `retrieve_limit`, and with `evolution_enabled` the month-end memory turn is offered
 * `propose_policy`. Everything else is the system's own. Without evolution the wrapped system's
 * rules, tools and statistics are unchanged (the prompt prefix, and so request hashes, stay as they
 * were).
 */
export class PolicyLayer extends WrappedMemory {
  readonly rules: string;
  readonly tools: readonly MemoryToolSpec[];
  private readonly evolution: boolean;
  private promptedAt: number | null = null;

  /** Month ends open proposals only with evolution on; otherwise the inner system's need. */
  override get usesMoments(): boolean {
    return this.evolution || super.usesMoments;
  }

  constructor(
    inner: MemorySystem,
    private readonly state: PolicyState,
  ) {
    super(inner);
    this.evolution = state.current.evolution_enabled;
    this.rules = this.evolution ? `${inner.rules}\n${EVOLUTION_RULE}` : inner.rules;
    this.tools = this.evolution
      ? [
          ...inner.tools,
          defineMemoryTool({
            name: "propose_policy",
            description: PROPOSE_DESCRIPTION,
            parameters: policyProposalSchema,
            guide: PROPOSE_GUIDE,
            run: (args, at) => {
              const snap = state.propose(args, at);
              return {
                result: {
                  ok: true,
                  effectiveFrom: snap.effectiveFrom,
                  changes: snap.changes,
                  recorded: `policy_snapshots/${String(snap.seq).padStart(3, "0")}_${snap.month}.json`,
                },
                record: { memory: { tool: "policy", chars: args.reason.length } },
              };
            },
          }),
        ]
      : inner.tools;
  }

  get name(): string {
    return this.inner.name;
  }

  override volatileSections(view: MemoryDecisionView): MemorySection[] {
    this.state.at(view.time);
    return super.volatileSections(view);
  }

  sessionSummary(time: Millis): SessionRules {
    const p = this.state.at(time);
    return {
      threshold: p.session_summary_message_threshold,
      keep: p.session_summary_keep_count,
      tokenPercent: p.session_summary_token_percent,
      relevantLimit: p.session_relevant_history_limit,
      fallbackKeep: p.session_relevant_fallback_keep,
      mode: p.session_summary_mode,
    };
  }

  /** At a month end with evolution on: the evolution prompt (once per month end). */
  override pendingPrompt(at: MemoryCallSite): string | null {
    const own = super.pendingPrompt(at);
    if (!this.evolution || this.promptedAt === at.index || !this.state.isMonthEnd(at.index)) {
      return own;
    }
    this.promptedAt = at.index;
    const prompt = evolutionPrompt(this.state.at(at.time));
    return own === null ? prompt : `${own}\n\n${prompt}`;
  }

  override onMoment(moment: MemoryMoment): void | Promise<void> {
    if (moment.kind === "month_end") this.state.openMonthEnd(moment.month, moment.index);
    return super.onMoment(moment);
  }

  override recall(query: string, limit: number, asOf: Millis) {
    return super.recall(query, Math.min(limit, this.state.at(asOf).retrieve_limit), asOf);
  }

  override stats(): Record<string, number> {
    const own = super.stats();
    return this.evolution ? { ...own, ...this.state.stats() } : own;
  }
}
