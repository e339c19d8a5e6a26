import { timeLabel } from "../engine/calendar.js";
import type { ClosedTrade } from "../engine/types.js";
import { writeFileAtomic } from "../util/atomic-write.js";

/** A trade still open at the end, valued at the last close for the statistics (no exit fill). */
export interface ReportedTrade extends ClosedTrade {
  openAtEnd: boolean;
}

export function equityCsv(
  times: Float64Array,
  equity: Float64Array,
  cash: Float64Array,
  benchmark: Float64Array,
  intraday: boolean,
): string {
  const parts: string[] = ["time,equity,cash,drawdown_pct,benchmark\n"];
  let peak = Number.NEGATIVE_INFINITY;
  let chunk = "";
  for (let i = 0; i < equity.length; i++) {
    const e = equity[i] as number;
    if (e > peak) peak = e;
    const dd = peak > 0 ? (e / peak - 1) * 100 : 0;
    chunk += `${timeLabel(times[i] as number, intraday)},${e},${cash[i]},${dd === 0 ? 0 : dd},${benchmark[i]}\n`;
    // Flush periodically so a million rows do not build one giant rope.
    if (chunk.length > 1 << 16) {
      parts.push(chunk);
      chunk = "";
    }
  }
  parts.push(chunk);
  return parts.join("");
}

export function tradesCsv(trades: readonly ReportedTrade[], intraday: boolean): string {
  const lines = [
    "id,symbol,side,qty,entry_time,entry_price,exit_time,exit_price,pnl,return_pct,commission,slippage,bars_held,entry_order,exit_order,open_at_end",
  ];
  for (const t of trades) {
    lines.push(
      [
        t.id,
        t.symbol,
        t.side,
        t.qty,
        timeLabel(t.entryTime, intraday),
        t.entryPrice,
        timeLabel(t.exitTime, intraday),
        t.exitPrice,
        t.pnl,
        t.returnPct * 100,
        t.commission,
        t.slippage,
        t.exitIndex - t.entryIndex,
        t.entryOrderId,
        t.openAtEnd ? "" : t.exitOrderId,
        t.openAtEnd,
      ].join(","),
    );
  }
  return `${lines.join("\n")}\n`;
}

export function writeText(file: string, text: string): void {
  writeFileAtomic(file, text);
}
