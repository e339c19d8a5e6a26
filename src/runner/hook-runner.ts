import type { EngineEvent } from "../engine/types.js";
import type { MemoryMoment } from "../memory/memory-system.js";
import { type RecordBuilder, RecordLog } from "../rundir/record-log.js";
import type { ReportedTrade } from "../rundir/write-outputs.js";
import type { BacktestContext, ContextActivity } from "../strategy/context.js";
import { HOOK_NAMES } from "../strategy/hook-names.js";
import type { Strategy } from "../strategy/types.js";
import { assertNever } from "../util/assert-never.js";
import {
  decisionAt,
  decisionRecord,
  fillAt,
  orderEventAt,
  orderSummary,
  pushDecision,
  pushFill,
  pushOrderEvent,
} from "./order-records.js";
import type { RunEventListener } from "./run-events.js";

type Maybe = Promise<void> | undefined;

/**
 * Turns engine events into records (orders.jsonl, decisions.jsonl, trades) and calls the
 * strategy's hooks. Synchronous unless a hook returns a promise: a sync strategy never pays for
 * an await, which matters at a million bars. Records are kept as the values they are made of and
 * serialized when read (RecordLog).
 */
/** Hears a recorded decision: its bar, its hook's kind and what it did. */
export type DecisionListener = (index: number, kind: string, a: ContextActivity) => void;

export class HookRunner {
  readonly orderLog = new RecordLog();
  readonly decisionLog = new RecordLog();
  /** The orderLog lines of rejected orders, by index (report.html marks them). */
  readonly rejectedOrders: number[] = [];
  readonly trades: ReportedTrade[] = [];

  /** The strategy's state, set once its `init` has run. */
  state: unknown = undefined;

  /** The hook whose promise is awaited now (`onFill`, `onDayEnd`…), for a timeout's message. */
  lastHook: string | null = null;

  constructor(
    private readonly strategy: Strategy<unknown>,
    private readonly ctx: BacktestContext,
    private readonly emit: RunEventListener,
    label: (i: number) => string,
    /** Keep orders.jsonl and decisions.jsonl lines (a run directory needs them; memory does not). */
    private readonly records = true,
    /** The memory system hears each memory moment before the strategy's hook for it. */
    private readonly onMemoryMoment: ((moment: MemoryMoment) => void | Promise<void>) | null = null,
    /** Hears each recorded decision after it (the decision traces). */
    private readonly onDecision: DecisionListener | null = null,
  ) {
    this.labelOf = label;
    this.orderEventAt = (v, at) => orderEventAt(v, at, label);
    this.fillAt = (v, at) => fillAt(v, at, label);
    this.decisionAt = (v, at) => decisionAt(v, at, label);
  }

  private readonly labelOf: (i: number) => string;
  /** The builders of the records kept as values: each makes its bar's label again. */
  private readonly orderEventAt: RecordBuilder;
  private readonly fillAt: RecordBuilder;
  private readonly decisionAt: RecordBuilder;
  private labelIndex = -1;
  private labelText = "";

  /** A bar's label, formatted once however many records the bar has. */
  private label(i: number): string {
    if (i !== this.labelIndex) {
      this.labelIndex = i;
      this.labelText = this.labelOf(i);
    }
    return this.labelText;
  }

  /** A resume: the records of the bars up to its checkpoint, before the next bar. */
  restore(
    orderLines: readonly string[],
    decisionLines: readonly string[],
    rejectedOrders: readonly number[],
    trades: readonly ReportedTrade[],
  ): void {
    for (const line of orderLines) this.orderLog.pushLine(line);
    for (const line of decisionLines) this.decisionLog.pushLine(line);
    // One push per item: a spread of a long array would overflow the call stack.
    for (const r of rejectedOrders) this.rejectedOrders.push(r);
    for (const t of trades) this.trades.push(t);
  }

  /** Handles every pending event; hooks may place orders, whose events join the queue. */
  drain(pending: EngineEvent[], index: number): Maybe {
    for (let k = 0; k < pending.length; k++) {
      const r = this.handle(pending[k] as EngineEvent, index);
      if (r) return this.drainAsync(r, pending, k + 1, index);
    }
    empty(pending);
    return undefined;
  }

  private async drainAsync(
    first: Promise<void>,
    pending: EngineEvent[],
    from: number,
    index: number,
  ): Promise<void> {
    await first;
    for (let k = from; k < pending.length; k++) {
      const r = this.handle(pending[k] as EngineEvent, index);
      if (r) await r;
    }
    empty(pending);
  }

  private handle(e: EngineEvent, index: number): Maybe {
    if (this.onMemoryMoment) {
      const moment = this.momentOf(e);
      // A memory asking the model (a model mode) finishes before the strategy's hook.
      const r = moment === null ? undefined : this.onMemoryMoment(moment);
      if (r instanceof Promise) {
        // Named for a hook timeout's message (the wait is the memory's, not a hook's).
        this.lastHook = "memory system's model call";
        return r.then(() => this.handleEvent(e, index));
      }
    }
    return this.handleEvent(e, index);
  }

