import type {
  AccountSnapshot,
  Bar,
  ClosedTrade,
  Fill,
  Order,
  OrderRequest,
} from "../../engine/types.js";
import type {
  Citation,
  IndicatorView,
  OrderOptions,
  OrderUpdate,
  StrategyContext,
} from "../../strategy/types.js";
import type { Anonymizer } from "./anonymizer.js";

/**
 * Indicator outputs in price units (scaled with the prices). Every other output is a ratio, an
 * oscillator or a volume (rsi, roc, stoch, adx, cci, willr, obv): the same on rebased prices.
 */
const PRICE_OUTPUTS: Readonly<Record<string, readonly string[]>> = {
  sma: ["value"],
  ema: ["value"],
  wma: ["value"],
  macd: ["macd", "signal", "histogram"],
  bbands: ["upper", "middle", "lower"],
  atr: ["value"],
  highest: ["value"],
  lowest: ["value"],
};

export const isPriceOutput = (indicator: string, output: string): boolean =>
  PRICE_OUTPUTS[indicator.trim().toLowerCase()]?.includes(output) ?? false;

/**
 * The strategy context as an anonymized model sees it (see Anonymizer): every value that comes
 * out is translated to the anonymized world, every symbol and price that goes in is translated
 * back, and every error message is rewritten. The real context does the work, so the backtest is
 * the real one.
 */
export class AnonymizedContext implements StrategyContext {
  constructor(
    private readonly real: StrategyContext,
    private readonly a: Anonymizer,
  ) {}

  get index() {
    return this.real.index;
  }
  get time() {
    return this.a.time(this.real.time);
  }
  get timeLabel() {
    return this.a.label(this.real.time);
  }
  get symbols() {
    return this.real.symbols.map((s) => this.a.symbol(s));
  }
  get symbol() {
    return this.a.symbol(this.real.symbol);
  }
  get params() {
    return this.real.params;
  }
  get cash() {
    return this.a.money(this.real.cash);
  }
  get equity() {
    return this.a.money(this.real.equity);
  }
  get stopRequested() {
    return this.real.stopRequested;
  }
  /** The memory system as is: it keeps the model's own (anonymized) words, on the shifted clock
   * the runner gave it (`barTimes`), so nothing real comes out of it. */
  get memory() {
    return this.real.memory;
  }

  private sym(name: string | undefined): string | undefined {
    return name === undefined ? undefined : this.a.realSymbol(name);
  }

  /** Runs `fn`, rewriting the message of anything it throws (keeping `fatal`). */
  private guard<T>(fn: () => T): T {
    try {
      return fn();
    } catch (error) {
      throw this.rewrite(error);
    }
  }

  private rewrite(error: unknown): unknown {
    if (!(error instanceof Error)) return error;
    const out = new Error(this.a.text(error.message, { money: true }));
    if ("fatal" in error) Object.assign(out, { fatal: error.fatal });
    return out;
  }

  bar(symbol?: string): Bar | null {
    const real = this.sym(symbol) ?? this.real.symbol;
    const b = this.guard(() => this.real.bar(real));
    return b && this.mapBar(real, b);
  }

  bars(n: number, symbol?: string): Bar[] {
    const real = this.sym(symbol) ?? this.real.symbol;
    return this.guard(() => this.real.bars(n, real)).map((b) => this.mapBar(real, b));
  }

  close(ago?: number, symbol?: string): number | null {
    const real = this.sym(symbol) ?? this.real.symbol;
    const c = this.guard(() => this.real.close(ago, real));
    return c === null ? null : this.a.price(real, c);
  }

  barCount(symbol?: string): number {
    return this.guard(() => this.real.barCount(this.sym(symbol)));
  }

  indicator(
    name: string,
    params?: Record<string, number>,
    options?: { symbol?: string; output?: string },
  ): IndicatorView {
    const real = this.sym(options?.symbol) ?? this.real.symbol;
    const view = this.guard(() => this.real.indicator(name, params, { ...options, symbol: real }));
    const scale = isPriceOutput(name, options?.output ?? "value") ? this.a.factor(real) : 1;
    return {
      get value() {
        const v = view.value;
        return v === null ? null : v * scale;
      },
      at(ago: number) {
        const v = view.at(ago);
        return v === null ? null : v * scale;
      },
    };
  }

  indicatorValues(name: string, params: Record<string, number>, n: number, symbol?: string) {
    const real = this.sym(symbol) ?? this.real.symbol;
    const r = this.guard(() => this.real.indicatorValues(name, params, n, real));
    const values: Record<string, (number | null)[]> = {};
    for (const [output, series] of Object.entries(r.values)) {
      const k = isPriceOutput(r.name, output) ? this.a.factor(real) : 1;
      values[output] = series.map((v) => (v === null ? null : v * k));
    }
    return { ...r, times: r.times.map((t) => this.a.text(t)), values };
  }

  account(): AccountSnapshot {
    const acc = this.real.account();
    return {
      cash: this.a.money(acc.cash),
      equity: this.a.money(acc.equity),
      grossExposure: this.a.money(acc.grossExposure),
      positions: acc.positions.map((p) => ({
        symbol: this.a.symbol(p.symbol),
        qty: p.qty,
        avgPrice: this.a.price(p.symbol, p.avgPrice),
        lastPrice: this.a.price(p.symbol, p.lastPrice),
      })),
    };
  }

  position(symbol?: string): number {
    return this.guard(() => this.real.position(this.sym(symbol)));
  }

  orders(): readonly Order[] {
    return this.real.orders().map((o) => this.mapOrder(o));
  }

