import type { Broker } from "../engine/broker.js";
import {
  clockKey,
  dayKey,
  isIntraday,
  isoWeekKey,
  monthKey,
  timeLabel,
} from "../engine/calendar.js";
import type {
  AccountSnapshot,
  Bar,
  MarketData,
  Order,
  OrderRequest,
  SymbolSeries,
} from "../engine/types.js";
import type { IndicatorName } from "../indicators/catalogue.js";
import { IndicatorCache } from "../indicators/indicator-cache.js";
import type { IndicatorUse } from "../indicators/indicator-use.js";
import { valuesUpTo } from "../indicators/read-values.js";
import { checkOrderRequest, orderForWeight, orderFromOptions } from "./order-options.js";
import { StrategyUsageError } from "./strategy-usage-error.js";
import type {
  Citation,
  IndicatorView,
  MemoryActivityRecord,
  MemoryHandle,
  MemoryPort,
  MemoryToolbox,
  OrderOptions,
  Params,
  StrategyContext,
} from "./types.js";

export { StrategyUsageError };

/** What an order or memory call did during one decision: the runner records it. */
export interface ContextActivity {
  orders: Order[];
  cancels: number[];
  memory: { tool: string; key?: string; chars: number }[];
  recalls: { query: string; citations: Citation[]; seq: number }[];
  /** Extra fields for this decision's decisions.jsonl line (an agent's tool calls, tokens...). */
  details: Record<string, unknown> | null;
}

/** A strategy reads these on every bar (the SMA crossover four times): kept small (two loads, one
 * comparison) so that the optimizer inlines them where its budget allows; a number returned by a
 * call that is not inlined is boxed, one allocation per read. */
class LiveIndicator implements IndicatorView {
  constructor(
    /** The context's index, per symbol, of the latest bar (its `symbolBar`), read in place. */
    private readonly lastBar: Int32Array,
    private readonly sym: number,
    private readonly values: Float64Array,
  ) {}
  get value(): number | null {
    const v = this.values[this.lastBar[this.sym] as number] as number;
    // One comparison, false for NaN and for undefined (no bar yet): null then.
    return v <= Infinity ? v : null;
  }
  at(ago: number): number | null {
    const i = (this.lastBar[this.sym] as number) - ago;
    if (i < 0 || ago < 0) return null;
    const v = this.values[i] as number;
    return v <= Infinity ? v : null;
  }
}

/** An `indicator` call's arguments, as a resumed run makes its view again. */
export interface IndicatorSpec {
  name: string;
  params: Record<string, number>;
  symbol: string | null;
  output: string | null;
}

/**
 * The one context object of a run, advanced bar by bar (reused, so the hot path allocates nothing).
 * It reads only bars at or before the current index, which is what keeps strategies causal.
 */
export class BacktestContext implements StrategyContext {
  index = -1;
  time = 0;
  readonly symbols: readonly string[];
  readonly symbol: string;
  private readonly lastBar: Int32Array;
  private readonly intraday: boolean;
  private readonly usedIndicators = new Map<string, IndicatorUse>();
  activity: ContextActivity = emptyActivity();
  /** How each view of `indicator` was asked for: a resume asks for it again (the view itself holds
   * arrays of the whole run, never saved). */
  private readonly viewSpecs = new WeakMap<object, IndicatorSpec>();

  constructor(
    private readonly data: MarketData,
    private readonly broker: Broker,
    readonly params: Readonly<Params>,
    private readonly filePort: MemoryPort | null,
    private readonly indicators: IndicatorCache = new IndicatorCache(),
    private readonly toolbox: MemoryToolbox | null = null,
  ) {
    this.symbols = data.symbols;
    this.symbol = data.symbols[0] ?? "";
    this.lastBar = new Int32Array(data.symbols.length).fill(-1);
    this.intraday = isIntraday(data.times);
    this.memory = {
      system: toolbox?.system ?? "none",
      tools: toolbox?.tools ?? [],
      use: (tool, args = {}) => this.useMemoryTool(tool, args),
    };
  }

  /** Moves to master bar `i`. */
  advance(i: number): void {
    this.index = i;
    this.time = this.data.times[i] ?? 0;
    const map = this.data.barIndex;
    for (let s = 0; s < map.length; s++) {
      const bi = (map[s] as Int32Array)[i] as number;
      if (bi >= 0) this.lastBar[s] = bi;
    }
  }

  /** Starts recording what the strategy does in one decision. */
  resetActivity(): ContextActivity {
    const a = this.activity;
    // Most bars do nothing: keep the empty record instead of allocating a new one.
    if (a.orders.length || a.cancels.length || a.memory.length || a.recalls.length || a.details) {
      this.activity = emptyActivity();
    }
    return a;
  }

