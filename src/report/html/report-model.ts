import Papa from "papaparse";
import { parseTimestamp } from "../../data/parse-timestamp.js";
import type { SymbolSeries } from "../../engine/types.js";
import { computeIndicator } from "../../indicators/compute-indicator.js";
import type { IndicatorUse } from "../../indicators/indicator-use.js";
import { runFile } from "../../rundir/layout.js";
import { damagedRunFile, readTextOrNull } from "../../rundir/run-files.js";
import { type ResultFile, readConfig, readResult } from "../../rundir/run-record.js";
import type { DecisionView } from "../../rundir/schemas.js";
import { readDecisions } from "../decision-lines.js";
import { type CurveColumns, type CurveLines, curveSeries, LINE_POINTS } from "./curve-series.js";
import { aggregateCandles, type Candles, floorIndex, round8 } from "./downsample.js";
import { llmUsageOverTime, type UsagePoint } from "./llm-usage.js";
import { readableNumber } from "./page-parts.js";
import { loadRunPrices, type PriceSource } from "./price-data.js";

export { type CurveColumns, curveSeries };

/** Page budgets: enough to read every move, small enough for a million-bar run (see docs). */
export const LIMITS = {
  linePoints: LINE_POINTS,
  candles: 2000,
  tableRows: 2000,
  tradeLines: 10_000,
  /** Past this many markers at the current zoom, the page drops their labels (not their counts). */
  labelledMarkers: 60,
};

/** What the runner already holds in memory; anything not given is read from the run directory. */
export interface ReportInputs {
  curve?: CurveColumns;
  /** `curveSeries(curve)`, when the runner drew it already (while equity.csv was being written). */
  curveLines?: ReportModel["curve"];
  prices?: PriceSource;
  /** orders.jsonl's lines of rejected orders, as the runner wrote them. */
  rejectedOrders?: RejectedLines;
  /** `reportParts(…)`, when the runner made them already (while the metrics were computed). */
  parts?: ReportParts;
}

/**
 * The orders.jsonl lines of a run's rejected orders, made on demand: a long run can reject tens of
 * thousands (a blown account's orders all size to zero) and the page parses no more than it shows.
 */
export interface RejectedLines {
  total: number;
  /** The kth rejected order's line, 0 <= k < total. */
  line(k: number): string;
}

/** The page's parts that need neither metrics nor timings: the trades, the rejected orders and
 * the price charts with their markers. */
export interface ReportParts {
  trades: TableData;
  rejected: { shown: RejectedOrder[]; total: number };
  charts: SymbolChart[];
  pricesNote: string | null;
}

/** The run's window, as result.json's period gives it (labels; null when nothing ran). */
export interface ChartWindow {
  start: string | null;
  end: string | null;
}

/** A run's ReportParts, from its trades.csv, its rejected orders and its prices. */
export function reportParts(
  dir: string,
  window: ChartWindow,
  prices: PriceSource,
  rejectedOrders?: RejectedLines,
): ReportParts {
  const trades = readCsvTable(runFile(dir, "trades"));
  const charts = priceCharts(window, prices, trades, readIndicatorUses(dir));
  const rejected = readRejected(dir, rejectedOrders, charts.markRejected);
  return { trades, rejected, charts: charts.finish(), pricesNote: charts.note };
}

export interface TableData {
  columns: string[];
  rows: string[][];
  total: number;
}

export interface ReportModel {
  result: ResultFile;
  config: Record<string, unknown>;
  metrics: { key: string; strategy: unknown; benchmark: unknown; note: string | null }[];
  facts: [string, unknown][];
  curve: CurveLines;
  charts: SymbolChart[];
  pricesNote: string | null;
  trades: TableData;
  rejected: TableData;
  decisions: { shown: DecisionView[]; total: number } | null;
  usage: { points: UsagePoint[]; costNote: string | null } | null;
}

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => v !== null && typeof v === "object" && !Array.isArray(v);

