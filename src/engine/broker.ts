import { assertNever } from "../util/assert-never.js";
import type { BrokerConfig } from "./broker-config.js";
import { dayKey, isIntraday, timeLabel } from "./calendar.js";
import { lastBarIndices } from "./data-end.js";
import { brokerFees, type FeeModel, FeeModelError } from "./fee-model.js";
import { type BarPrices, DEFAULT_FILL_MODEL, type FillModel } from "./fill-model.js";
import { Portfolio, type PortfolioState } from "./portfolio.js";
import { checkRisk } from "./risk-check.js";
import {
  roundToStep,
  roundUnits,
  targetUnitsForBudget,
  unitStep,
  unitsForBudget,
} from "./sizing.js";
import type {
  AccountSnapshot,
  EngineEvent,
  MarketData,
  Order,
  OrderRequest,
  Position,
  Side,
  TimeInForce,
} from "./types.js";
import { validateOrderRequest } from "./validate-order.js";

const EPS = 1e-9;
/** Why a fraction or weight order that asks for a position is rejected when it rounds to none. */
const SIZES_TO_ZERO = "the order sizes to zero units at this price and equity";
/** Good till cancelled: the time in force of an order that names none (frozen, so every such
 * order may hold this one object). */
const GTC: TimeInForce = Object.freeze({ kind: "gtc" });

/** Book-keeping the public Order does not need to show. */
export interface Working {
  order: Order;
  sym: number;
  /** First master index at which the order may fill. */
  activeFrom: number;
  /** For bracket children activated inside a bar: the entry's raw fill price, used instead of the
   * open because the open happened before the entry. */
  sameBarReference: number;
  sameBarIndex: number;
  /** The part of that bar's range still ahead of the entry on the open → high → low → close path. */
  sameBarHigh: number;
  sameBarLow: number;
  /** The last bar at which the order was looked at (time in force counted), and the last bar at
   * which it could only fill after the open, so it waits for the second pass of that bar. */
  seenIndex: number;
  deferredIndex: number;
  /** The other bracket leg, if any. */
  sibling: Working | null;
  /** The bracket's children, once the entry has (partly) filled. */
  children: Working[] | null;
}

export type EventSink = (event: EngineEvent) => void;

/**
 * Everything a broker holds between bars (a resume restores it). The objects are the broker's
 * own, shared as they are (a working order's `order` is one of `orders`): the caller copies them
 * whole, keeping those references, before the next bar changes them.
 */
export interface BrokerState {
  orders: Order[];
  working: Working[];
  nextId: number;
  peakEquity: number;
  halted: boolean;
  haltReason: string | null;
  ended: Uint8Array | null;
  portfolio: PortfolioState;
}

/** The rules a run may swap: what a fill costs, and where and at what price an order fills. */
export interface EngineModels {
  /** Default: the config's commission rate and fixed fee (`brokerFees`). */
  fees?: FeeModel;
  /** Default: the rules of docs/fill-conventions.md (`DEFAULT_FILL_MODEL`). */
  fills?: FillModel;
}

/**
 * The simulated broker: validates orders, fills them bar by bar by the documented rules, keeps the
 * portfolio and reports everything as typed events. Pure and synchronous: same data and same
 * orders give bit-identical results.
 */
export class Broker {
  readonly portfolio: Portfolio;
  readonly orders: Order[] = [];
  private working: Working[] = [];
  private nextId = 1;
  private peakEquity: number;
  halted = false;
  haltReason: string | null = null;
  private readonly bar: BarPrices = { open: 0, high: 0, low: 0, close: 0 };
  /** Less than one tradable step (with a margin for floating-point noise): no position or order
   * remainder is ever left this small. */
  private readonly dust: number;
  /** Per symbol, the master index of its last bar, and 1 once its data-ended close has run. */
  private lastBars: Int32Array | null = null;
  private ended: Uint8Array | null = null;
  private readonly fees: FeeModel;
  private readonly fills: FillModel;

  constructor(
    readonly data: MarketData,
    readonly config: BrokerConfig,
    private readonly emit: EventSink | null = null,
    models: EngineModels = {},
  ) {
    this.fees = models.fees ?? brokerFees(config);
    this.fills = models.fills ?? DEFAULT_FILL_MODEL;
    this.portfolio = new Portfolio(data.symbols, config.initialCash);
    this.peakEquity = config.initialCash;
    this.dust = unitStep(config) * (1 - 1e-6);
  }

