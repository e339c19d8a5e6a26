import path from "node:path";
import { monthKey } from "../../engine/calendar.js";
import type { Millis } from "../../engine/types.js";
import { writeJsonAtomic } from "../../util/atomic-write.js";
import { mkdirBelow, refuseSymlinkBelow } from "../../util/no-follow.js";
import {
  applyOverrides,
  EVOLVABLE_KEYS,
  type MemoryPolicy,
  type PolicyKey,
  type PolicyOverrides,
  type PolicyProposal,
  policyChanges,
} from "./memory-policy.js";
import { POLICY_OVERRIDES_FILE } from "./policy-sources.js";

export const POLICY_SNAPSHOTS_DIR = "policy_snapshots";

/** One accepted proposal, as written to `policy_snapshots/<NNN>_<YYYY-MM>.json`. */
export interface PolicySnapshot {
  seq: number;
  /** Simulated time of the proposal (the month-end bar's label). */
  proposedAt: string;
  /** The month that ended. */
  month: string;
  /** The first month the change is in force. */
  effectiveFrom: string;
  reason: string;
  changes: { key: PolicyKey; before: unknown; after: unknown }[];
  /** The whole policy before and after: the snapshot to roll back to, and what replaces it. */
  before: MemoryPolicy;
  after: MemoryPolicy;
}

/** Where a proposal is made: the bar, and whether a month ended at it. */
export interface ProposalSite {
  time: Millis;
  label: string;
}

/**
 * The policy in force over a run. It starts as the resolved policy (defaults ← config ←
 * overrides); with evolution on, the agent may propose changes at a month end, which are checked,
 * snapshotted into `policy_snapshots/`, written into the run's `policy_overrides.json` and put in
 * force from the first bar of the next month, never in the month that produced them.
 */
export class PolicyState {
  private inForce: MemoryPolicy;
  private overrides: PolicyOverrides;
  private readonly pending: PolicySnapshot[] = [];
  private readonly accepted: PolicySnapshot[] = [];
  /** The month whose end is open for proposals (set by the month-end moment, until used). */
  private monthEndOpen: { month: string; index: number } | null = null;
  private refused = 0;

  constructor(
    private readonly runDir: string,
    initial: MemoryPolicy,
    overrides: PolicyOverrides,
  ) {
    this.inForce = { ...initial };
    this.overrides = { ...overrides };
    if (Object.keys(overrides).length > 0) this.writeOverrides();
  }

  /** The policy in force at `time`: accepted proposals apply from their effective month on. */
  at(time: Millis): MemoryPolicy {
    const month = monthKey(time);
    while (this.pending.length > 0 && (this.pending[0] as PolicySnapshot).effectiveFrom <= month) {
      this.inForce = (this.pending.shift() as PolicySnapshot).after;
    }
    return this.inForce;
  }

  /** The policy in force now (as of the last `at`). */
  get current(): MemoryPolicy {
    return this.inForce;
  }

  /** A month ended at bar `index`: the agent's memory turn at that bar may propose. */
  openMonthEnd(month: string, index: number): void {
    this.monthEndOpen = { month, index };
  }

  /** Whether a month ended at bar `index` (its memory turn may propose). */
  isMonthEnd(index: number): boolean {
    return this.monthEndOpen?.index === index;
  }

  /**
   * Checks and records a proposal (the schema has already checked each value). Throws an Error
   * the model reads when evolution is off, when no month ended at this bar, or when nothing would
   * change.
   */
  propose(p: PolicyProposal, site: ProposalSite & { index: number }): PolicySnapshot {
    try {
      return this.accept(p, site);
    } catch (err) {
      this.refused++;
      throw err;
    }
  }

  private accept(p: PolicyProposal, site: ProposalSite & { index: number }): PolicySnapshot {
    const base = this.latest();
    if (!base.evolution_enabled) {
      throw new Error(
        "Policy evolution is off for this run (evolution_enabled is false): the policy cannot be changed.",
      );
    }
    const open = this.monthEndOpen;
    if (open === null || open.index !== site.index) {
      throw new Error(
        "Policy changes can only be proposed at a month end, in the month's memory turn. Keep trading with the current policy.",
      );
    }
    const change: PolicyOverrides = {};
    for (const key of EVOLVABLE_KEYS) {
      if (p[key] !== undefined) (change as Record<string, unknown>)[key] = p[key];
    }
    const after = applyOverrides(base, change);
    const changes = policyChanges(base, after);
    if (changes.length === 0) {
      throw new Error(
        `The proposal changes nothing: the policy already has ${JSON.stringify(change)}. Propose a different value or nothing.`,
      );
    }
    const snapshot: PolicySnapshot = {
      seq: this.accepted.length + 1,
      proposedAt: site.label,
      month: open.month,
      effectiveFrom: nextMonth(open.month),
      reason: p.reason,
      changes,
      before: base,
      after,
    };
    const name = `${String(snapshot.seq).padStart(3, "0")}_${open.month}.json`;
    const dir = path.join(this.runDir, POLICY_SNAPSHOTS_DIR);
    mkdirBelow(this.runDir, dir);
    const file = path.join(dir, name);
    refuseSymlinkBelow(this.runDir, file);
    writeJsonAtomic(file, snapshot);
    this.accepted.push(snapshot);
    this.pending.push(snapshot);
    this.overrides = { ...this.overrides, ...change };
    this.writeOverrides();
    return snapshot;
  }

  /** The policy after every accepted proposal, in force or not yet. */
  private latest(): MemoryPolicy {
    return this.accepted.at(-1)?.after ?? this.inForce;
  }

  /** Accepted proposals, in order. */
  history(): readonly PolicySnapshot[] {
    return this.accepted;
  }

  stats(): Record<string, number> {
    return {
      policyProposalsAccepted: this.accepted.length,
      policyProposalsRefused: this.refused,
    };
  }

  private writeOverrides(): void {
    const file = path.join(this.runDir, POLICY_OVERRIDES_FILE);
    refuseSymlinkBelow(this.runDir, file);
    writeJsonAtomic(file, this.overrides);
  }
}

/** "2024-12" → "2025-01". */
export function nextMonth(month: string): string {
  const [y, m] = month.split("-").map(Number) as [number, number];
  return m === 12 ? `${y + 1}-01` : `${y}-${String(m + 1).padStart(2, "0")}`;
}