  /** Set by `stop`: the loop ends the run before the next bar. */
  stopRequest: { status: "budget_exhausted" | "stopped" | "interrupted"; reason: string } | null =
    null;

  stop(status: "budget_exhausted" | "stopped" | "interrupted", reason: string): void {
    this.stopRequest ??= { status, reason };
  }

  get stopRequested(): boolean {
    return this.stopRequest !== null;
  }

  annotate(details: Record<string, unknown>): void {
    this.activity.details = { ...(this.activity.details ?? {}), ...details };
  }

  /** Index into a symbol's own series of its latest bar at or before now (-1 if none yet). */
  symbolBar(sym: number): number {
    return this.lastBar[sym] as number;
  }

  get timeLabel(): string {
    return this.intraday ? `${dayKey(this.time)} ${clockKey(this.time)}` : dayKey(this.time);
  }

  private sym(symbol: string | undefined): number {
    if (symbol === undefined) return 0;
    const s = this.data.symbols.indexOf(symbol);
    if (s < 0) {
      throw new StrategyUsageError(
        `Unknown symbol ${JSON.stringify(symbol)}. This run has: ${this.data.symbols.join(", ")}.`,
      );
    }
    return s;
  }

  private series(s: number): SymbolSeries {
    return this.data.series[s] as SymbolSeries;
  }

  bar(symbol?: string): Bar | null {
    const s = this.sym(symbol);
    const bi = (this.data.barIndex[s] as Int32Array)[this.index] as number;
    return bi < 0 ? null : barAt(this.series(s), bi);
  }

  bars(n: number, symbol?: string): Bar[] {
    const s = this.sym(symbol);
    const last = this.symbolBar(s);
    const out: Bar[] = [];
    for (let i = Math.max(0, last - Math.max(0, Math.floor(n)) + 1); i <= last; i++) {
      out.push(barAt(this.series(s), i));
    }
    return out;
  }

  close(ago = 0, symbol?: string): number | null {
    const s = this.sym(symbol);
    const i = this.symbolBar(s) - ago;
    return i < 0 || ago < 0 ? null : (this.series(s).close[i] as number);
  }

  barCount(symbol?: string): number {
    return this.symbolBar(this.sym(symbol)) + 1;
  }

  indicator(
    name: string,
    params: Record<string, number> = {},
    options: { symbol?: string; output?: string } = {},
  ): IndicatorView {
    const s = this.sym(options.symbol);
    const result = this.indicators.get(this.series(s), name as IndicatorName, params);
    const keys = Object.keys(result.outputs);
    const key = options.output ?? (keys.includes("value") ? "value" : keys[0]);
    const values = key === undefined ? undefined : result.outputs[key];
    if (!values) {
      throw new StrategyUsageError(
        `Indicator ${name} has no output ${JSON.stringify(options.output)}; it has: ${keys.join(", ")}.`,
      );
    }
    const use = {
      symbol: this.series(s).symbol,
      name: result.name,
      params: result.params,
      output: key as string,
    };
    const id = JSON.stringify(use);
    if (!this.usedIndicators.has(id)) this.usedIndicators.set(id, use);
    const view = new LiveIndicator(this.lastBar, s, values);
    this.viewSpecs.set(view, {
      name,
      params: { ...params },
      symbol: options.symbol ?? null,
      output: options.output ?? null,
    });
    return view;
  }

  /** How a view made by `indicator` was asked for, or undefined for any other value. */
  indicatorSpecOf(value: object): IndicatorSpec | undefined {
    return this.viewSpecs.get(value);
  }

  /** Every indicator created through `indicator()`, once each, in the order first created. */
  indicatorsUsed(): IndicatorUse[] {
    return [...this.usedIndicators.values()];
  }

  /** A resume's list of the indicators created before its checkpoint, as they were recorded. */
  restoreIndicatorsUsed(uses: readonly IndicatorUse[]): void {
    this.usedIndicators.clear();
    for (const use of uses) this.usedIndicators.set(JSON.stringify(use), use);
  }

  indicatorValues(
    name: string,
    params: Record<string, number>,
    n: number,
    symbol?: string,
  ): {
    name: string;
    params: Record<string, number>;
    times: string[];
    values: Record<string, (number | null)[]>;
  } {
    const s = this.sym(symbol);
    const series = this.series(s);
    const result = this.indicators.get(series, name as IndicatorName, params);
    const last = this.symbolBar(s);
    if (last < 0) return { name: result.name, params: result.params, times: [], values: {} };
    const values = valuesUpTo(result, last, n);
    const first = Math.max(0, last - Math.max(1, Math.floor(n)) + 1);
    const times: string[] = [];
    for (let i = first; i <= last; i++)
      times.push(timeLabel(series.time[i] as number, this.intraday));
    return { name: result.name, params: result.params, times, values };
  }