  /** The state between bars, by reference (see BrokerState). */
  exportState(): BrokerState {
    return {
      orders: this.orders,
      working: this.working,
      nextId: this.nextId,
      peakEquity: this.peakEquity,
      halted: this.halted,
      haltReason: this.haltReason,
      ended: this.ended,
      portfolio: this.portfolio.exportState(),
    };
  }

  /**
   * How many of `orders`, from the first, are final and referred to by no working order: they
   * never change again, so a checkpoint saves them once. (An order's id is its position + 1.)
   */
  settledCount(): number {
    let first = this.orders.length;
    for (const w of this.working) {
      first = Math.min(first, w.order.id - 1);
      if (w.sibling !== null) first = Math.min(first, w.sibling.order.id - 1);
      if (w.children !== null) for (const c of w.children) first = Math.min(first, c.order.id - 1);
    }
    return first;
  }

  /** Takes over a copy of an exported state, before any bar of this broker has run. */
  importState(s: BrokerState): void {
    if (this.orders.length || this.working.length) {
      throw new Error("a broker's state is imported before its first bar");
    }
    // Sizes and times in force are frozen objects of their order (see newOrder); a copy is not.
    for (const o of s.orders) {
      if (o.id !== this.orders.length + 1) {
        throw new Error(`a broker state holds order ${o.id} at position ${this.orders.length + 1}`);
      }
      Object.freeze(o.size);
      Object.freeze(o.tif);
      this.orders.push(o);
    }
    this.working = s.working;
    this.nextId = s.nextId;
    this.peakEquity = s.peakEquity;
    this.halted = s.halted;
    this.haltReason = s.haltReason;
    this.ended = s.ended;
    this.portfolio.importState(s.portfolio);
  }

  symbolIndex(symbol: string): number {
    return this.data.symbols.indexOf(symbol);
  }

  /** Accepts or rejects an order placed at the close of bar `index`. It may fill from the next bar
   * (or at this close for a market order under trade-on-close, see `fillAtClose`). `owned`: the
   * request was made for this one order and its size and tif are frozen objects (or tif absent),
   * so the order may hold them as they are (see `newOrder`). */
  submit(request: OrderRequest, index: number, owned = false): Order {
    const time = this.data.times[index] ?? 0;
    const sym = this.symbolIndex(request.symbol);
    const problem = validateOrderRequest(request, sym >= 0, this.config);
    const order = this.newOrder(request, index, null, owned);
    const reason =
      problem ??
      this.dataEndedReason(sym, index) ??
      (this.halted ? `trading halted: ${this.haltReason}` : null);
    if (reason !== null) {
      order.status = "rejected";
      order.reason = reason;
      this.emit?.({ type: "order_rejected", index, time, order, reason });
      return order;
    }
    this.working.push(working(order, sym, index + 1));
    this.emit?.({ type: "order_accepted", index, time, order });
    return order;
  }

  /** A new working order, recorded in `orders`. Children name their bracket entry as parent. The
   * order's size and tif are frozen objects of its own: records keep the order and read them when
   * a line is made. A strategy's request is copied (it may change its objects afterwards); an
   * `owned` one already holds frozen objects no one else changes (a frozen copy is a large share
   * of an order's path). */
  private newOrder(
    request: OrderRequest,
    index: number,
    parentId: number | null,
    owned: boolean,
  ): Order {
    const tif = request.tif;
    const order: Order = {
      id: this.nextId++,
      symbol: request.symbol,
      side: request.side ?? null,
      type: request.type ?? "market",
      size: owned ? request.size : Object.freeze({ ...request.size }),
      limitPrice: request.limitPrice ?? null,
      stopPrice: request.stopPrice ?? null,
      tif: tif == null ? GTC : owned ? tif : Object.freeze({ ...tif }),
      stopLoss: request.stopLoss ?? null,
      takeProfit: request.takeProfit ?? null,
      tag: request.tag ?? null,
      submittedIndex: index,
      submittedTime: this.data.times[index] ?? 0,
      parentId,
      ocoId: null,
      status: "working",
      remainingQty: request.size.kind === "qty" ? request.size.qty : null,
      filledQty: 0,
      avgFillPrice: 0,
      barsWorked: 0,
      dayKey: null,
      reason: null,
      fixedFeeCharged: false,
    };
    this.orders.push(order);
    return order;
  }