  private handleEvent(e: EngineEvent, index: number): Maybe {
    const s = this.strategy;
    const ctx = this.ctx;
    const state = this.state;
    switch (e.type) {
      case "order_accepted": {
        const time = this.label(e.index);
        if (this.records) pushOrderEvent(this.orderLog.open(this.orderEventAt), e);
        this.emit({ type: "order_accepted", time, bar: e.index, order: e.order });
        return undefined;
      }
      case "order_rejected":
      case "order_cancelled":
      case "order_expired": {
        const time = this.label(e.index);
        if (this.records) {
          if (e.type === "order_rejected") this.rejectedOrders.push(this.orderLog.length);
          pushOrderEvent(this.orderLog.open(this.orderEventAt), e);
        }
        const reason = ("reason" in e ? e.reason : e.order.reason) ?? "";
        if (e.type === "order_rejected") {
          this.emit({ type: "order_rejected", time, bar: e.index, order: e.order, reason });
        } else {
          const expired = e.type === "order_expired";
          this.emit({
            type: "order_cancelled",
            time,
            bar: e.index,
            order: e.order,
            reason,
            expired,
          });
        }
        if (!s.onOrderUpdate) return undefined;
        const update = {
          kind:
            e.type === "order_rejected"
              ? "rejected"
              : e.type === "order_cancelled"
                ? "cancelled"
                : "expired",
          order: e.order,
          reason,
        } as const;
        return this.hook("order_update", index, () => s.onOrderUpdate?.(ctx, update, state));
      }
      case "fill":
        // The fill is the broker's own frozen object: kept as it is, it is its own snapshot.
        if (this.records) pushFill(this.orderLog.open(this.fillAt), e.fill, e.index);
        this.emit({ type: "fill", time: this.label(e.index), bar: e.index, fill: e.fill });
        return s.onFill
          ? this.hook("fill", index, () => s.onFill?.(ctx, e.fill, state))
          : undefined;
      case "trade_closed":
        this.trades.push({ ...e.trade, openAtEnd: false });
        this.emit({
          type: "trade_closed",
          time: this.label(e.index),
          bar: e.index,
          trade: e.trade,
        });
        return s.onTradeClosed
          ? this.hook("trade_closed", index, () => s.onTradeClosed?.(ctx, e.trade, state))
          : undefined;
      case "day_end":
        return s.onDayEnd
          ? this.hook("day_end", index, () => s.onDayEnd?.(ctx, e.key, state))
          : undefined;
      case "week_end":
        return s.onWeekEnd
          ? this.hook("week_end", index, () => s.onWeekEnd?.(ctx, e.key, state))
          : undefined;
      case "month_end":
        return s.onMonthEnd
          ? this.hook("month_end", index, () => s.onMonthEnd?.(ctx, e.key, state))
          : undefined;
      case "run_end":
        return s.onRunEnd ? this.hook("run_end", index, () => s.onRunEnd?.(ctx, state)) : undefined;
      case "bar":
        // The loop calls onBar itself, at its place between the two halves of the bar.
        return undefined;
      default:
        return assertNever(e, "engine event");
    }
  }

  /** The memory moment an engine event is, or null. */
  private momentOf(e: EngineEvent): MemoryMoment | null {
    switch (e.type) {
      case "fill":
        return { kind: "fill", time: e.time, index: e.index, fill: e.fill };
      case "trade_closed":
        return { kind: "close", time: this.ctx.time, index: e.index, trade: e.trade };
      case "day_end":
        return {
          kind: "day_end",
          time: e.time,
          index: e.index,
          day: e.key,
          equity: this.ctx.equity,
        };
      case "week_end":
        return { kind: "week_end", time: e.time, index: e.index, week: e.key };
      case "month_end":
        return { kind: "month_end", time: e.time, index: e.index, month: e.key };
      case "run_end":
        return { kind: "run_end", time: e.time, index: e.index, equity: this.ctx.equity };
      case "bar":
      case "order_accepted":
      case "order_rejected":
      case "order_cancelled":
      case "order_expired":
        return null;
      default:
        return assertNever(e, "engine event");
    }
  }

  /** The bar's last hook (after the close and its events). */
  barEnd(index: number): Maybe {
    const s = this.strategy;
    return s.onBarEnd
      ? this.hook("bar_end", index, () => s.onBarEnd?.(this.ctx, this.state))
      : undefined;
  }

  private hook(kind: string, index: number, call: () => void | Promise<void>): Maybe {
    this.ctx.resetActivity();
    const r = call();
    if (r instanceof Promise) {
      this.lastHook = HOOK_NAMES[kind] ?? kind;
      return r.then(() => this.record(index, kind, this.ctx.resetActivity()));
    }
    this.record(index, kind, this.ctx.resetActivity());
    return undefined;
  }

  /** One decisions.jsonl line per decision or hook that did something (orders, memory, recall). */
  record(index: number, kind: string, a: ContextActivity): void {
    if (
      !a.orders.length &&
      !a.cancels.length &&
      !a.memory.length &&
      !a.recalls.length &&
      !a.details
    ) {
      return;
    }
    this.onDecision?.(index, kind, a);
    // The common decision (orders and cancels only) has no event of its own and is kept as
    // values, with no label; one with details, memory or recalls (an agent's, whose objects are
    // not ours to copy) is serialized now.
    if (a.details === null && !a.memory.length && !a.recalls.length) {
      if (this.records)
        pushDecision(this.decisionLog.open(this.decisionAt), index, kind, a.orders, a.cancels);
      return;
    }
    const time = this.label(index);
    for (const m of a.memory) {
      this.emit({ type: "memory_write", time, bar: index, ...m });
    }
    for (const r of a.recalls) {
      this.emit({
        type: "recall",
        time,
        bar: index,
        query: r.query,
        citations: r.citations.length,
      });
    }
    if (!this.records) return;
    const orders = a.orders.map(orderSummary);
    this.decisionLog.pushLine(
      JSON.stringify(
        decisionRecord(time, index, kind, a.details, orders, a.cancels, a.memory, a.recalls),
      ),
    );
  }
}

/** Empties the queue in place. Popping its one or two events costs a fifth of `length = 0` (a
 * runtime call that also drops the array's storage, to be made again by the next push). */
function empty(pending: EngineEvent[]): void {
  while (pending.length > 0) pending.pop();
}