/** Everything the page shows, from a finished run's directory (and what the runner passes). */
export function buildReportModel(dir: string, inputs: ReportInputs = {}): ReportModel {
  const result = readResult(dir);
  const config = readConfig(dir);
  const curveCols = inputs.curveLines ? null : (inputs.curve ?? readEquityCsv(dir, result));
  const { trades, rejected, charts, pricesNote } =
    inputs.parts ??
    reportParts(
      dir,
      { start: result.period.start ?? null, end: result.period.end ?? null },
      inputs.prices ?? loadRunPrices(dir, result, config),
      inputs.rejectedOrders,
    );
  const llm = result.strategy.kind === "llm";
  const decisions = llm ? readDecisions(dir) : null;
  const usage = llm ? llmUsageOverTime(dir, result, config) : null;
  const curve = inputs.curveLines ?? curveSeries(curveCols as CurveColumns);
  return {
    result,
    config,
    metrics: metricRows(result),
    facts: facts(result),
    curve,
    charts,
    pricesNote,
    trades: cap(trades),
    rejected: cap({
      columns: ["time", "id", "symbol", "side", "type", "reason"],
      rows: rejected.shown.map((r) => [r.time, r.id, r.symbol, r.side, r.type, r.reason]),
      total: rejected.total,
    }),
    decisions: decisions && {
      shown: decisions.slice(0, LIMITS.tableRows),
      total: decisions.length,
    },
    usage,
  };
}

const cap = (t: TableData): TableData => ({ ...t, rows: t.rows.slice(0, LIMITS.tableRows) });

/** Every metric result.json holds, strategy beside buy-and-hold, with the reason for a null. */
export function metricRows(r: ResultFile): ReportModel["metrics"] {
  const m = r.metrics ?? {};
  const b = r.benchmark.metrics ?? {};
  const reasons = isRec(r.nullReasons) ? r.nullReasons : {};
  const bReasons = isRec(r.benchmark.nullReasons) ? r.benchmark.nullReasons : {};
  const keys = [...new Set([...Object.keys(m), ...Object.keys(b), ...Object.keys(reasons)])];
  const why = (key: string) => {
    const own = typeof reasons[key] === "string" ? (reasons[key] as string) : null;
    const bench = typeof bReasons[key] === "string" ? `buy & hold: ${bReasons[key]}` : null;
    return own !== null && bench !== null ? `${own}; ${bench}` : (own ?? bench);
  };
  return keys.map((key) => ({
    key,
    strategy: key in m ? m[key] : null,
    benchmark: key in b ? b[key] : null,
    note: why(key),
  }));
}

/** The rest of result.json's numbers: orders, trades, memory, LLM usage, timings (flattened). */
function facts(r: ResultFile): [string, unknown][] {
  const out: [string, unknown][] = [];
  const walk = (prefix: string, v: unknown, depth: number) => {
    if (isRec(v) && depth < 4) {
      for (const [k, x] of Object.entries(v)) walk(prefix ? `${prefix}.${k}` : k, x, depth + 1);
    } else if (v === null || typeof v !== "object") out.push([prefix, v]);
  };
  for (const key of ["orders", "trades", "memory", "llm", "timings"]) walk(key, r[key], 0);
  return out;
}

/**
 * equity.csv's time, equity and benchmark columns (a plain split: the runner wrote it), one row
 * per bar result.json says was simulated. A file missing, a row that is not the runner's or a
 * count that differs is damage (RunReadError naming it), never drawn as a curve.
 */
export function readEquityCsv(dir: string, result: ResultFile): CurveColumns {
  const file = runFile(dir, "equity");
  // A run not finished (running, or killed) has simulated nothing it recorded yet.
  const bars = result.finishedAt === null ? null : result.period.bars;
  const times: number[] = [];
  const equity: number[] = [];
  const benchmark: number[] = [];
  const text = readTextOrNull(file);
  if (text === null) {
    if (bars === null || bars === 0) return { times, equity, benchmark };
    throw damagedRunFile(file, `is missing, though result.json says ${bars} bars were simulated`);
  }
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  const header = (lines[0] ?? "").split(",");
  const [ti, ei, bi] = ["time", "equity", "benchmark"].map((h) => header.indexOf(h)) as [
    number,
    number,
    number,
  ];
  if (ti < 0 || ei < 0) throw damagedRunFile(file, "has no time and equity columns");
  for (let k = 1; k < lines.length; k++) {
    const f = (lines[k] as string).split(",");
    const t = parseTimestamp(f[ti] ?? "");
    const e = csvNumber(f[ei]);
    const b = bi >= 0 ? csvNumber(f[bi]) : Number.NaN;
    if (f.length !== header.length || Number.isNaN(t) || e === null || b === null) {
      throw damagedRunFile(file, `has a malformed row at line ${k + 1}`);
    }
    times.push(t);
    equity.push(e);
    benchmark.push(b);
  }
  if (bars !== null && times.length !== bars) {
    throw damagedRunFile(
      file,
      `has ${times.length} rows, though result.json says ${bars} bars were simulated`,
    );
  }
  return { times, equity, benchmark };
}