  cancel(orderId: number, index: number, reason = "cancelled by the strategy"): boolean {
    const w = this.working.find((x) => x.order.id === orderId);
    if (!w) return false;
    this.finish(w, "cancelled", reason, index);
    return true;
  }

  /** Whether any order is working (cheaper than `workingOrders().length`: no copy). */
  get hasWorkingOrders(): boolean {
    return this.working.length > 0;
  }

  workingOrders(): readonly Order[] {
    return this.working.map((w) => w.order);
  }

  /** Processes working orders against bar `index`, then marks at the close. Orders due at the
   * open (market orders, and stops or limits the bar opened through) fill first, in submission
   * order; then, in submission order, those that fill later in the bar (path open → high → low →
   * close). */
  processBar(index: number): void {
    if (this.working.length > 0) {
      this.fillPass(index, true);
      this.fillPass(index, false);
      this.compact();
    }
    this.markToClose(index);
  }

  private fillPass(index: number, atOpen: boolean): void {
    const { barIndex, series } = this.data;
    // Children activated during a pass are appended and seen in the same pass.
    for (let k = 0; k < this.working.length; k++) {
      const w = this.working[k] as Working;
      if (w.order.status !== "working" || w.activeFrom > index) continue;
      const firstLook = w.seenIndex !== index;
      if (!atOpen && !firstLook && w.deferredIndex !== index) {
        // Done with this bar at the open (filled there, partly, or not reached).
        this.expireBars(w, index);
        continue;
      }
      const bi = (barIndex[w.sym] as Int32Array)[index] as number;
      if (bi < 0) continue;
      const s = series[w.sym];
      if (!s) continue;
      this.bar.open = s.open[bi] as number;
      this.bar.high = s.high[bi] as number;
      this.bar.low = s.low[bi] as number;
      this.bar.close = s.close[bi] as number;
      if (firstLook) {
        w.seenIndex = index;
        if (this.expired(w, index)) continue;
      }
      let reference = this.bar.open;
      if (w.sameBarIndex === index) {
        reference = w.sameBarReference;
        this.bar.high = w.sameBarHigh;
        this.bar.low = w.sameBarLow;
      }
      this.tryFill(w, index, reference, bi, atOpen ? "open" : "intrabar");
      if (!atOpen) this.expireBars(w, index);
    }
  }

  /** A `bars` order that had its last chance in this bar expires now, not at the next one. */
  private expireBars(w: Working, index: number): void {
    const tif = w.order.tif;
    if (w.order.status === "working" && tif.kind === "bars" && w.order.barsWorked >= tif.bars) {
      this.finish(w, "expired", `time in force: ${tif.bars} bar(s) elapsed`, index);
    }
  }

  /** Under trade-on-close, market orders placed at this bar's close fill at that close. */
  fillAtClose(index: number): void {
    if (!this.config.tradeOnClose) return;
    let any = false;
    for (let k = 0; k < this.working.length; k++) {
      const w = this.working[k] as Working;
      const o = w.order;
      if (o.status !== "working" || o.type !== "market" || o.submittedIndex !== index) continue;
      const bi = (this.data.barIndex[w.sym] as Int32Array)[index] as number;
      if (bi < 0) continue;
      const close = (this.data.series[w.sym] as { close: Float64Array }).close[bi] as number;
      this.bar.open = close;
      this.bar.high = close;
      this.bar.low = close;
      this.bar.close = close;
      this.tryFill(w, index, close, bi, "close");
      any = true;
    }
    if (any) this.compact();
  }

  /** At the last bar of a trading day: DAY orders that could fill today expire now. */
  expireDayOrders(index: number): void {
    let any = false;
    for (const w of this.working) {
      if (w.order.status === "working" && w.order.tif.kind === "day" && w.order.dayKey !== null) {
        this.finish(w, "expired", "time in force: the trading day ended", index);
        any = true;
      }
    }
    if (any) this.compact();
  }

