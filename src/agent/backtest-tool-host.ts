import type { OrderRequest } from "../engine/types.js";
import { noteDestination } from "../memory/systems/files-tools.js";
import type { StrategyContext } from "../strategy/types.js";
import { money, price } from "./context/format-numbers.js";
import type { PlaceOrderArgs, ToolHost } from "./tools/tool-host.js";

/**
 * The tools' view of the backtest: the strategy context at the current bar. Everything goes through
 * the context, which never reads past the current bar and confines memory to the run directory.
 */
export class BacktestToolHost implements ToolHost {
  constructor(
    private readonly ctx: StrategyContext,
    private readonly timeLabelOf: (time: number) => string,
  ) {}

  get symbols(): readonly string[] {
    return this.ctx.symbols;
  }

  private symbol(symbol: string): string {
    if (!this.ctx.symbols.includes(symbol)) {
      throw new Error(
        `Unknown symbol "${symbol}". Symbols in this backtest: ${this.ctx.symbols.join(", ")}.`,
      );
    }
    return symbol;
  }

  getBars(symbol: string, n: number) {
    const bars = this.ctx.bars(n, this.symbol(symbol));
    return {
      symbol,
      bars: bars.map((b) => ({
        time: this.timeLabelOf(b.time),
        open: b.open,
        high: b.high,
        low: b.low,
        close: b.close,
        volume: b.volume,
      })),
    };
  }

  getIndicator(name: string, symbol: string, params: Record<string, number>, n: number) {
    return { symbol, ...this.ctx.indicatorValues(name, params, n, this.symbol(symbol)) };
  }

  getAccount() {
    const a = this.ctx.account();
    return {
      cash: round2(a.cash),
      equity: round2(a.equity),
      grossExposure: round2(a.grossExposure),
      positions: a.positions.map((p) => ({
        symbol: p.symbol,
        quantity: p.qty,
        averagePrice: Number(price(p.avgPrice)),
        lastPrice: p.lastPrice,
        unrealisedPnl: round2(p.qty * (p.lastPrice - p.avgPrice)),
      })),
    };
  }

  placeOrder(args: PlaceOrderArgs) {
    const request: OrderRequest = {
      symbol: this.symbol(args.symbol),
      side: args.side,
      type: args.type,
      size:
        args.quantity !== undefined
          ? { kind: "qty", qty: args.quantity }
          : args.fractionOfEquity !== undefined
            ? { kind: "fraction", fraction: args.fractionOfEquity }
            : { kind: "weight", weight: args.targetWeight ?? 0 },
      tif: args.timeInForce,
    };
    if (request.size.kind === "weight") delete request.side;
    if (args.limitPrice !== undefined) request.limitPrice = args.limitPrice;
    if (args.stopPrice !== undefined) request.stopPrice = args.stopPrice;
    if (args.stopLoss !== undefined) request.stopLoss = args.stopLoss;
    if (args.takeProfit !== undefined) request.takeProfit = args.takeProfit;
    if (args.reason !== undefined) request.tag = args.reason;
    const order = this.ctx.order(request);
    if (order.status === "rejected") {
      return { orderId: order.id, status: "rejected", reason: order.reason };
    }
    return {
      orderId: order.id,
      status: "accepted",
      note:
        order.type === "market"
          ? "fills at the next bar's open (sized then, if by fraction or weight)"
          : "works from the next bar until filled, cancelled or expired",
    };
  }

  cancelOrder(orderId: number) {
    const ok = this.ctx.cancel(orderId);
    if (!ok)
      throw new Error(`No working order #${orderId}. Use list_orders to see working orders.`);
    return { orderId, status: "cancelled" };
  }

  listOrders() {
    return {
      orders: this.ctx.orders().map((o) => ({
        orderId: o.id,
        symbol: o.symbol,
        side: o.side,
        type: o.type,
        size: o.size,
        remainingQuantity: o.remainingQty,
        limitPrice: o.limitPrice,
        stopPrice: o.stopPrice,
        parentId: o.parentId,
        timeInForce: o.tif,
        placedAt: this.timeLabelOf(o.submittedTime),
      })),
    };
  }

  memoryLog(content: string) {
    this.ctx.log(content);
    return { ok: true, written: `journal/${this.timeLabelOf(this.ctx.time).slice(0, 10)}.md` };
  }

  memoryNote(key: string, content: string) {
    this.ctx.note(key, content);
    return { ok: true, written: noteDestination(key) };
  }

  memoryRecall(query: string, limit: number) {
    return this.ctx.recallAsync(query, limit);
  }

  memoryUse(tool: string, args: unknown) {
    return this.ctx.memory.use(tool, args as Record<string, unknown>);
  }
}

const round2 = (x: number) => Number(money(x));
