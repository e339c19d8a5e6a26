import Papa from "papaparse";
import { RunReadError } from "../errors/report-error.js";
import { runFile } from "../rundir/layout.js";
import { readTextOrNull } from "../rundir/run-files.js";
import type { TradeKey } from "../rundir/schemas.js";

/** trades.csv of a run (absent = no trades), as the fields that identify a trade. */
export function readTrades(dir: string): TradeKey[] {
  const file = runFile(dir, "trades");
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
const timingOf = (t: TradeKey) => JSON.stringify([t.symbol, t.side, t.entryTime, t.exitTime]);

/**
 * Trades of A not in B and of B not in A, matched by symbol, side, entry, exit and quantity; and
 * how many of those are, in the other run, the same trade (symbol, side, entry and exit) with
 * another quantity: a different commission or cash resizes every trade without changing a decision.
 */
export function diffTrades(a: TradeKey[], b: TradeKey[]) {
  const exact = pairUp(a, b, keyOf);
  const { onlyA, onlyB } = exact;
  return { onlyA, onlyB, common: exact.paired, resized: pairUp(onlyA, onlyB, timingOf).paired };
}

/**
 * Pairs the trades of `a` with those of `b` that have the same key, one for one: counted, not a
 * set (two identical trades in A and one in B leave one "only in A"). The unpaired keep their
 * order.
 */
function pairUp(a: TradeKey[], b: TradeKey[], key: (t: TradeKey) => string) {
  const inB = new Map<string, number>();
  for (const t of b) inB.set(key(t), (inB.get(key(t)) ?? 0) + 1);
  const onlyA: TradeKey[] = [];
  let paired = 0;
  for (const t of a) {
    const left = inB.get(key(t)) ?? 0;
    if (left > 0) {
      inB.set(key(t), left - 1);
      paired++;
    } else onlyA.push(t);
  }
  const onlyB: TradeKey[] = [];
  for (const t of b) {
    const left = inB.get(key(t)) ?? 0;
    if (left > 0) {
      inB.set(key(t), left - 1);
      onlyB.push(t);
    }
  }
  return { onlyA, onlyB, paired };
}
