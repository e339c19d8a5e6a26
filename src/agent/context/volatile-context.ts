import type { AccountSnapshot, Bar, Order } from "../../engine/types.js";
import type { MemorySection } from "../../memory/memory-system.js";
import { assertNever } from "../../util/assert-never.js";
import { money, pct, price } from "./format-numbers.js";

export interface VolatileParts {
  timeLabel: string;
  barNumber: number;
  totalBars: number;
  account: AccountSnapshot;
  /** The memory system's sections (files: position notes of held symbols), already read. */
  memory: readonly MemorySection[];
  orders: readonly Order[];
  /** Human-readable lines: fills, rejections, expiries, closed trades since the last decision. */
  events: readonly string[];
  /** The last bars of each symbol, oldest first. */
  bars: { symbol: string; rows: { label: string; bar: Bar }[] }[];
  /** The memory moment prompt(s) due now, or null for a trading decision. */
  moment: string | null;
  /** The closing request (decide, or write memory). */
  request: string;
}

/** The user message of a turn: everything about now. Changes every bar by design. */
export function buildVolatileContext(v: VolatileParts): string {
  const out: string[] = [];
  out.push("# Now", "", `Bar ${v.barNumber} of ${v.totalBars}: ${v.timeLabel}, at the close.`, "");
  out.push("# Account", "", accountLines(v.account), "");
  for (const section of v.memory) out.push(`# ${section.heading}`, "", section.body, "");
  out.push("# Working orders", "");
  out.push(v.orders.length ? v.orders.map(orderLine).join("\n") : "None.", "");
  out.push("# Events since your last decision", "");
  out.push(v.events.length ? v.events.map((e) => `- ${e}`).join("\n") : "None.", "");
  for (const b of v.bars) {
    out.push(`# Last ${b.rows.length} bars: ${b.symbol}`, "", "time,open,high,low,close,volume");
    for (const r of b.rows) {
      out.push(
        `${r.label},${price(r.bar.open)},${price(r.bar.high)},${price(r.bar.low)},${price(r.bar.close)},${r.bar.volume}`,
      );
    }
    out.push("");
  }
  if (v.moment !== null) out.push("# Memory moment", "", v.moment, "");
  out.push(v.request);
  return out.join("\n");
}

function accountLines(a: AccountSnapshot): string {
  const lines = [
    `Cash ${money(a.cash)}, equity ${money(a.equity)}, gross exposure ${a.equity > 0 ? pct(a.grossExposure / a.equity) : "n/a"} of equity.`,
  ];
  if (!a.positions.length) {
    lines.push("No positions.");
    return lines.join("\n");
  }
  for (const p of a.positions) {
    const side = p.qty > 0 ? "long" : "short";
    const unrealised = p.qty * (p.lastPrice - p.avgPrice);
    const basis = Math.abs(p.qty * p.avgPrice);
    lines.push(
      `${p.symbol}: ${side} ${Math.abs(p.qty)} @ avg ${price(p.avgPrice)}, last ${price(p.lastPrice)}, unrealised ${money(unrealised)} (${basis > 0 ? pct(unrealised / basis) : "n/a"}).`,
    );
  }
  return lines.join("\n");
}

/** An order's size as its line shows it: units left, a share of equity or a target weight. */
function sizeOf(o: Order): string {
  const size = o.size;
  switch (size.kind) {
    case "qty":
      return `${o.remainingQty ?? size.qty}`;
    case "fraction":
      return `${pct(size.fraction)} of equity`;
    case "weight":
      return `to weight ${size.weight}`;
    default:
      return assertNever(size, "order size");
  }
}

/** The price an order waits for, as its line shows it (none for a market order). */
function priceOf(o: Order): string {
  switch (o.type) {
    case "market":
      return "";
    case "limit":
      return ` @ ${price(o.limitPrice ?? 0)}`;
    case "stop":
      return ` stop ${price(o.stopPrice ?? 0)}`;
    default:
      return assertNever(o.type, "order type");
  }
}

function orderLine(o: Order): string {
  const at = priceOf(o);
  const tif = o.tif.kind === "bars" ? `${o.tif.bars} bars` : o.tif.kind;
  const role = o.parentId !== null ? ` (${o.tag ?? "child"} of #${o.parentId})` : "";
  return `- #${o.id} ${o.side ?? ""} ${o.type} ${sizeOf(o)} ${o.symbol}${at}${role}, ${tif}`.replace(
    / +/g,
    " ",
  );
}