  account(): AccountSnapshot {
    return this.broker.account();
  }

  position(symbol?: string): number {
    return this.broker.portfolio.qty[this.sym(symbol)] as number;
  }

  get cash(): number {
    return this.broker.portfolio.cash;
  }

  get equity(): number {
    return this.broker.portfolio.equity();
  }

  orders(): readonly Order[] {
    return this.broker.workingOrders();
  }

  order(request: OrderRequest): Order {
    return this.submit(checkOrderRequest(request, this.broker.config));
  }

  buy(options?: OrderOptions): Order {
    return this.submit(orderFromOptions("buy", options, this.symbol, this.broker.config), true);
  }

  sell(options?: OrderOptions): Order {
    return this.submit(orderFromOptions("sell", options, this.symbol, this.broker.config), true);
  }

  targetWeight(weight: number, symbol?: string): Order {
    const sym = symbol ?? this.symbol;
    return this.submit(orderForWeight(weight, sym, this.broker.config), true);
  }

  closePosition(symbol?: string): Order {
    return this.targetWeight(0, symbol);
  }

  /** Submits a request already checked for shape; the broker decides the rest. `owned`: made by
   * order-options for this order (its size and tif frozen), not the strategy's own object. */
  private submit(request: OrderRequest, owned = false): Order {
    this.sym(request.symbol);
    const order = this.broker.submit(request, this.index, owned);
    this.activity.orders.push(order);
    return order;
  }

  cancel(orderId: number): boolean {
    const ok = this.broker.cancel(orderId, this.index);
    if (ok) this.activity.cancels.push(orderId);
    return ok;
  }

  /** Built once: the handle is the same object at every bar. */
  readonly memory: MemoryHandle;

  private useMemoryTool(tool: string, args: Record<string, unknown>): unknown {
    if (!this.toolbox)
      throw new StrategyUsageError(
        "ctx.memory.use() needs a memory system, which only a run with a run directory has: run the strategy with runBacktest() or `agenticbt run` (backtest() gives ctx.log, ctx.note and ctx.recall only).",
      );
    // The activity record belongs to the decision that asked, even if the answer arrives later.
    const activity = this.activity;
    const out = this.toolbox.call(tool, args, {
      time: this.time,
      index: this.index,
      label: this.timeLabel,
    });
    if (out instanceof Promise) {
      return out.then((o) => {
        recordMemory(activity, o.record);
        return o.result;
      });
    }
    recordMemory(activity, out.record);
    return out.result;
  }

  private requireMemory(): MemoryPort {
    if (!this.filePort) throw new StrategyUsageError("Memory is not available in this run.");
    return this.filePort;
  }

  log(content: string): void {
    this.requireMemory().log(content, this.time);
    this.activity.memory.push({ tool: "log", chars: content.length });
  }

  note(key: string, content: string): void {
    this.requireMemory().note(key, content, this.time);
    this.activity.memory.push({ tool: "note", key, chars: content.length });
  }

  readNote(key: string): string | null {
    return this.requireMemory().readNote(key);
  }

  review(period: "week" | "month", content: string): void {
    const key = period === "week" ? isoWeekKey(this.time) : monthKey(this.time);
    this.requireMemory().review(period, key, content, this.time);
    this.activity.memory.push({ tool: "review", key: `${period}_${key}`, chars: content.length });
  }

  recall(query: string, limit = 5): Citation[] {
    const { citations, seq } = this.requireMemory().recall(query, limit, this.time);
    this.activity.recalls.push({ query, citations, seq });
    return citations;
  }

  async recallAsync(query: string, limit = 5): Promise<Citation[]> {
    // The activity record belongs to the decision that asked, even if the answer arrives later.
    const activity = this.activity;
    const { citations, seq } = await this.requireMemory().recallAsync(query, limit, this.time);
    activity.recalls.push({ query, citations, seq });
    return citations;
  }
}

function recordMemory(activity: ContextActivity, record: MemoryActivityRecord | undefined): void {
  if (record?.memory) activity.memory.push(record.memory);
  if (record?.recall) {
    const { query, citations, seq } = record.recall;
    activity.recalls.push({ query, citations, seq });
  }
}

function emptyActivity(): ContextActivity {
  return { orders: [], cancels: [], memory: [], recalls: [], details: null };
}

function barAt(s: SymbolSeries, i: number): Bar {
  return {
    time: s.time[i] as number,
    open: s.open[i] as number,
    high: s.high[i] as number,
    low: s.low[i] as number,
    close: s.close[i] as number,
    volume: s.volume[i] as number,
  };
}
