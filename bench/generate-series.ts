import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { SymbolSeries } from "../src/engine/types.js";
import { mulberry32 } from "../src/util/prng.js";

/** The benches' generator: the project's seeded mulberry32, so every bench run sees the same series. */
export const prng = mulberry32;

const DAY = 86_400_000;
const START = Date.UTC(1900, 0, 1);

/** A random-walk series of `n` bars (valid OHLC: high ≥ max(open, close), low ≤ min), daily from
 * 1900-01-01 by default, or `stepMs` apart from `start` (minute bars: 60_000). */
export function randomWalk(n: number, seed = 42, stepMs = DAY, start = START): SymbolSeries {
  const rnd = prng(seed);
  const time = new Float64Array(n);
  const open = new Float64Array(n);
  const high = new Float64Array(n);
  const low = new Float64Array(n);
  const close = new Float64Array(n);
  const volume = new Float64Array(n);
  let price = 100;
  for (let i = 0; i < n; i++) {
    time[i] = start + i * stepMs;
    const o = price;
    const c = Math.max(1, o * (1 + (rnd() - 0.5) * 0.04));
    const h = Math.max(o, c) * (1 + rnd() * 0.01);
    const l = Math.min(o, c) * (1 - rnd() * 0.01);
    open[i] = round2(o);
    close[i] = round2(c);
    high[i] = Math.max(round2(h), open[i] as number, close[i] as number);
    low[i] = Math.min(round2(l), open[i] as number, close[i] as number);
    volume[i] = Math.floor(1000 + rnd() * 100_000);
    price = close[i] as number;
  }
  return { symbol: "BENCH", source: "generated", length: n, time, open, high, low, close, volume };
}

const round2 = (x: number) => Math.round(x * 100) / 100;

/** Writes a series as a Yahoo-style CSV (dates, or ISO date-times for intraday bars). */
export function writeCsv(file: string, s: SymbolSeries): void {
  const intraday = s.time.some((t) => t % DAY !== 0);
  const fd = fs.openSync(file, "w");
  fs.writeSync(fd, "Date,Open,High,Low,Close,Volume\n");
  let chunk = "";
  for (let i = 0; i < s.length; i++) {
    const d = new Date(s.time[i] as number).toISOString().slice(0, intraday ? 19 : 10);
    chunk += `${d},${s.open[i]},${s.high[i]},${s.low[i]},${s.close[i]},${s.volume[i]}\n`;
    if (chunk.length > 1 << 20) {
      fs.writeSync(fd, chunk);
      chunk = "";
    }
  }
  fs.writeSync(fd, chunk);
  fs.closeSync(fd);
}

/** Where the minute workload's scripts keep their files (the CSV, runs, profiles). */
export const MINUTE_DIR = path.join(os.tmpdir(), "agenticbt-minute-check");

/**
 * The minute workload's CSV: 1,000,000 minute bars of a random walk (seed 7, from 2020-01-01),
 * written once into MINUTE_DIR and reused by every script that measures it.
 */
export function minuteCsv(): string {
  fs.mkdirSync(MINUTE_DIR, { recursive: true });
  const csv = path.join(MINUTE_DIR, "MINUTE.csv");
  if (!fs.existsSync(csv)) writeCsv(csv, randomWalk(1_000_000, 7, 60_000, Date.UTC(2020, 0, 1)));
  return csv;
}

/** The minute workload's broker options and strategy parameters, as the CLI gets them
 * (`--commission 0.001 --allow-short --param longShort=true`, the SMA crossover's 10/30). */
export const MINUTE_BROKER = { commissionRate: 0.001, allowShort: true } as const;
export const MINUTE_PARAMS = { fast: 10, slow: 30, longShort: true } as const;