/** A number as equity.csv writes one (String(x), "NaN" included), or null for anything else. */
function csvNumber(text: string | undefined): number | null {
  if (text === undefined || text === "") return null;
  const v = Number(text);
  return Number.isNaN(v) && text !== "NaN" ? null : v;
}

function readCsvTable(file: string): TableData {
  const text = readTextOrNull(file);
  if (text === null || text.trim() === "") return { columns: [], rows: [], total: 0 };
  const parsed = Papa.parse<string[]>(text.trim(), { header: false });
  const [columns = [], ...rows] = parsed.data;
  return { columns, rows, total: rows.length };
}

export interface RejectedOrder {
  time: string;
  id: string;
  symbol: string;
  side: string;
  type: string;
  reason: string;
}

/**
 * The rejected events of orders.jsonl: all counted and all handed to `mark` (time and symbol,
 * read without parsing the whole line), the first LIMITS.tableRows parsed for the table. From the
 * runner's lines when it gives them; otherwise from the file, where only lines that mention
 * "rejected" are looked at and a line that is not JSON (a killed run's last line) is skipped (the
 * other commands report damage).
 */
function readRejected(
  dir: string,
  given: RejectedLines | undefined,
  mark: (time: string, symbol: string) => void,
): { shown: RejectedOrder[]; total: number } {
  const out: RejectedOrder[] = [];
  // Whether the line was a rejected order (marked, and shown while the table has room).
  const take = (line: string): boolean => {
    if (out.length < LIMITS.tableRows) {
      const r = rejectedOrder(line);
      if (r === null) return false;
      out.push(r);
      mark(r.time, r.symbol);
    } else {
      // Past the table's rows only the marker's two fields are needed: a long run can reject
      // hundreds of thousands of orders, and parsing each whole line would dominate the page.
      if (!line.startsWith('{"event":"rejected"')) return false;
      const time = jsonField(line, TIME_FIELD);
      const symbol = jsonField(line, SYMBOL_FIELD);
      if (time === null || symbol === null) return false;
      mark(time, symbol);
    }
    return true;
  };
  if (given !== undefined) {
    for (let k = 0; k < given.total; k++) take(given.line(k));
    return { shown: out, total: given.total };
  }
  // Read from orders.jsonl: the lines that are rejected orders are counted here.
  let total = 0;
  const text = readTextOrNull(runFile(dir, "orders")) ?? "";
  for (let at = text.indexOf('"rejected"'); at >= 0; at = text.indexOf('"rejected"', at + 1)) {
    const end = text.indexOf("\n", at);
    if (take(text.slice(text.lastIndexOf("\n", at) + 1, end < 0 ? text.length : end))) total++;
    if (end < 0) break;
    at = end;
  }
  return { shown: out, total };
}

const TIME_FIELD = /"time":("(?:[^"\\]|\\.)*")/;
const SYMBOL_FIELD = /"symbol":("(?:[^"\\]|\\.)*")/;

/** A string field (TIME_FIELD, SYMBOL_FIELD) of a JSON line as JSON.stringify wrote it, or null. */
function jsonField(line: string, field: RegExp): string | null {
  const m = field.exec(line);
  if (m === null) return null;
  try {
    return JSON.parse(m[1] as string) as string;
  } catch {
    return null;
  }
}

/** An orders.jsonl line as a rejected order, or null when it is not JSON or not a rejection. */
function rejectedOrder(line: string): RejectedOrder | null {
  const s = (v: unknown) => (v === null || v === undefined ? "" : String(v));
  let l: unknown;
  try {
    l = JSON.parse(line);
  } catch {
    return null;
  }
  if (!isRec(l) || l.event !== "rejected") return null;
  return {
    time: s(l.time),
    id: s(l.id),
    symbol: s(l.symbol),
    side: s(l.side),
    type: s(l.type),
    reason: s(l.reason),
  };
}

/** The marker kinds, in MARKER_STYLES' order: ▲ buy or cover, ▼ sell or short, ● rejected. */
export const MARKER_KIND = { up: 0, down: 1, rejected: 2 } as const;
export type MarkerKind = (typeof MARKER_KIND)[keyof typeof MARKER_KIND];

