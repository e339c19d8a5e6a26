import type { Millis } from "../engine/types.js";
import type { RecallAnswer } from "../strategy/types.js";
import type {
  AgentMomentKind,
  MemoryCallSite,
  MemoryDecisionView,
  MemoryMoment,
  MemorySection,
  MemorySystem,
  MemoryToolSpec,
} from "./memory-system.js";

/**
 * A memory system over another (`inner`): every method forwards to it unless the subclass
 * overrides it, so a wrapper (the policy layer, persistent memory over the files) writes out only
 * what it changes.
 */
export abstract class WrappedMemory implements MemorySystem {
  abstract readonly name: string;
  abstract readonly rules: string;
  abstract readonly tools: readonly MemoryToolSpec[];

  constructor(protected readonly inner: MemorySystem) {}

  get usesMoments(): boolean {
    return this.inner.usesMoments !== false;
  }

  stableSection(): MemorySection | null {
    return this.inner.stableSection();
  }

  volatileSections(view: MemoryDecisionView): MemorySection[] {
    return this.inner.volatileSections(view);
  }

  decisionPrefix(message: string, view: MemoryDecisionView): string {
    return this.inner.decisionPrefix?.(message, view) ?? "";
  }

  momentPrompt(kind: AgentMomentKind, at: MemoryCallSite): string | null {
    return this.inner.momentPrompt(kind, at);
  }

  pendingPrompt(at: MemoryCallSite): string | null {
    return this.inner.pendingPrompt(at);
  }

  onMoment(moment: MemoryMoment): void | Promise<void> {
    return this.inner.onMoment(moment);
  }

  recall(query: string, limit: number, asOf: Millis): RecallAnswer | Promise<RecallAnswer> {
    return this.inner.recall(query, limit, asOf);
  }

  stats(): Record<string, number> {
    return this.inner.stats();
  }

  checkpoint(): unknown {
    return this.inner.checkpoint();
  }

  restore(state: unknown): void {
    this.inner.restore(state);
  }

  finish(): void {
    this.inner.finish();
  }
}
