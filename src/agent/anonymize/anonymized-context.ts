import type {
  AccountSnapshot,
  Bar,
  ClosedTrade,
  Fill,
  Order,
  OrderRequest,
  OrderSize,
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
 * Indicator outputs in price units (scaled with the prices) and in volume units (obv, scaled with
 * the volumes). Every other output is a ratio or an oscillator (rsi, roc, stoch, adx, cci, willr):
 * the same on scaled prices.
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
const VOLUME_OUTPUTS: Readonly<Record<string, readonly string[]>> = { obv: ["value"] };

export const isPriceOutput = (indicator: string, output: string): boolean =>
  PRICE_OUTPUTS[indicator.trim().toLowerCase()]?.includes(output) ?? false;

const isVolumeOutput = (indicator: string, output: string): boolean =>
  VOLUME_OUTPUTS[indicator.trim().toLowerCase()]?.includes(output) ?? false;

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
    const shown = this.indicatorScale(name, options?.output ?? "value", real);
    return {
      get value() {
        const v = view.value;
        return v === null ? null : shown(v);
      },
      at(ago: number) {
        const v = view.at(ago);
        return v === null ? null : shown(v);
      },
    };
  }

  indicatorValues(name: string, params: Record<string, number>, n: number, symbol?: string) {
    const real = this.sym(symbol) ?? this.real.symbol;
    const r = this.guard(() => this.real.indicatorValues(name, params, n, real));
    const values: Record<string, (number | null)[]> = {};
    for (const [output, series] of Object.entries(r.values)) {
      const shown = this.indicatorScale(r.name, output, real);
      values[output] = series.map((v) => (v === null ? null : shown(v)));
    }
    return { ...r, times: r.times.map((t) => this.a.text(t)), values };
  }

  /** How an indicator output is shown: as a price, as a volume, or as is (a ratio). */
  private indicatorScale(name: string, output: string, real: string): (v: number) => number {
    if (isPriceOutput(name, output)) return (v) => this.a.priceLike(real, v);
    if (isVolumeOutput(name, output)) return (v) => this.a.volume(real, v);
    return (v) => v;
  }

  account(): AccountSnapshot {
    const acc = this.real.account();
    return {
      cash: this.a.money(acc.cash),
      equity: this.a.money(acc.equity),
      grossExposure: this.a.money(acc.grossExposure),
      positions: acc.positions.map((p) => ({
        symbol: this.a.symbol(p.symbol),
        qty: this.a.quantity(p.symbol, p.qty),
        avgPrice: this.a.price(p.symbol, p.avgPrice),
        lastPrice: this.a.price(p.symbol, p.lastPrice),
      })),
    };
  }

  position(symbol?: string): number {
    const real = this.sym(symbol) ?? this.real.symbol;
    return this.a.quantity(
      real,
      this.guard(() => this.real.position(real)),
    );
  }

  orders(): readonly Order[] {
    return this.real.orders().map((o) => this.mapOrder(o));
  }

  order(request: OrderRequest): Order {
    const real = this.a.realSymbol(request.symbol);
    const back = (p: number | undefined) =>
      p === undefined ? undefined : this.a.realPrice(real, p);
    const r: OrderRequest = { ...request, symbol: real, size: this.realSize(real, request.size) };
    setOptional(r, "limitPrice", back(request.limitPrice));
    setOptional(r, "stopPrice", back(request.stopPrice));
    setOptional(r, "stopLoss", back(request.stopLoss));
    setOptional(r, "takeProfit", back(request.takeProfit));
    const order = this.mapOrder(this.guard(() => this.real.order(r)));
    if (order.status === "rejected" && r.size.kind === "qty" && r.size.qty === 0) {
      order.reason =
        "the quantity rounds to less than the smallest tradable amount: use a larger one";
    }
    return order;
  }

  /** An order size in real units: a quantity is converted back and rounded; the rest are ratios. */
  private realSize(real: string, size: OrderSize): OrderSize {
    if (size.kind !== "qty") return size;
    return { kind: "qty", qty: this.unitsOf(real, size.qty, this.held(real)) };
  }

  /**
   * The real units of a quantity the model sent, rounded to the broker's step. A quantity that is
   * what is held (as shown, to display precision) is exactly what is held, so that selling the
   * shown position closes it without a remainder.
   */
  private unitsOf(real: string, shown: number, held: number): number {
    if (held !== 0 && shown === Math.abs(this.a.quantity(real, held))) return Math.abs(held);
    return this.a.realQuantity(real, shown);
  }

  /** The real position in a symbol; 0 for a name the context does not know (refused later). */
  private held(real: string): number {
    try {
      return this.real.position(real);
    } catch {
      return 0;
    }
  }

  private options(o: OrderOptions): OrderOptions {
    const real = this.sym(o.symbol) ?? this.real.symbol;
    const back = (p: number | undefined) =>
      p === undefined ? undefined : this.a.realPrice(real, p);
    const out: OrderOptions = { ...o, symbol: real };
    setOptional(
      out,
      "qty",
      o.qty === undefined ? undefined : this.unitsOf(real, o.qty, this.held(real)),
    );
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
    return {
      time: this.a.time(b.time),
      open: this.a.price(real, b.open),
      high: this.a.price(real, b.high),
      low: this.a.price(real, b.low),
      close: this.a.price(real, b.close),
      volume: this.a.volume(real, b.volume),
    };
  }

  mapOrder(o: Readonly<Order>): Order {
    const p = (x: number | null) => (x === null ? null : this.a.price(o.symbol, x));
    const q = (x: number) => this.a.quantity(o.symbol, x);
    return {
      ...o,
      symbol: this.a.symbol(o.symbol),
      size: o.size.kind === "qty" ? { kind: "qty", qty: q(o.size.qty) } : o.size,
      remainingQty: o.remainingQty === null ? null : q(o.remainingQty),
      filledQty: q(o.filledQty),
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
      qty: this.a.quantity(f.symbol, f.qty),
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
      qty: this.a.quantity(t.symbol, t.qty),
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