/** How each kind is drawn (lightweight-charts' marker fields). */
export const MARKER_STYLES = [
  { position: "belowBar", shape: "arrowUp", color: "#1a9850" },
  { position: "aboveBar", shape: "arrowDown", color: "#d73027" },
  { position: "aboveBar", shape: "circle", color: "#f28e2b" },
] as const;

/**
 * The events of one kind on one candle: `n` of them, labelled when there is one. The page merges
 * markers that would overlap at the current zoom and labels a merged one with its count.
 */
export interface Marker {
  /** The candle's index in `candles`. */
  i: number;
  k: MarkerKind;
  n: number;
  /** The one event's label ("buy 10 @ 101.5"); empty when n > 1. */
  x: string;
}

export interface SymbolChart {
  symbol: string;
  candles: Candles;
  /** By candle, then kind. */
  markers: Marker[];
  /** Every trade entry, exit and rejected order marked (the sum of the markers' n). */
  events: number;
  lines: TradeLines;
  /** The indicators the strategy created for this symbol, one value per candle. */
  overlays: Overlay[];
}

/** An indicator line: its label ("sma period=10"), its value at each candle's last bar (null
 * before it is defined), and whether it is drawn on the price scale (a moving average) or in a
 * pane of its own (an oscillator). */
export interface Overlay {
  label: string;
  v: (number | null)[];
  onPrice: boolean;
}

/** Indicators in price units, drawn over the candles; the others get a pane below. */
const ON_PRICE = new Set(["sma", "ema", "wma", "bbands", "highest", "lowest"]);

/** A line from each trade's entry to its exit (to the last bar's mark when still open), in
 * columns: candle index and price at each end, and whether the trade won (P/L > 0). */
export interface TradeLines {
  a: number[];
  ap: number[];
  b: number[];
  bp: number[];
  win: (0 | 1)[];
  /** The symbol's trades, drawn or not (only the first LIMITS.tradeLines are). */
  total: number;
}

/**
 * indicators.json's entries; none for a run made before it was written (or an LLM run). A file
 * that is not the runner's is damage (RunReadError naming it).
 */
function readIndicatorUses(dir: string): IndicatorUse[] {
  const file = runFile(dir, "indicators");
  const text = readTextOrNull(file);
  if (text === null) return [];
  let list: unknown;
  try {
    list = JSON.parse(text);
  } catch {
    throw damagedRunFile(file, "is not JSON");
  }
  const ok = (u: unknown): u is IndicatorUse =>
    isRec(u) &&
    typeof u.symbol === "string" &&
    typeof u.name === "string" &&
    typeof u.output === "string" &&
    isRec(u.params) &&
    Object.values(u.params).every((v) => typeof v === "number");
  if (!Array.isArray(list) || !list.every(ok)) {
    throw damagedRunFile(file, "is not a list of indicators (symbol, name, params, output)");
  }
  return list;
}

/** Each candle's value of an indicator: the value at the candle's last bar, null where NaN. */
function overlay(
  s: SymbolSeries,
  use: IndicatorUse,
  from: number,
  to: number,
  per: number,
): Overlay | null {
  let values: Float64Array | undefined;
  try {
    values = computeIndicator(s, use.name, use.params).outputs[use.output];
  } catch {
    // A catalogue that changed since the run: the chart goes without this line.
    return null;
  }
  if (values === undefined) return null;
  const v: (number | null)[] = [];
  for (let k = from; k < to; k += per) {
    const x = values[Math.min(to, k + per) - 1] as number;
    v.push(Number.isFinite(x) ? round8(x) : null);
  }
  const params = Object.entries(use.params)
    .map(([k, x]) => `${k}=${x}`)
    .join(" ");
  const output = use.output === "value" ? "" : ` ${use.output}`;
  return { label: `${use.name}${output} ${params}`.trim(), v, onPrice: ON_PRICE.has(use.name) };
}