  /** Updates last prices to the closes of bar `index`. */
  markToClose(index: number): void {
    const { barIndex, series } = this.data;
    const last = this.portfolio.lastPrice;
    for (let s = 0; s < series.length; s++) {
      const bi = (barIndex[s] as Int32Array)[index] as number;
      if (bi >= 0) last[s] = (series[s] as { close: Float64Array }).close[bi] as number;
    }
  }

  /**
   * At the close of a symbol's last bar, when the timeline goes on without it: its working orders
   * are cancelled and its position is closed by a market order filled at that close (slippage and
   * commission as for any market fill), its trades flagged `data_ended`. Runs after the bar's
   * trade-on-close fills and before its equity is recorded, so no later bar values it at a stale
   * price; from then on, orders for the symbol are rejected.
   */
  closeEndedSymbol(sym: number, index: number): void {
    this.ended ??= new Uint8Array(this.data.symbols.length);
    this.ended[sym] = 1;
    const reason = this.dataEndedReason(sym, index) as string;
    let any = false;
    for (const w of this.working) {
      if (w.sym !== sym || w.order.status !== "working") continue;
      this.finish(w, "cancelled", reason, index);
      any = true;
    }
    if (any) this.compact();
    const held = this.portfolio.qty[sym] as number;
    if (held === 0) return;
    const s = this.data.series[sym] as { close: Float64Array; length: number };
    const close = s.close[s.length - 1] as number;
    const side: Side = held > 0 ? "sell" : "buy";
    const qty = Math.abs(held);
    const symbol = this.data.symbols[sym] as string;
    const order = this.newOrder(
      { symbol, side, size: Object.freeze({ kind: "qty", qty }), tag: "data_ended" },
      index,
      null,
      true,
    );
    const time = this.data.times[index] ?? 0;
    this.emit?.({ type: "order_accepted", index, time, order });
    const price = this.fills.slip(close, side, "market", this.config);
    const commission = this.commission(order, qty, price, true);
    const w = working(order, sym, index);
    this.executeFill(w, side, qty, price, close, commission, index, "data_ended", "data_ended");
  }

  /** Why an order for `sym` placed at `index` can never fill: its data has ended (null if not). */
  private dataEndedReason(sym: number, index: number): string | null {
    if (sym < 0) return null;
    this.lastBars ??= lastBarIndices(this.data);
    const last = this.lastBars[sym] as number;
    if (index <= last && this.ended?.[sym] !== 1) return null;
    const symbol = this.data.symbols[sym] as string;
    const s = this.data.series[sym] as { time: Float64Array; length: number };
    const when =
      s.length > 0
        ? `ended on ${timeLabel(s.time[s.length - 1] as number, isIntraday(this.data.times))}`
        : "is empty";
    return `the data of ${symbol} ${when}: no bar left to fill on (its position is closed at that close, data_ended)`;
  }

  /** Checks the drawdown halt after the bar's equity is final. */
  checkHalt(index: number, equity: number): void {
    if (equity > this.peakEquity) this.peakEquity = equity;
    const limit = this.config.risk.haltDrawdown;
    if (limit === null || this.halted) return;
    const dd = 1 - equity / this.peakEquity;
    if (dd < limit) return;
    this.halted = true;
    this.haltReason = `drawdown ${(dd * 100).toFixed(2)}% reached the ${(limit * 100).toFixed(2)}% limit`;
    for (const w of [...this.working])
      this.finish(w, "cancelled", `trading halted: ${this.haltReason}`, index);
    this.compact();
    // Flatten at the next open: these orders bypass the halt because they only reduce risk.
    for (let s = 0; s < this.data.symbols.length; s++) {
      if ((this.portfolio.qty[s] as number) === 0) continue;
      const order = this.submitUnchecked(s, index, "halt: flatten");
      this.emit?.({ type: "order_accepted", index, time: this.data.times[index] ?? 0, order });
    }
  }

  account(): AccountSnapshot {
    const positions: Position[] = [];
    const p = this.portfolio;
    let gross = 0;
    for (let s = 0; s < p.qty.length; s++) {
      const q = p.qty[s] as number;
      if (q === 0) continue;
      const lastPrice = p.lastPrice[s] as number;
      gross += Math.abs(q * lastPrice);
      positions.push({
        symbol: this.data.symbols[s] as string,
        qty: q,
        avgPrice: p.avgPrice(s),
        lastPrice,
      });
    }
    return { cash: p.cash, equity: p.equity(), grossExposure: gross, positions };
  }