  order(request: OrderRequest): Order {
    const real = this.a.realSymbol(request.symbol);
    const back = (p: number | undefined) =>
      p === undefined ? undefined : this.a.realPrice(real, p);
    const r: OrderRequest = { ...request, symbol: real };
    setOptional(r, "limitPrice", back(request.limitPrice));
    setOptional(r, "stopPrice", back(request.stopPrice));
    setOptional(r, "stopLoss", back(request.stopLoss));
    setOptional(r, "takeProfit", back(request.takeProfit));
    return this.mapOrder(this.guard(() => this.real.order(r)));
  }

  private options(o: OrderOptions): OrderOptions {
    const real = this.sym(o.symbol) ?? this.real.symbol;
    const back = (p: number | undefined) =>
      p === undefined ? undefined : this.a.realPrice(real, p);
    const out: OrderOptions = { ...o, symbol: real };
    setOptional(out, "limit", back(o.limit));
    setOptional(out, "stop", back(o.stop));
    setOptional(out, "stopLoss", back(o.stopLoss));
    setOptional(out, "takeProfit", back(o.takeProfit));
    return out;
  }

  buy(options: OrderOptions): Order {
    return this.mapOrder(this.guard(() => this.real.buy(this.options(options))));
  }

  sell(options: OrderOptions): Order {
    return this.mapOrder(this.guard(() => this.real.sell(this.options(options))));
  }

  targetWeight(weight: number, symbol?: string): Order {
    return this.mapOrder(this.guard(() => this.real.targetWeight(weight, this.sym(symbol))));
  }

  closePosition(symbol?: string): Order {
    return this.mapOrder(this.guard(() => this.real.closePosition(this.sym(symbol))));
  }

  cancel(orderId: number): boolean {
    return this.guard(() => this.real.cancel(orderId));
  }

  log(content: string): void {
    this.guard(() => this.real.log(content));
  }

  note(key: string, content: string): void {
    this.guard(() => this.real.note(key, content));
  }

  readNote(key: string): string | null {
    const text = this.guard(() => this.real.readNote(key));
    return text === null ? null : this.a.tickers(text);
  }

  review(period: "week" | "month", content: string): void {
    this.guard(() => this.real.review(period, content));
  }

  recall(query: string, limit?: number): Citation[] {
    return this.guard(() => this.real.recall(query, limit)).map((c) => this.mapCitation(c));
  }

  async recallAsync(query: string, limit?: number): Promise<Citation[]> {
    try {
      const found = await this.real.recallAsync(query, limit);
      return found.map((c) => this.mapCitation(c));
    } catch (error) {
      throw this.rewrite(error);
    }
  }

  stop(status: "budget_exhausted" | "stopped" | "interrupted", reason: string): void {
    this.real.stop(status, reason);
  }

  annotate(details: Record<string, unknown>): void {
    this.real.annotate(details);
  }

  private mapCitation(c: Citation): Citation {
    // Memory written during the run is already anonymized (the model wrote it, stamped with
    // shifted times); text seeded from outside (--preset, --memory-from) may hold real tickers.
    return { ...c, snippet: this.a.tickers(c.snippet) };
  }

  private mapBar(real: string, b: Bar): Bar {
    const k = this.a.factor(real);
    return {
      time: this.a.time(b.time),
      open: b.open * k,
      high: b.high * k,
      low: b.low * k,
      close: b.close * k,
      volume: b.volume,
    };
  }

  mapOrder(o: Readonly<Order>): Order {
    const p = (x: number | null) => (x === null ? null : this.a.price(o.symbol, x));
    return {
      ...o,
      symbol: this.a.symbol(o.symbol),
      limitPrice: p(o.limitPrice),
      stopPrice: p(o.stopPrice),
      stopLoss: p(o.stopLoss),
      takeProfit: p(o.takeProfit),
      submittedTime: this.a.time(o.submittedTime),
      avgFillPrice: this.a.price(o.symbol, o.avgFillPrice),
      dayKey: o.dayKey === null ? null : this.a.text(o.dayKey),
      reason: o.reason === null ? null : this.a.text(o.reason, { money: true }),
    };
  }

  mapFill(f: Fill): Fill {
    return {
      ...f,
      symbol: this.a.symbol(f.symbol),
      price: this.a.price(f.symbol, f.price),
      rawPrice: this.a.price(f.symbol, f.rawPrice),
      commission: this.a.money(f.commission),
      slippage: this.a.money(f.slippage),
      time: this.a.time(f.time),
    };
  }

  mapTrade(t: ClosedTrade): ClosedTrade {
    return {
      ...t,
      symbol: this.a.symbol(t.symbol),
      entryPrice: this.a.price(t.symbol, t.entryPrice),
      exitPrice: this.a.price(t.symbol, t.exitPrice),
      entryTime: this.a.time(t.entryTime),
      exitTime: this.a.time(t.exitTime),
      pnl: this.a.money(t.pnl),
      commission: this.a.money(t.commission),
      slippage: this.a.money(t.slippage),
    };
  }

  mapUpdate(u: OrderUpdate): OrderUpdate {
    return {
      kind: u.kind,
      order: this.mapOrder(u.order),
      reason: this.a.text(u.reason, { money: true }),
    };
  }
}

/** Sets `key` when `value` is defined, and removes it otherwise (exactOptionalPropertyTypes). */
function setOptional<T extends object, K extends keyof T>(
  target: T,
  key: K,
  value: T[K] | undefined,
) {
  if (value === undefined) delete target[key];
  else target[key] = value;
}
