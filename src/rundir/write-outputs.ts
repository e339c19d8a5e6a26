import { timeLabel } from "../engine/calendar.js";
import type { ClosedTrade } from "../engine/types.js";
import type { IndicatorUse } from "../indicators/indicator-use.js";
import { writeFileAtomic, writeTextAtomic } from "../util/atomic-write.js";
import { type EquityColumns, writeEquityCsv } from "./equity-csv.js";
import { runFile, type SimulationOutput } from "./layout.js";

/** A trade still open at the end, valued at the last close for the statistics (no exit fill). */
export interface ReportedTrade extends ClosedTrade {
  openAtEnd: boolean;
}

export function tradesCsv(trades: readonly ReportedTrade[], intraday: boolean): string {
  const lines = [
    "id,symbol,side,qty,entry_time,entry_price,exit_time,exit_price,pnl,return_pct,commission,slippage,bars_held,entry_order,exit_order,open_at_end,exit_reason",
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
        t.exitReason ?? "",
      ].join(","),
    );
  }
  return `${lines.join("\n")}\n`;
}

/** orders.jsonl, decisions.jsonl: one record a line, streamed (no second copy of them all). */
export function writeLines(file: string, records: Iterable<string>): void {
  writeTextAtomic(file, (out) => {
    for (const r of records) out.write(`${r}\n`);
  });
}

export function writeText(file: string, text: string): void {
  writeFileAtomic(file, text);
}

/** What the simulation's outputs are written from (the runner's Simulated). */
export interface OutputSource extends EquityColumns {
  trades: readonly ReportedTrade[];
  orderLog: Iterable<string>;
  decisionLog: Iterable<string>;
  indicators: readonly IndicatorUse[];
}

/** The writer of each of layout.ts's SIMULATION_OUTPUTS (a new output without one does not compile). */
export const OUTPUT_WRITERS: {
  readonly [K in SimulationOutput]: (file: string, s: OutputSource) => void;
} = {
  equity: (file, s) => writeEquityCsv(file, s),
  trades: (file, s) => writeText(file, tradesCsv(s.trades, s.intraday)),
  orders: (file, s) => writeLines(file, s.orderLog),
  decisions: (file, s) => writeLines(file, s.decisionLog),
  indicators: (file, s) => writeText(file, `${JSON.stringify(s.indicators, null, 2)}\n`),
};

/** Writes one of the simulation's outputs into the run directory `dir`. */
export function writeOutput(dir: string, role: SimulationOutput, s: OutputSource): void {
  OUTPUT_WRITERS[role](runFile(dir, role), s);
}