  private submitUnchecked(sym: number, index: number, tag: string): Order {
    const symbol = this.data.symbols[sym] as string;
    const size = Object.freeze({ kind: "weight", weight: 0 } as const);
    const order = this.newOrder({ symbol, size, tag }, index, null, true);
    this.working.push(working(order, sym, index + 1));
    return order;
  }

  /** Applies time in force before the order may fill in this bar. */
  private expired(w: Working, index: number): boolean {
    const o = w.order;
    o.barsWorked++;
    const tif = o.tif;
    if (tif.kind === "bars" && o.barsWorked > tif.bars) {
      this.finish(w, "expired", `time in force: ${tif.bars} bar(s) elapsed`, index);
      return true;
    }
    if (tif.kind === "day") {
      const day = dayKey(this.data.times[index] ?? 0);
      if (o.dayKey === null) o.dayKey = day;
      else if (o.dayKey !== day) {
        this.finish(w, "expired", "time in force: the trading day ended", index);
        return true;
      }
    }
    return false;
  }

  private tryFill(
    w: Working,
    index: number,
    reference: number,
    bi: number,
    phase: "open" | "intrabar" | "close",
  ): void {
    const o = w.order;
    const side = this.resolveSide(w, reference, index);
    if (side === null) return;
    const match = this.fills.match(o.type, side, o.limitPrice, o.stopPrice, this.bar, reference);
    if (match === null) return;
    if (
      phase === "open" &&
      match.basis !== "open" &&
      match.basis !== "gap" &&
      match.price !== reference
    ) {
      // Fills later in the bar: after everything due at the open.
      w.deferredIndex = index;
      return;
    }
    // One-cancels-other: when both legs could fill later in this bar, the stop-loss wins
    // (conservative); a leg the bar opened through fills at the open, before the other.
    // Stop-loss children are created before take-profit ones, so only the take-profit needs this.
    if (
      phase !== "open" &&
      w.sibling &&
      o.type === "limit" &&
      w.sibling.order.status === "working"
    ) {
      const sib = w.sibling.order;
      const sibSide = sib.side as Side;
      // Both legs of one bracket share the same remaining range, already in this.bar.
      const sibRef = w.sibling.sameBarIndex === index ? w.sibling.sameBarReference : this.bar.open;
      if (this.fills.match(sib.type, sibSide, sib.limitPrice, sib.stopPrice, this.bar, sibRef))
        return;
    }
    const price = this.fills.slip(match.price, side, o.type, this.config);
    let qty = this.resolveQty(w, side, price, index);
    if (qty === null) return;
    if (o.parentId !== null) {
      // A bracket leg only ever closes what is left of its entry's lot (kept in step after every
      // fill by fitLegs; checked again here for closes that bypass fills).
      const lot = this.portfolio.openUnitsOf(w.sym, o.parentId);
      if (lot < this.dust) {
        this.finish(w, "cancelled", "position closed", index);
        return;
      }
      qty = Math.min(qty, lot);
    }
    const cap = this.config.volumeCap;
    if (cap !== null) {
      const volume = (this.data.series[w.sym] as { volume: Float64Array }).volume[bi] as number;
      const allowed = roundUnits(volume * cap, this.config);
      if (allowed <= 0) return;
      qty = Math.min(qty, allowed);
    }
    if (qty <= EPS) return;
    // Never leave less than a step behind: a fill that would is widened or narrowed to close
    // exactly what is held.
    const held = this.portfolio.qty[w.sym] as number;
    const after = held + (side === "buy" ? qty : -qty);
    if (held !== 0 && after !== 0 && Math.abs(after) < this.dust) qty = Math.abs(held);
    const commission = this.commission(o, qty, price, !o.fixedFeeCharged);
    const rejection =
      nonFinite(qty, price, commission, this.portfolio.cash) ??
      this.checkAffordable(w, side, qty, price, commission);
    if (rejection !== null) {
      this.finish(w, "rejected", rejection, index);
      return;
    }
    this.executeFill(
      w,
      side,
      qty,
      price,
      match.price,
      commission,
      index,
      phase === "close" ? "close" : match.basis,
    );
  }