/** Candles of every symbol over the run's window; trades and rejected orders are then marked. */
function priceCharts(
  window: ChartWindow,
  prices: PriceSource,
  trades: TableData,
  uses: readonly IndicatorUse[],
): {
  note: string | null;
  markRejected: (time: string, symbol: string) => void;
  finish: () => SymbolChart[];
} {
  if ("missing" in prices) {
    return { note: `No price chart: ${prices.missing}`, markRejected: () => {}, finish: () => [] };
  }
  const start = parseTimestamp(window.start ?? "");
  const end = parseTimestamp(window.end ?? "");
  const built = new Map<
    string,
    {
      candles: Candles;
      marks: Map<number, Marker>;
      events: number;
      symbol: string;
      lines: TradeLines;
      overlays: Overlay[];
    }
  >();
  for (const s of prices.series) {
    const from = Number.isNaN(start) ? 0 : lowerBound(s.time, start);
    const to = Number.isNaN(end) ? s.length : lowerBound(s.time, end + 1);
    const candles = aggregateCandles(s, from, to, LIMITS.candles);
    const overlays = uses
      .filter((u) => u.symbol === s.symbol)
      .map((u) => overlay(s, u, from, to, candles.per))
      .filter((o): o is Overlay => o !== null);
    built.set(s.symbol, {
      symbol: s.symbol,
      overlays,
      candles,
      marks: new Map(),
      events: 0,
      lines: { a: [], ap: [], b: [], bp: [], win: [], total: 0 },
    });
  }
  const mark = (symbol: string, label: string, k: MarkerKind, text: string) => {
    const b = built.get(symbol);
    const t = parseTimestamp(label);
    if (b === undefined || Number.isNaN(t) || b.candles.t.length === 0) return;
    const i = floorIndex(b.candles.t, t / 1000);
    const key = i * 3 + k;
    const m = b.marks.get(key);
    if (m === undefined) b.marks.set(key, { i, k, n: 1, x: text });
    else {
      m.n++;
      m.x = "";
    }
    b.events++;
  };
  const line = (
    symbol: string,
    entry = "",
    entryPrice = "",
    exit = "",
    exitPrice = "",
    pnl = "",
  ) => {
    const b = built.get(symbol);
    const t0 = parseTimestamp(entry);
    const t1 = parseTimestamp(exit);
    if (b === undefined || Number.isNaN(t0) || Number.isNaN(t1) || b.candles.t.length === 0) {
      return;
    }
    const l = b.lines;
    l.total++;
    if (l.total > LIMITS.tradeLines) return;
    l.a.push(floorIndex(b.candles.t, t0 / 1000));
    l.ap.push(round8(Number(entryPrice)));
    l.b.push(floorIndex(b.candles.t, t1 / 1000));
    l.bp.push(round8(Number(exitPrice)));
    l.win.push(Number(pnl) > 0 ? 1 : 0);
  };
  const col = (name: string) => trades.columns.indexOf(name);
  const [cSym, cSide, cQty, cIn, cInP, cOut, cOutP, cPnl, cOpen] = [
    "symbol",
    "side",
    "qty",
    "entry_time",
    "entry_price",
    "exit_time",
    "exit_price",
    "pnl",
    "open_at_end",
  ].map(col) as number[];
  for (const row of trades.rows) {
    const symbol = row[cSym ?? -1] ?? "";
    const long = row[cSide ?? -1] === "long";
    const qty = round(row[cQty ?? -1]);
    const { up, down } = MARKER_KIND;
    mark(
      symbol,
      row[cIn ?? -1] ?? "",
      long ? up : down,
      `${long ? "buy" : "short"} ${qty} @ ${round(row[cInP ?? -1])}`,
    );
    line(
      symbol,
      row[cIn ?? -1],
      row[cInP ?? -1],
      row[cOut ?? -1],
      row[cOutP ?? -1],
      row[cPnl ?? -1],
    );
    if (row[cOpen ?? -1] === "true") continue;
    mark(
      symbol,
      row[cOut ?? -1] ?? "",
      long ? down : up,
      `${long ? "sell" : "cover"} ${qty} @ ${round(row[cOutP ?? -1])}, P/L ${round(row[cPnl ?? -1])}`,
    );
  }
  return {
    note: null,
    markRejected: (time, symbol) => mark(symbol, time, MARKER_KIND.rejected, "rejected"),
    finish: () =>
      [...built.values()].map((b) => ({
        symbol: b.symbol,
        candles: b.candles,
        markers: [...b.marks.values()].sort((p, q) => p.i - q.i || p.k - q.k),
        events: b.events,
        lines: b.lines,
        overlays: b.overlays,
      })),
  };
}

const round = (v: string | undefined) => readableNumber(v ?? "");

function lowerBound(xs: SymbolSeries["time"], x: number): number {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((xs[mid] as number) < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
