import type { ClosedTrade, Millis, Side } from "./types.js";

/** An open lot: units bought (or sold short) by one fill, closed first-in first-out. */
export interface Lot {
  qty: number;
  price: number;
  index: number;
  time: Millis;
  orderId: number;
  /** Entry commission and slippage not yet attributed to a closed trade. */
  commission: number;
  slippage: number;
}

const EPS = 1e-9;

/** A portfolio's state between bars (a resume restores it): its own objects, by reference. */
export interface PortfolioState {
  cash: number;
  qty: Float64Array;
  lastPrice: Float64Array;
  lots: Lot[][];
  tradeSeq: number;
  totalCommission: number;
  totalSlippage: number;
}

/**
 * Cash, positions and lots for a fixed list of symbols (indexed, so the hot path avoids maps).
 * Closing fills consume lots FIFO and produce closed trades; a fill larger than the position
 * closes it and opens the remainder the other way (a reversal).
 */
export class Portfolio {
  cash: number;
  readonly qty: Float64Array;
  readonly lastPrice: Float64Array;
  private readonly lots: Lot[][];
  private tradeSeq = 0;
  totalCommission = 0;
  totalSlippage = 0;

  constructor(
    readonly symbols: readonly string[],
    initialCash: number,
  ) {
    this.cash = initialCash;
    this.qty = new Float64Array(symbols.length);
    this.lastPrice = new Float64Array(symbols.length);
    this.lots = symbols.map(() => []);
  }

  exportState(): PortfolioState {
    return {
      cash: this.cash,
      qty: this.qty,
      lastPrice: this.lastPrice,
      lots: this.lots,
      tradeSeq: this.tradeSeq,
      totalCommission: this.totalCommission,
      totalSlippage: this.totalSlippage,
    };
  }

  /** Takes over a copy of an exported state (same symbols). */
  importState(s: PortfolioState): void {
    if (s.qty.length !== this.qty.length || s.lots.length !== this.lots.length) {
      throw new RangeError(`a portfolio state of ${s.qty.length} symbols, not ${this.qty.length}`);
    }
    this.cash = s.cash;
    this.qty.set(s.qty);
    this.lastPrice.set(s.lastPrice);
    s.lots.forEach((lots, k) => {
      this.lots[k] = lots;
    });
    this.tradeSeq = s.tradeSeq;
    this.totalCommission = s.totalCommission;
    this.totalSlippage = s.totalSlippage;
  }

  equity(): number {
    let e = this.cash;
    for (let s = 0; s < this.qty.length; s++) {
      const q = this.qty[s] as number;
      if (q !== 0) e += q * (this.lastPrice[s] as number);
    }
    return e;
  }

  /** Long and short notional at the last prices, optionally with one symbol at another price. */
  exposure(
    overrideSym = -1,
    overridePrice = 0,
    overrideQty = 0,
  ): { long: number; short: number; open: number } {
    let long = 0;
    let short = 0;
    let open = 0;
    for (let s = 0; s < this.qty.length; s++) {
      const q = s === overrideSym ? overrideQty : (this.qty[s] as number);
      const p = s === overrideSym ? overridePrice : (this.lastPrice[s] as number);
      if (q > EPS) long += q * p;
      else if (q < -EPS) short -= q * p;
      if (Math.abs(q) > EPS) open++;
    }
    return { long, short, open };
  }

  avgPrice(sym: number): number {
    const lots = this.lots[sym] as Lot[];
    let units = 0;
    let cost = 0;
    for (const lot of lots) {
      units += Math.abs(lot.qty);
      cost += Math.abs(lot.qty) * lot.price;
    }
    return units > 0 ? cost / units : 0;
  }

  /** Units still open of the lots that order `orderId` opened on symbol `sym`. */
  openUnitsOf(sym: number, orderId: number): number {
    let units = 0;
    for (const lot of this.lots[sym] as Lot[])
      if (lot.orderId === orderId) units += Math.abs(lot.qty);
    return units;
  }

