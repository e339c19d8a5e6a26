import Papa from "papaparse";
import { parseTimestamp } from "../../data/parse-timestamp.js";
import type { SymbolSeries } from "../../engine/types.js";
import { runFile } from "../../rundir/layout.js";
import { damagedRunFile, readTextOrNull } from "../../rundir/run-files.js";
import { type ResultFile, readConfig, readResult } from "../../rundir/run-record.js";
import type { DecisionView } from "../../rundir/schemas.js";
import { readDecisions } from "../decision-lines.js";
import { type CurveColumns, type CurveLines, curveSeries, LINE_POINTS } from "./curve-series.js";
import { aggregateCandles, type Candles, floorIndex } from "./downsample.js";
import { llmUsageOverTime, type UsagePoint } from "./llm-usage.js";
import { readableNumber } from "./page-parts.js";
import { loadRunPrices, type PriceSource } from "./price-data.js";

export { type CurveColumns, curveSeries };

/** Page budgets: enough to read every move, small enough for a million-bar run (see docs). */
export const LIMITS = {
  linePoints: LINE_POINTS,
  candles: 2000,
  tableRows: 2000,
  markers: 4000,
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
  const rejected = readRejected(dir, rejectedOrders);
  const { charts, note } = priceCharts(window, prices, trades, rejected.shown);
  return { trades, rejected, charts, pricesNote: note };
}

export interface Marker {
  t: number;
  position: "aboveBar" | "belowBar";
  shape: "arrowUp" | "arrowDown" | "circle";
  color: string;
  text: string;
}

export interface SymbolChart {
  symbol: string;
  candles: Candles;
  markers: Marker[];
  /** Markers dropped beyond LIMITS.markers. */
  markersDropped: number;
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
 * The rejected events of orders.jsonl: all counted, the first LIMITS.markers parsed (the page
 * shows no more). From the runner's lines when it gives them; otherwise from the file, where only
 * lines that mention "rejected" are looked at and a line that is not JSON (a killed run's last
 * line) is skipped (the other commands report damage).
 */
function readRejected(
  dir: string,
  given: RejectedLines | undefined,
): { shown: RejectedOrder[]; total: number } {
  const out: RejectedOrder[] = [];
  if (given !== undefined) {
    for (let k = 0; k < given.total && out.length < LIMITS.markers; k++) {
      const r = rejectedOrder(given.line(k));
      if (r !== null) out.push(r);
    }
    return { shown: out, total: given.total };
  }
  const text = readTextOrNull(runFile(dir, "orders")) ?? "";
  let total = 0;
  for (let at = text.indexOf('"rejected"'); at >= 0; at = text.indexOf('"rejected"', at + 1)) {
    const end = text.indexOf("\n", at);
    const r = rejectedOrder(
      text.slice(text.lastIndexOf("\n", at) + 1, end < 0 ? text.length : end),
    );
    if (r !== null) {
      total++;
      if (out.length < LIMITS.markers) out.push(r);
    }
    if (end < 0) break;
    at = end;
  }
  return { shown: out, total };
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

const GREEN = "#1a9850";
const RED = "#d73027";
const ORANGE = "#f28e2b";

/** Candles of every symbol over the run's window, with its trades and rejected orders marked. */
function priceCharts(
  window: ChartWindow,
  prices: PriceSource,
  trades: TableData,
  rejected: RejectedOrder[],
): { charts: SymbolChart[]; note: string | null } {
  if ("missing" in prices) {
    return { charts: [], note: `No price chart: ${prices.missing}` };
  }
  const start = parseTimestamp(window.start ?? "");
  const end = parseTimestamp(window.end ?? "");
  const col = (name: string) => trades.columns.indexOf(name);
  const [cSym, cSide, cQty, cIn, cInP, cOut, cOutP, cOpen] = [
    "symbol",
    "side",
    "qty",
    "entry_time",
    "entry_price",
    "exit_time",
    "exit_price",
    "open_at_end",
  ].map(col) as number[];
  const charts = prices.series.map((s) => {
    const from = Number.isNaN(start) ? 0 : lowerBound(s.time, start);
    const to = Number.isNaN(end) ? s.length : lowerBound(s.time, end + 1);
    const candles = aggregateCandles(s, from, to, LIMITS.candles);
    const markers: Marker[] = [];
    const at = (label: string) => {
      const t = parseTimestamp(label);
      return Number.isNaN(t) ? null : (candles.t[floorIndex(candles.t, t / 1000)] ?? null);
    };
    const add = (label: string, m: Omit<Marker, "t">) => {
      const t = at(label);
      if (t !== null) markers.push({ t, ...m });
    };
    for (const row of trades.rows) {
      if (row[cSym ?? -1] !== s.symbol) continue;
      const long = row[cSide ?? -1] === "long";
      const qty = round(row[cQty ?? -1]);
      add(row[cIn ?? -1] ?? "", {
        position: long ? "belowBar" : "aboveBar",
        shape: long ? "arrowUp" : "arrowDown",
        color: long ? GREEN : RED,
        text: `${long ? "buy" : "short"} ${qty} @ ${round(row[cInP ?? -1])}`,
      });
      if (row[cOpen ?? -1] === "true") continue;
      add(row[cOut ?? -1] ?? "", {
        position: long ? "aboveBar" : "belowBar",
        shape: long ? "arrowDown" : "arrowUp",
        color: long ? RED : GREEN,
        text: `${long ? "sell" : "cover"} ${qty} @ ${round(row[cOutP ?? -1])}`,
      });
    }
    for (const r of rejected) {
      if (r.symbol !== s.symbol) continue;
      add(r.time, {
        position: "aboveBar",
        shape: "circle",
        color: ORANGE,
        text: `rejected #${r.id}`,
      });
    }
    markers.sort((a, b) => a.t - b.t);
    // Past a few dozen, labels only cover each other: the shapes and colours stay.
    if (markers.length > LIMITS.labelledMarkers) for (const m of markers) m.text = "";
    return {
      symbol: s.symbol,
      candles,
      markers: markers.slice(0, LIMITS.markers),
      markersDropped: Math.max(0, markers.length - LIMITS.markers),
    };
  });
  return { charts, note: null };
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
