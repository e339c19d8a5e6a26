import type { Simulation } from "../engine/simulation.js";
import type { EngineEvent } from "../engine/types.js";
import type { BacktestContext } from "../strategy/context.js";
import type { Strategy } from "../strategy/types.js";
import type { HookRunner } from "./hook-runner.js";
import type { RunEventListener } from "./run-events.js";

/** The steps of one bar, in order. A step may start asynchronous work; the next waits for it. */
const OPEN = 0;
const DECIDE = 1;
const RECORD = 2;
const CLOSE = 3;
const AFTER_CLOSE = 4;

export type LoopEnd = "completed" | "interrupted" | "budget_exhausted" | "stopped";

/** How many bars run between two turns of the event loop (for Ctrl-C and progress output). */
const SLICE = 16_384;

/**
 * Drives the simulation bar by bar around the strategy. Steps run synchronously and the loop only
 * awaits when a strategy hook really returned a promise (an LLM agent), so a code strategy runs at
 * engine speed while an async one is awaited at exactly the right step.
 */
export class BarLoop {
  /** The last bar whose close was processed (-1 before the first). */
  lastClosed = -1;
  /** The bar being processed (-1 before the first): where an error was thrown. */
  current = -1;
  private interrupted = false;

  constructor(
    private readonly sim: Simulation,
    private readonly ctx: BacktestContext,
    private readonly strategy: Strategy<unknown>,
    private readonly hooks: HookRunner,
    private readonly pending: EngineEvent[],
    private readonly cash: Float64Array,
    private readonly emit: RunEventListener,
    private readonly label: (i: number) => string,
  ) {}

  interrupt(): void {
    this.interrupted = true;
  }

  /** Runs bars `start`..end; resolves how it ended. */
  async run(start: number, state: unknown): Promise<LoopEnd> {
    const end = this.sim.length;
    const total = end - start;
    const progressEvery = Math.max(1, Math.floor(total / 100));
    let i = start;
    let step = OPEN;
    while (i < end) {
      const sliceEnd = Math.min(end, i + SLICE);
      // Synchronous inner loop: it awaits only when a step hands back a promise.
      while (i < sliceEnd) {
        // An interrupt or a stop lets the current bar finish and ends before the next one opens.
        if (step === OPEN) {
          if (this.interrupted) return "interrupted";
          if (this.ctx.stopRequest) return this.ctx.stopRequest.status;
        }
        const wait = this.step(i, step, state);
        step++;
        if (step > AFTER_CLOSE) {
          const done = i - start + 1;
          if (done % progressEvery === 0 || done === total) {
            this.emit({
              type: "progress",
              done,
              total,
              time: this.label(i),
              equity: this.sim.equity[i] as number,
            });
          }
          step = OPEN;
          i++;
        }
        if (wait) await wait;
      }
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    if (this.interrupted && i < end) return "interrupted";
    return this.ctx.stopRequest?.status ?? "completed";
  }

  private step(i: number, step: number, state: unknown): Promise<void> | undefined {
    const { sim, ctx, hooks, pending } = this;
    this.current = i;
    switch (step) {
      case OPEN:
        ctx.advance(i);
        sim.openBar(i);
        return pending.length ? hooks.drain(pending, i) : undefined;
      case DECIDE: {
        ctx.resetActivity();
        const r = this.strategy.onBar(ctx, state);
        return r instanceof Promise ? r : undefined;
      }
      case RECORD:
        hooks.record(i, "bar", ctx.resetActivity());
        return pending.length ? hooks.drain(pending, i) : undefined;
      case CLOSE:
        sim.closeBar(i);
        this.cash[i] = sim.broker.portfolio.cash;
        this.lastClosed = i;
        return pending.length ? hooks.drain(pending, i) : undefined;
      default:
        return this.hooks.barEnd(i);
    }
  }
}
