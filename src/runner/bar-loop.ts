import type { Simulation } from "../engine/simulation.js";
import type { EngineEvent } from "../engine/types.js";
import type { BacktestContext } from "../strategy/context.js";
import type { Strategy } from "../strategy/types.js";
import type { HookRunner } from "./hook-runner.js";
import { settleWithin } from "./hook-timeout.js";
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
 * The first slice's length; each next one doubles up to SLICE. `steps` should have returned from
 * a slice before V8 optimizes it: code optimized in the middle of a long first slice has never seen
 * the loop's exit, deoptimizes there when the slice ends, and may stay unoptimized for the run.
 */
const FIRST_SLICE = 256;
/** Progress events by count: about one per 0.5% of the window (a few hundred per run). */
const PROGRESS_STEPS = 200;
/** And by time, at a slice's end, when the last one is older than this (a slow strategy). */
const PROGRESS_EVERY_MS = 250;

export interface BarLoopParts {
  sim: Simulation;
  ctx: BacktestContext;
  strategy: Strategy<unknown>;
  hooks: HookRunner;
  pending: EngineEvent[];
  /** Cash at each bar's close, filled as the loop goes. */
  cash: Float64Array;
  emit: RunEventListener;
  label: (i: number) => string;
  /** Buy-and-hold equity from the window's first bar (index 0 = bar `start`). */
  benchmark: Float64Array;
  initialCash: number;
  /** Emit progress events at all (none are built when nobody listens). */
  progress: boolean;
  /** Called once a bar is wholly done, its hooks settled (the checkpoint). */
  afterBar?: ((i: number) => void) | undefined;
  /** How long a hook's promise may stay pending (null: no limit). */
  hookTimeoutMs?: number | null;
  /** Told the last closed bar at each turn of the event loop (equity.csv's worker follows it). */
  onSlice?: ((lastClosed: number) => void) | undefined;
}

