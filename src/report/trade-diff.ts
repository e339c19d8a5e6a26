import path from "node:path";
import Papa from "papaparse";
import { RunReadError } from "./report-error.js";
import { readTextOrNull } from "./run-files.js";
import type { TradeKey } from "./schemas.js";

/** trades.csv of a run (absent = no trades), as the fields that identify a trade. */
export function readTrades(dir: string): TradeKey[] {
  const file = path.join(dir, "trades.csv");
  const text = readTextOrNull(file);
  if (text === null) return [];
  const parsed = Papa.parse<Record<string, string>>(text.trim(), { header: true });
  const required = ["symbol", "side", "qty", "entry_time", "exit_time"];
  const missing = required.filter((c) => !parsed.meta.fields?.includes(c));
  if (text.trim() !== "" && missing.length) {
    throw new RunReadError(`${file} lacks the column(s) ${missing.join(", ")}.`);
  }
  return parsed.data.map((r) => ({
    symbol: r.symbol ?? "",
    side: r.side ?? "",
    entryTime: r.entry_time ?? "",
    exitTime: r.exit_time ?? "",
    qty: Number(r.qty),
    returnPct: r.return_pct === undefined || r.return_pct === "" ? null : Number(r.return_pct),
  }));
}

const keyOf = (t: TradeKey) => JSON.stringify([t.symbol, t.side, t.entryTime, t.exitTime, t.qty]);

/** Trades of A not in B and of B not in A, matched by symbol, side, entry, exit and quantity. */
export function diffTrades(a: TradeKey[], b: TradeKey[]) {
  // Counted, not a set: two identical trades in A and one in B leave one "only in A".
  const inB = new Map<string, number>();
  for (const t of b) inB.set(keyOf(t), (inB.get(keyOf(t)) ?? 0) + 1);
  const onlyA: TradeKey[] = [];
  let common = 0;
  for (const t of a) {
    const left = inB.get(keyOf(t)) ?? 0;
    if (left > 0) {
      inB.set(keyOf(t), left - 1);
      common++;
    } else onlyA.push(t);
  }
  const onlyB: TradeKey[] = [];
  for (const t of b) {
    const left = inB.get(keyOf(t)) ?? 0;
    if (left > 0) {
      inB.set(keyOf(t), left - 1);
      onlyB.push(t);
    }
  }
  return { onlyA, onlyB, common, resized: resized(onlyA, onlyB) };
}

const timingOf = (t: TradeKey) => JSON.stringify([t.symbol, t.side, t.entryTime, t.exitTime]);

/**
 * How many of the trades found in one run only are, in the other, the same trade (symbol, side,
 * entry and exit) with another quantity: a different commission or cash resizes every trade
 * without changing a decision.
 */
function resized(onlyA: TradeKey[], onlyB: TradeKey[]): number {
  const inB = new Map<string, number>();
  for (const t of onlyB) inB.set(timingOf(t), (inB.get(timingOf(t)) ?? 0) + 1);
  let n = 0;
  for (const t of onlyA) {
    const left = inB.get(timingOf(t)) ?? 0;
    if (left > 0) {
      inB.set(timingOf(t), left - 1);
      n++;
    }
  }
  return n;
}
