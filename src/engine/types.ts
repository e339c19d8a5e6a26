// Shared types of the pure engine. Everything above the engine (metrics, strategies, runner, CLI)
// speaks in these terms, so they carry no behaviour and no I/O.

/**
 * Timestamps are milliseconds since the Unix epoch of the wall-clock time *as written in the data*
 * (read as if it were UTC). Calendar boundaries (day, ISO week, month) are therefore computed with
 * the UTC getters, which reproduces "the data's time zone" without any time-zone database.
 */
export type Millis = number;

/** One symbol's bars in columnar form: fast to scan and cheap to slice. */
export interface SymbolSeries {
  readonly symbol: string;
  /** The file the bars came from (as given on the command line). */
  readonly source: string;
  readonly length: number;
  readonly time: Float64Array;
  readonly open: Float64Array;
  readonly high: Float64Array;
  readonly low: Float64Array;
  readonly close: Float64Array;
  readonly volume: Float64Array;
}

/** A single bar, used where an object is clearer than columns (context, prompts, tests). */
export interface Bar {
  time: Millis;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
}

export type Side = "buy" | "sell";
export type OrderType = "market" | "limit" | "stop";

/** GTC stays until filled or cancelled; DAY expires at the end of the first trading day on which
 * the order could fill; `bars` expires after that many bars of its symbol. */
export type TimeInForce = { kind: "gtc" } | { kind: "day" } | { kind: "bars"; bars: number };

/** How big an order is. Fraction and weight are converted to units when the order fills. */
export type OrderSize =
  | { kind: "qty"; qty: number }
  | { kind: "fraction"; fraction: number }
  | { kind: "weight"; weight: number };

/** What a strategy or agent asks for. The broker validates it and answers with an id or a reason. */
export interface OrderRequest {
  symbol: string;
  /** Required for qty and fraction sizes; weight orders derive their side at fill time. */
  side?: Side;
  type?: OrderType;
  size: OrderSize;
  limitPrice?: number;
  stopPrice?: number;
  tif?: TimeInForce;
  /** Bracket children: absolute prices, activated once the entry fills, one-cancels-other. */
  stopLoss?: number;
  takeProfit?: number;
  /** Free text carried into records (e.g. the agent's reason). */
  tag?: string;
}

export type OrderStatus = "working" | "filled" | "cancelled" | "rejected" | "expired";

export interface Order {
  readonly id: number;
  readonly symbol: string;
  side: Side | null;
  readonly type: OrderType;
  readonly size: OrderSize;
  readonly limitPrice: number | null;
  readonly stopPrice: number | null;
  readonly tif: TimeInForce;
  readonly stopLoss: number | null;
  readonly takeProfit: number | null;
  readonly tag: string | null;
  /** Master-timeline index of the bar at whose close the order was submitted. */
  readonly submittedIndex: number;
  readonly submittedTime: Millis;
  /** For bracket children: the entry order and the sibling that cancels with this one. */
  readonly parentId: number | null;
  ocoId: number | null;
  status: OrderStatus;
  /** Units still to fill once sizing is known (null until a fraction/weight order is sized). */
  remainingQty: number | null;
  filledQty: number;
  avgFillPrice: number;
  /** Bars of its own symbol the order has been eligible for (for TIF `bars`). */
  barsWorked: number;
  /** Day key (YYYY-MM-DD) of the first bar the order was eligible on, for TIF `day`. */
  dayKey: string | null;
  reason: string | null;
  /** Whether the fixed commission has been charged (it is charged once per order). */
  fixedFeeCharged: boolean;
}

export interface Fill {
  readonly orderId: number;
  readonly symbol: string;
  readonly side: Side;
  readonly qty: number;
  /** Price paid or received per unit, after slippage. */
  readonly price: number;
  /** The price before slippage (open, limit, stop or close). */
  readonly rawPrice: number;
  readonly commission: number;
  /** Cost of slippage in money: |price - rawPrice| * qty. */
  readonly slippage: number;
  readonly index: number;
  readonly time: Millis;
  /** Why it filled at that price: "open", "close", "limit", "stop", "gap". */
  readonly basis: string;
}

export interface ClosedTrade {
  readonly id: number;
  readonly symbol: string;
  readonly side: "long" | "short";
  /** Units, always positive. */
  readonly qty: number;
  readonly entryIndex: number;
  readonly entryTime: Millis;
  readonly entryPrice: number;
  readonly exitIndex: number;
  readonly exitTime: Millis;
  readonly exitPrice: number;
  /** Money made, net of the entry and exit commissions attributed to these units. */
  readonly pnl: number;
  /** pnl / (entryPrice * qty), as a fraction (0.05 = 5 %). */
  readonly returnPct: number;
  readonly commission: number;
  readonly slippage: number;
  readonly entryOrderId: number;
  readonly exitOrderId: number;
  /** Set when the broker, not the strategy, closed the trade: `data_ended` when the symbol's data
   * ended before the timeline (closed at its last close). */
  readonly exitReason?: "data_ended";
}

export interface Position {
  readonly symbol: string;
  /** Signed units: positive long, negative short. */
  qty: number;
  /** Average entry price of the open units. */
  avgPrice: number;
  /** Last known close, used to mark the position. */
  lastPrice: number;
}

export interface AccountSnapshot {
  cash: number;
  equity: number;
  /** Sum of |qty * price| over positions. */
  grossExposure: number;
  positions: ReadonlyArray<Readonly<Position>>;
}

export type EngineEvent =
  | { type: "bar"; index: number; time: Millis }
  | { type: "order_accepted"; index: number; time: Millis; order: Readonly<Order> }
  | { type: "order_rejected"; index: number; time: Millis; order: Readonly<Order>; reason: string }
  | { type: "order_cancelled"; index: number; time: Millis; order: Readonly<Order>; reason: string }
  | { type: "order_expired"; index: number; time: Millis; order: Readonly<Order> }
  | { type: "fill"; index: number; time: Millis; fill: Fill }
  | { type: "trade_closed"; index: number; time: Millis; trade: ClosedTrade }
  | { type: "day_end"; index: number; time: Millis; key: string }
  | { type: "week_end"; index: number; time: Millis; key: string }
  | { type: "month_end"; index: number; time: Millis; key: string }
  | { type: "run_end"; index: number; time: Millis };

export type EngineEventType = EngineEvent["type"];

/** Several symbols aligned by timestamp (never by row). */
export interface MarketData {
  readonly symbols: readonly string[];
  /** Same order as `symbols`. */
  readonly series: readonly SymbolSeries[];
  /** The master timeline: the sorted union of every symbol's timestamps. */
  readonly times: Float64Array;
  /** Per symbol, per master index: the index into that symbol's series, or -1 when the symbol has
   * no bar at that time (it then does not trade at that time). */
  readonly barIndex: readonly Int32Array[];
}