/** Which hook a step awaits, for the timeout's message. */
const STEP_HOOK = ["an event hook", "onBar", "an event hook", "an event hook", "onBarEnd"];

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
  private peak = -Infinity;
  /** The deepest drawdown from `peak` so far (a fraction, ≤ 0). */
  private maxDrawdown = 0;
  private peakScanned = 0;
  private start = 0;
  private startedAt = 0;
  private lastProgressAt = 0;
  /** Where the loop is: the bar, and the next step of it. */
  private i = 0;
  private stepNo = OPEN;
  private progressEvery = 1;
  /** A bar finished while its last hook was pending: told to afterBar once that settles. */
  private finished = -1;
  /** The promise the step `wholeBar` stopped at handed back. */
  private handedBack: Promise<void> | undefined = undefined;

  constructor(private readonly p: BarLoopParts) {}

  interrupt(): void {
    this.interrupted = true;
  }

  /** Runs bars `start`..end (from bar `from`, a resume's, when the bars before it are restored);
   * resolves how it ended. */
  async run(start: number, state: unknown, from = start): Promise<LoopEnd> {
    const end = this.begin(start, from);
    let slice = FIRST_SLICE;
    while (this.i < end) {
      const sliceEnd = Math.min(end, this.i + slice);
      slice = Math.min(SLICE, slice * 2);
      for (;;) {
        const r = this.steps(sliceEnd, state);
        if (r === undefined) break;
        if (typeof r === "string") return r;
        await r;
      }
      const i = this.i;
      if (
        this.p.progress &&
        i < end &&
        i > start &&
        performance.now() - this.lastProgressAt >= PROGRESS_EVERY_MS
      ) {
        this.progress(i - 1, i - start, end - start);
      }
      this.p.onSlice?.(this.lastClosed);
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    return this.ended(end);
  }

  /** The same bars without ever yielding, for a strategy whose hooks never return a promise. */
  runSync(start: number, state: unknown): LoopEnd {
    const end = this.begin(start);
    const r = this.steps(end, state);
    if (r instanceof Promise) {
      throw new TypeError("a strategy hook returned a promise: run it with simulate()");
    }
    return r ?? this.ended(end);
  }

  private begin(start: number, from = start): number {
    this.start = start;
    this.peakScanned = start;
    this.startedAt = performance.now();
    this.lastProgressAt = this.startedAt;
    this.i = from;
    if (from > start) this.lastClosed = from - 1;
    this.stepNo = OPEN;
    this.progressEvery = Math.max(1, Math.floor((this.p.sim.length - start) / PROGRESS_STEPS));
    return this.p.sim.length;
  }

  private ended(end: number): LoopEnd {
    if (this.interrupted && this.i < end) return "interrupted";
    return this.p.ctx.stopRequest?.status ?? "completed";
  }

  /**
   * Runs steps synchronously up to bar `until` (exclusive, at a bar's start): undefined when it got
   * there, how the run ended when it stopped, or the promise a step handed back (the caller awaits
   * it, then calls again to go on from the next step).
   */
  private steps(until: number, state: unknown): Promise<void> | LoopEnd | undefined {
    const { ctx } = this.p;
    const progress = this.p.progress;
    const total = this.p.sim.length - this.start;
    const afterBar = this.p.afterBar;
    const timeoutMs = this.p.hookTimeoutMs ?? null;
    // Back from awaiting the hook that ended a bar: that bar is now wholly done.
    if (this.finished >= 0) {
      afterBar?.(this.finished);
      this.finished = -1;
    }
    let i = this.i;
    let step = this.stepNo;
    while (i < until) {
      let wait: Promise<void> | undefined;
      if (step === OPEN) {
        // An interrupt or a stop lets the current bar finish and ends before the next one opens.
        if (this.interrupted) return "interrupted";
        if (ctx.stopRequest) return ctx.stopRequest.status;
        // The bar's steps in a row; it stops at the one that hands back a promise, if any.
        step = this.wholeBar(i, state);
        wait = this.handedBack;
        this.handedBack = undefined;
      } else {
        wait = this.step(i, step, state);
      }
      if (wait && timeoutMs !== null) wait = this.withTimeout(wait, timeoutMs, i, step);
      step++;
      let finished = -1;
      if (step > AFTER_CLOSE) {
        const done = i - this.start + 1;
        if (progress && (done % this.progressEvery === 0 || done === total)) {
          this.progress(i, done, total);
        }
        step = OPEN;
        finished = i;
        i++;
      }
      if (wait) {
        this.i = i;
        this.stepNo = step;
        this.finished = finished;
        return wait;
      }
      if (finished >= 0) afterBar?.(finished);
    }
    this.i = i;
    this.stepNo = step;
    return undefined;
  }

  /** A hook's promise that fails the run once it stays pending past the timeout. */
  private withTimeout(
    wait: Promise<void>,
    timeoutMs: number,
    bar: number,
    step: number,
  ): Promise<void> {
    const fallback = STEP_HOOK[step] ?? "a hook";
    // Event hooks name themselves when they hand back a promise (onFill, onDayEnd…).
    const hook = () => (step === DECIDE ? "onBar" : (this.p.hooks.lastHook ?? fallback));
    return settleWithin(wait, timeoutMs, () => `The strategy's ${hook()} at ${this.p.label(bar)}`);
  }

  /** The live view of the account at bar `i`: everything a renderer shows, no file read. */
  private progress(i: number, done: number, total: number): void {
    const { sim, benchmark, initialCash } = this.p;
    const equity = sim.equity[i] as number;
    // The peak over every bar, not only the reported ones.
    for (let k = this.peakScanned; k <= i; k++) {
      const e = sim.equity[k] as number;
      if (e > this.peak) this.peak = e;
      else if (this.peak > 0 && e / this.peak - 1 < this.maxDrawdown) {
        this.maxDrawdown = e / this.peak - 1;
      }
    }
    this.peakScanned = i + 1;
    const q = sim.broker.portfolio.qty;
    const positions: { symbol: string; qty: number }[] = [];
    for (let s = 0; s < q.length; s++) {
      const qty = q[s] as number;
      if (qty !== 0) positions.push({ symbol: this.p.ctx.symbols[s] as string, qty });
    }
    const bench = (benchmark[i - this.start] as number | undefined) ?? initialCash;
    const now = performance.now();
    this.lastProgressAt = now;
    this.p.emit({
      type: "progress",
      done,
      total,
      time: this.p.label(i),
      bar: i,
      equity,
      cash: sim.broker.portfolio.cash,
      peakEquity: this.peak,
      drawdownPct: this.peak > 0 ? (equity / this.peak - 1) * 100 : 0,
      maxDrawdownPct: this.maxDrawdown * 100,
      returnPct: (equity / initialCash - 1) * 100,
      benchmarkEquity: bench,
      benchmarkReturnPct: (bench / initialCash - 1) * 100,
      positions,
      elapsedMs: now - this.startedAt,
    });
  }

  /**
   * Bar i's five steps in a row, as `step` runs them one by one but without its dispatch (the
   * loop's cost on a million bars): returns the last step run, the one that handed back a promise
   * (kept in `handedBack`) or AFTER_CLOSE.
   */
  private wholeBar(i: number, state: unknown): number {
    this.current = i;
    let wait = this.open(i);
    if (wait) {
      this.handedBack = wait;
      return OPEN;
    }
    wait = this.decide(state);
    if (wait) {
      this.handedBack = wait;
      return DECIDE;
    }
    wait = this.record(i);
    if (wait) {
      this.handedBack = wait;
      return RECORD;
    }
    wait = this.close(i);
    if (wait) {
      this.handedBack = wait;
      return CLOSE;
    }
    this.handedBack = this.p.hooks.barEnd(i);
    return AFTER_CLOSE;
  }

  private step(i: number, step: number, state: unknown): Promise<void> | undefined {
    this.current = i;
    switch (step) {
      case OPEN:
        return this.open(i);
      case DECIDE:
        return this.decide(state);
      case RECORD:
        return this.record(i);
      case CLOSE:
        return this.close(i);
      default:
        return this.p.hooks.barEnd(i);
    }
  }

  private open(i: number): Promise<void> | undefined {
    const { sim, ctx, hooks, pending } = this.p;
    ctx.advance(i);
    sim.openBar(i);
    return pending.length ? hooks.drain(pending, i) : undefined;
  }

  private decide(state: unknown): Promise<void> | undefined {
    const ctx = this.p.ctx;
    ctx.resetActivity();
    const r = this.p.strategy.onBar(ctx, state);
    return r instanceof Promise ? r : undefined;
  }

  private record(i: number): Promise<void> | undefined {
    const { ctx, hooks, pending } = this.p;
    hooks.record(i, "bar", ctx.resetActivity());
    return pending.length ? hooks.drain(pending, i) : undefined;
  }

  private close(i: number): Promise<void> | undefined {
    const { sim, hooks, pending } = this.p;
    sim.closeBar(i);
    this.p.cash[i] = sim.broker.portfolio.cash;
    this.lastClosed = i;
    return pending.length ? hooks.drain(pending, i) : undefined;
  }
}