  /** The commission on a fill. A fee model without the closed form (a user's function) is checked:
   * a NaN, infinite or negative fee stops the run rather than enter the account. */
  private commission(o: Order, qty: number, price: number, firstFill: boolean): number {
    const fee = this.fees.commission(qty, price, firstFill);
    if (this.fees.linear === null && !(typeof fee === "number" && fee >= 0 && fee < Infinity))
      throw new FeeModelError(o.id, qty, price, fee);
    return fee;
  }

  /** The fees sizing asks for order `o`: a fee function's answers are checked there too (a NaN
   * would otherwise size the order to nothing, and the run end "every order rejected"). */
  private sizingFees(o: Order): FeeModel {
    if (this.fees.linear !== null) return this.fees;
    return { commission: (u, p, first) => this.commission(o, u, p, first), linear: null };
  }

  /** Weight orders choose their side when they fill: towards the target. */
  private resolveSide(w: Working, price: number, index: number): Side | null {
    const o = w.order;
    if (o.side !== null) return o.side;
    if (o.size.kind !== "weight") return null;
    const target = this.targetUnits(w.sym, o, o.size.weight, price);
    const current = this.portfolio.qty[w.sym] as number;
    // Less than a step away is there already; a close, though, always closes what is held.
    if (target === 0 ? current === 0 : Math.abs(target - current) < this.dust) {
      // Flat, and a position asked for that the equity cannot buy one unit of: not "there
      // already" but an order that sizes to nothing (a blown account, a price above the equity).
      if (target === 0 && o.size.weight !== 0) this.finish(w, "rejected", SIZES_TO_ZERO, index);
      else this.finish(w, "cancelled", "already at the target weight", index);
      return null;
    }
    return target > current ? "buy" : "sell";
  }

  private targetUnits(sym: number, o: Order, weight: number, price: number): number {
    if (weight === 0) return 0;
    const equity = this.equityAt(sym, price);
    const sign = weight < 0 ? -1 : 1;
    const held = (this.portfolio.qty[sym] as number) * sign;
    const budget = equity * Math.abs(weight);
    const fees = this.sizingFees(o);
    const units = targetUnitsForBudget(budget, price, held, this.config, fees, !o.fixedFeeCharged);
    // Never −0 (a short target of no unit): V8 compiles this as integer arithmetic, and a −0
    // result throws the compiled code away (a deoptimization and a new compile mid-run).
    return units === 0 ? 0 : sign * units;
  }

  /** Equity at the moment of a fill: the filling symbol at the fill price, the others at their
   * last known price (this bar's open is not yet a close, so they keep the previous close). */
  private equityAt(sym: number, price: number): number {
    const p = this.portfolio;
    return p.equity() + (p.qty[sym] as number) * (price - (p.lastPrice[sym] as number));
  }

  /** Units to fill now; sizes fraction and weight orders on their first fill. */
  private resolveQty(w: Working, side: Side, price: number, index: number): number | null {
    const o = w.order;
    if (o.remainingQty === null) {
      let units: number;
      const size = o.size;
      switch (size.kind) {
        case "fraction":
          units = unitsForBudget(
            this.equityAt(w.sym, price) * size.fraction,
            price,
            this.config,
            this.sizingFees(o),
            !o.fixedFeeCharged,
          );
          break;
        case "weight": {
          const target = this.targetUnits(w.sym, o, size.weight, price);
          const held = this.portfolio.qty[w.sym] as number;
          // A close closes exactly what is held; otherwise both ends are on the unit grid.
          units = target === 0 ? Math.abs(held) : Math.abs(roundToStep(target - held, this.config));
          break;
        }
        case "qty":
          units = size.qty;
          break;
        default:
          return assertNever(size, "order size");
      }
      if (units <= EPS) {
        this.finish(w, "rejected", SIZES_TO_ZERO, index);
        return null;
      }
      o.remainingQty = units;
      if (o.side === null) o.side = side;
    }
    return o.remainingQty;
  }