  /** Applies a fill and returns the trades it closed. Opposite lots are closed first-in
   * first-out, except that the lots of order `ownLots` (a bracket leg's entry) go first. */
  applyFill(
    sym: number,
    side: Side,
    qty: number,
    price: number,
    commission: number,
    slippage: number,
    index: number,
    time: Millis,
    orderId: number,
    ownLots = -1,
  ): ClosedTrade[] {
    const signed = side === "buy" ? qty : -qty;
    this.cash -= signed * price + commission;
    this.totalCommission += commission;
    this.totalSlippage += slippage;
    const lots = this.lots[sym] as Lot[];
    const closed: ClosedTrade[] = [];
    let remaining = qty;
    const symbol = this.symbols[sym] as string;
    // Close opposite lots first-in first-out (a leg's own entry lots first).
    while (remaining > EPS && lots.length > 0) {
      let k = 0;
      if (ownLots >= 0) {
        for (let j = 0; j < lots.length; j++) {
          if ((lots[j] as Lot).orderId === ownLots) {
            k = j;
            break;
          }
        }
      }
      const lot = lots[k] as Lot;
      if (lot.qty > 0 === signed > 0) break;
      const lotUnits = Math.abs(lot.qty);
      const take = Math.min(lotUnits, remaining);
      const share = take / qty;
      const lotShare = take / lotUnits;
      const entryCommission = lot.commission * lotShare;
      const entrySlippage = lot.slippage * lotShare;
      const exitCommission = commission * share;
      const exitSlippage = slippage * share;
      closed.push(
        this.trade(symbol, lot, take, price, index, time, orderId, {
          commission: entryCommission + exitCommission,
          slippage: entrySlippage + exitSlippage,
        }),
      );
      remaining -= take;
      if (take >= lotUnits - EPS) {
        lots.splice(k, 1);
      } else {
        lot.qty -= (lot.qty > 0 ? 1 : -1) * take;
        lot.commission -= entryCommission;
        lot.slippage -= entrySlippage;
      }
    }
    if (remaining > EPS) {
      const share = remaining / qty;
      lots.push({
        qty: side === "buy" ? remaining : -remaining,
        price,
        index,
        time,
        orderId,
        commission: commission * share,
        slippage: slippage * share,
      });
    }
    let q = 0;
    for (const lot of lots) q += lot.qty;
    this.qty[sym] = Math.abs(q) < EPS ? 0 : q;
    return closed;
  }

  /** Open lots as trades valued at the last price, for end-of-run statistics only: nothing is
   * sold, and no exit commission is invented. */
  openLotsAsTrades(index: number, time: Millis): ClosedTrade[] {
    const out: ClosedTrade[] = [];
    for (let s = 0; s < this.lots.length; s++) {
      const price = this.lastPrice[s] as number;
      for (const lot of this.lots[s] as Lot[]) {
        const costs = { commission: lot.commission, slippage: lot.slippage };
        out.push(
          this.trade(
            this.symbols[s] as string,
            lot,
            Math.abs(lot.qty),
            price,
            index,
            time,
            0,
            costs,
          ),
        );
      }
    }
    return out;
  }

  /** A trade of `units` of a lot exited at `price`; P&L is net of the commissions given. */
  private trade(
    symbol: string,
    lot: Lot,
    units: number,
    price: number,
    index: number,
    time: Millis,
    exitOrderId: number,
    costs: { commission: number; slippage: number },
  ): ClosedTrade {
    const direction = lot.qty > 0 ? 1 : -1;
    const pnl = direction * units * (price - lot.price) - costs.commission;
    return {
      id: ++this.tradeSeq,
      symbol,
      side: direction > 0 ? "long" : "short",
      qty: units,
      entryIndex: lot.index,
      entryTime: lot.time,
      entryPrice: lot.price,
      exitIndex: index,
      exitTime: time,
      exitPrice: price,
      pnl,
      returnPct: pnl / (lot.price * units),
      commission: costs.commission,
      slippage: costs.slippage,
      entryOrderId: lot.orderId,
      exitOrderId,
    };
  }
}
