import type { ClosedTrade } from "../../src/engine/types.js";
import type { MetricsInput } from "../../src/metrics/types.js";

export const DAY = 86_400_000;
export const HOUR = 3_600_000;

export function utc(iso: string): number {
  return Date.parse(`${iso}Z`);
}

/** `count` consecutive calendar days from `startIso`, weekends included. */
export function everyDay(startIso: string, count: number): Float64Array {
  const start = utc(startIso);
  return Float64Array.from({ length: count }, (_, i) => start + i * DAY);
}

/** `count` weekdays (Mon–Fri) from `startIso`, skipping Saturdays and Sundays. */
export function weekdays(startIso: string, count: number): Float64Array {
  const out: number[] = [];
  for (let t = utc(startIso); out.length < count; t += DAY) {
    const wd = new Date(t).getUTCDay();
    if (wd !== 0 && wd !== 6) out.push(t);
  }
  return Float64Array.from(out);
}

export function trade(
  fields: Partial<ClosedTrade> & { pnl: number; returnPct: number },
): ClosedTrade {
  return {
    id: 1,
    symbol: "X",
    side: "long",
    qty: 1,
    entryIndex: 0,
    entryTime: 0,
    entryPrice: 100,
    exitIndex: 1,
    exitTime: DAY,
    exitPrice: 100,
    commission: 0,
    slippage: 0,
    entryOrderId: 1,
    exitOrderId: 2,
    ...fields,
  };
}

/** A run with no trades whose benchmark is the equity curve itself unless given. */
export function input(
  times: Float64Array,
  equity: number[],
  overrides: Partial<MetricsInput> = {},
): MetricsInput {
  const eq = Float64Array.from(equity);
  return {
    times,
    equity: eq,
    initialCash: equity[0] ?? 0,
    trades: [],
    benchmark: eq,
    exposedBars: 0,
    commissions: 0,
    slippage: 0,
    ...overrides,
  };
}