  /** Cash, margin, short and risk checks for a fill that would add risk; reducing fills pass. */
  private checkAffordable(
    w: Working,
    side: Side,
    qty: number,
    price: number,
    commission: number,
  ): string | null {
    const p = this.portfolio;
    const before = p.qty[w.sym] as number;
    const after = before + (side === "buy" ? qty : -qty);
    const addsRisk =
      Math.abs(after) > Math.abs(before) + EPS || Math.sign(after) * Math.sign(before) < 0;
    if (!addsRisk) return null;
    if (after < -EPS && !this.config.allowShort) {
      return "shorting is not allowed: this sell is larger than the position; pass --allow-short to permit shorts";
    }
    const cashAfter = p.cash - (after - before) * price - commission;
    const exp = p.exposure(w.sym, price, after);
    const equityAfter = cashAfter + exp.long - exp.short;
    // A cash account pays for longs in full; shorts must leave cash covering the short notional
    // plus the margin fraction of it (which is equity >= long + margin x short).
    const required = (1 + this.config.shortMargin) * exp.short;
    if (cashAfter < required - 1e-7) {
      if (exp.short <= EPS) {
        return `insufficient cash: the fill needs ${(cashAfter < 0 ? p.cash - cashAfter : 0).toFixed(2)} and the account has ${p.cash.toFixed(2)}`;
      }
      return `insufficient margin: shorts of ${exp.short.toFixed(2)} need cash of ${required.toFixed(2)} (short proceeds plus ${(this.config.shortMargin * 100).toFixed(0)}% margin), the account would have ${cashAfter.toFixed(2)}`;
    }
    return checkRisk(this.config.risk, {
      positionNotional: Math.abs(after * price),
      long: exp.long,
      short: exp.short,
      openPositions: exp.open,
      equity: equityAfter,
    });
  }

  private executeFill(
    w: Working,
    side: Side,
    qty: number,
    price: number,
    rawPrice: number,
    commission: number,
    index: number,
    basis: string,
    exitReason?: "data_ended",
  ): void {
    const o = w.order;
    const time = this.data.times[index] ?? 0;
    const slippage = Math.abs(price - rawPrice) * qty;
    const trades = this.portfolio.applyFill(
      w.sym,
      side,
      qty,
      price,
      commission,
      slippage,
      index,
      time,
      o.id,
      o.parentId ?? -1,
    );
    o.fixedFeeCharged = true;
    o.avgFillPrice = (o.avgFillPrice * o.filledQty + price * qty) / (o.filledQty + qty);
    o.filledQty += qty;
    o.remainingQty = (o.remainingQty ?? qty) - qty;
    // Frozen: strategies, the memory and the records all get this one object, and the records
    // keep it as their snapshot of the fill.
    this.emit?.({
      type: "fill",
      index,
      time,
      fill: Object.freeze({
        orderId: o.id,
        symbol: o.symbol,
        side,
        qty,
        price,
        rawPrice,
        commission,
        slippage,
        index,
        time,
        basis,
      }),
    });
    for (const trade of trades) {
      const closed = exitReason ? { ...trade, exitReason } : trade;
      this.emit?.({ type: "trade_closed", index, time, trade: closed });
    }
    if (o.remainingQty < this.dust) {
      o.remainingQty = 0;
      o.status = "filled";
    }
    if (w.sibling && w.sibling.order.status === "working") {
      const sib = w.sibling;
      if (o.status === "filled")
        this.finish(sib, "cancelled", `one-cancels-other: order ${o.id} filled`, index);
      else sib.order.remainingQty = Math.max(0, (sib.order.remainingQty ?? 0) - qty);
    }
    this.fitLegs(w.sym, o.id, index);
    if (o.stopLoss !== null || o.takeProfit !== null)
      this.attachChildren(w, side, qty, rawPrice, basis, index);
  }

  /** After a fill on `sym`: every working bracket leg there shrinks to what is left of its entry's
   * lot, and is cancelled once that lot is closed (by a close, a reversal or another leg). */
  private fitLegs(sym: number, byOrder: number, index: number): void {
    for (const c of this.working) {
      const o = c.order;
      if (o.parentId === null || c.sym !== sym || o.status !== "working") continue;
      const lot = this.portfolio.openUnitsOf(sym, o.parentId);
      if (lot < this.dust)
        this.finish(c, "cancelled", `position closed by order ${byOrder}`, index);
      else if ((o.remainingQty ?? 0) > lot) o.remainingQty = lot;
    }
  }

  /** Brackets: each entry fill adds its units to the protective children (created on the first
   * fill that opens units), never more than its lot still holds. */
  private attachChildren(
    entry: Working,
    side: Side,
    qty: number,
    entryPrice: number,
    basis: string,
    index: number,
  ): void {
    const lot = this.portfolio.openUnitsOf(entry.sym, entry.order.id);
    if (entry.children) {
      for (const c of entry.children)
        if (c.order.status === "working")
          c.order.remainingQty = Math.min((c.order.remainingQty ?? 0) + qty, lot);
      return;
    }
    // An entry that only reduced an opposite position opened nothing to protect (yet).
    if (lot < this.dust) return;
    const exitSide: Side = side === "buy" ? "sell" : "buy";
    const o = entry.order;
    // What of this bar is still ahead of the entry: an entry filled on the way down (limit buy,
    // stop sell) has only low and close left, so the high it came from cannot fill a child.
    const fellToEntry =
      (basis === "limit" && side === "buy") || (basis === "stop" && side === "sell");
    const aheadHigh = fellToEntry ? Math.max(entryPrice, this.bar.close) : this.bar.high;
    const aheadLow = this.bar.low;
    const make = (type: "stop" | "limit", price: number): Working => {
      const child = this.newOrder(
        {
          symbol: o.symbol,
          side: exitSide,
          type,
          size: Object.freeze({ kind: "qty", qty: Math.min(qty, lot) } as const),
          ...(type === "limit" ? { limitPrice: price } : { stopPrice: price }),
          tag: type === "stop" ? "stop-loss" : "take-profit",
        },
        index,
        o.id,
        true,
      );
      // Active in this very bar, after the entry: the rest of the bar may already hit it.
      const w = working(child, entry.sym, index);
      w.sameBarReference = entryPrice;
      w.sameBarIndex = index;
      w.sameBarHigh = aheadHigh;
      w.sameBarLow = aheadLow;
      return w;
    };
    const children: Working[] = [];
    if (o.stopLoss !== null) children.push(make("stop", o.stopLoss));
    if (o.takeProfit !== null) children.push(make("limit", o.takeProfit));
    const [a, b] = children;
    if (a && b) {
      a.sibling = b;
      b.sibling = a;
      a.order.ocoId = b.order.id;
      b.order.ocoId = a.order.id;
    }
    entry.children = children;
    const time = this.data.times[index] ?? 0;
    for (const c of children) {
      this.working.push(c);
      this.emit?.({ type: "order_accepted", index, time, order: c.order });
    }
  }

  private finish(
    w: Working,
    status: "cancelled" | "rejected" | "expired",
    reason: string,
    index: number,
  ): void {
    const o = w.order;
    if (o.status !== "working") return;
    o.status = status;
    o.reason = reason;
    const time = this.data.times[index] ?? 0;
    if (status === "expired") this.emit?.({ type: "order_expired", index, time, order: o });
    else if (status === "rejected")
      this.emit?.({ type: "order_rejected", index, time, order: o, reason });
    else this.emit?.({ type: "order_cancelled", index, time, order: o, reason });
    // Cancelling a working entry leaves no children; cancelling a leg leaves its sibling alone.
  }

  private compact(): void {
    let j = 0;
    for (let k = 0; k < this.working.length; k++) {
      const w = this.working[k] as Working;
      if (w.order.status === "working") this.working[j++] = w;
    }
    // Popped, not `length = j`: a runtime call that also drops the array's storage (a fifth of
    // the cost for the one or two orders a bar drops).
    while (this.working.length > j) this.working.pop();
  }
}

/** Every amount of a fill must be a finite number, or the fill would poison the account. */
function nonFinite(qty: number, price: number, commission: number, cash: number): string | null {
  const notional = qty * price;
  if (Number.isFinite(notional) && Number.isFinite(commission) && Number.isFinite(cash + notional))
    return null;
  return `the fill's amounts are not a finite number (${qty} units × ${price} = ${notional}, commission ${commission}): use a smaller quantity`;
}

function working(order: Order, sym: number, activeFrom: number): Working {
  return {
    order,
    sym,
    activeFrom,
    sameBarReference: 0,
    sameBarIndex: -1,
    sameBarHigh: 0,
    sameBarLow: 0,
    seenIndex: -1,
    deferredIndex: -1,
    sibling: null,
    children: null,
  };
}
