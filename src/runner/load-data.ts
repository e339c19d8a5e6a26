import { type LoadCsvOptions, loadCsv } from "../data/load-csv.js";
import { parseTimestamp, TIMESTAMP_FORMATS } from "../data/parse-timestamp.js";
import { alignSeries } from "../engine/align-series.js";
import { isIntraday, timeLabel } from "../engine/calendar.js";
import { seriesHead } from "../engine/series-head.js";
import type { MarketData, SymbolSeries } from "../engine/types.js";
import { UsageError } from "../errors/run-errors.js";
import type { DataFileInfo } from "../rundir/run-result.js";
import type { RunConfig } from "./run-config.js";

export interface LoadedData {
  data: MarketData;
  /** First master index inside the window; earlier bars are history for indicators only. */
  startIndex: number;
  dataInfo: DataFileInfo[];
  warnings: string[];
}

const DAY_MS = 86_400_000;

function parseBound(value: string, flag: string): { t: number; dateOnly: boolean } {
  const t = parseTimestamp(value.trim());
  if (Number.isNaN(t)) {
    throw new UsageError(
      `${flag} ${JSON.stringify(value)} is not a date. Use ${TIMESTAMP_FORMATS}.`,
    );
  }
  return { t, dateOnly: value.trim().length <= 10 };
}

/**
 * Loads and validates every data file (throwing a DataError, exit code 2, before anything is
 * simulated), cuts the data at `--to` so no later bar is even in memory, and aligns the symbols.
 */
export function loadData(
  config: Pick<
    RunConfig,
    "data" | "from" | "to" | "strict" | "tz" | "timeUnit" | "dateFormat" | "columns"
  >,
  /** Told the bytes of all the files parsed so far (files in order), as the parse goes. */
  onRead?: (bytes: number) => void,
): LoadedData {
  if (config.data.length === 0) throw new UsageError("No data: pass at least one --data <csv>.");
  const warnings: string[] = [];
  const from = config.from ? parseBound(config.from, "--from") : null;
  const to = config.to ? parseBound(config.to, "--to") : null;
  const toMs = to ? (to.dateOnly ? to.t + DAY_MS - 1 : to.t) : Number.POSITIVE_INFINITY;
  if (from && from.t > toMs)
    throw new UsageError(`--from ${config.from} is after --to ${config.to}.`);
  const series: SymbolSeries[] = [];
  const info: DataFileInfo[] = [];
  let before = 0;
  for (const spec of config.data) {
    const opts: LoadCsvOptions = { strict: config.strict };
    let fileBytes = 0;
    if (onRead) {
      const base = before;
      opts.onRead = (bytes) => {
        fileBytes = bytes;
        onRead(base + bytes);
      };
    }
    if (spec.symbol) opts.symbol = spec.symbol;
    if (config.tz) opts.tz = config.tz;
    if (config.timeUnit) opts.timeUnit = config.timeUnit;
    if (config.dateFormat) opts.dateFormat = config.dateFormat;
    if (config.columns) opts.columns = config.columns;
    const loaded = loadCsv(spec.file, opts);
    before += fileBytes;
    warnings.push(...loaded.warnings);
    const s = cutAfter(loaded.series, toMs);
    const intraday = isIntraday(s.time);
    series.push(s);
    info.push({
      symbol: s.symbol,
      file: spec.file,
      sha256: loaded.sha256,
      bars: s.length,
      first: s.length ? timeLabel(s.time[0] as number, intraday) : null,
      last: s.length ? timeLabel(s.time[s.length - 1] as number, intraday) : null,
    });
  }
  let data: MarketData;
  try {
    data = alignSeries(series);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  let startIndex = 0;
  if (from) {
    while (startIndex < data.times.length && (data.times[startIndex] as number) < from.t)
      startIndex++;
  }
  if (startIndex >= data.times.length) {
    throw new UsageError(
      `No bars between --from ${config.from ?? "(start)"} and --to ${config.to ?? "(end)"}: check the window against the data's dates.`,
    );
  }
  const ranges = rangeWarning(data, startIndex);
  if (ranges !== null) warnings.push(ranges);
  return { data, startIndex, dataInfo: info, warnings };
}

/** Names the symbols that start after the window's first bar or end before the timeline's last
 * one, with their dates, or null when every symbol covers the whole window. */
function rangeWarning(data: MarketData, startIndex: number): string | null {
  const intraday = isIntraday(data.times);
  const label = (t: number) => timeLabel(t, intraday);
  const first = data.times[startIndex] as number;
  const last = data.times[data.times.length - 1] as number;
  const late: [string, string][] = [];
  const early: [string, string][] = [];
  for (const s of data.series) {
    const a = s.time[0];
    const b = s.time[s.length - 1];
    if (a === undefined || b === undefined) {
      early.push([s.symbol, "no bars"]);
      continue;
    }
    if (a > first) late.push([s.symbol, label(a)]);
    if (b < last) early.push([s.symbol, label(b)]);
  }
  if (late.length === 0 && early.length === 0) return null;
  const list = (xs: [string, string][], one: string, many: string) =>
    `${xs.map((x) => x[0]).join(", ")} ${xs.length === 1 ? one : many} (${xs.map((x) => x[1]).join(", ")})`;
  const parts: string[] = [];
  if (late.length) parts.push(list(late, "starts late", "start late"));
  if (early.length) {
    parts.push(
      `${list(early, "ends early", "end early")}: ${early.length === 1 ? "its" : "their"} orders are cancelled and ${early.length === 1 ? "its position is" : "positions are"} closed at ${early.length === 1 ? "its" : "their"} last close (data_ended)`,
    );
  }
  return `Symbols cover different ranges (timeline ${label(first)} → ${label(last)}): ${parts.join("; ")}.`;
}

function cutAfter(s: SymbolSeries, toMs: number): SymbolSeries {
  if (!Number.isFinite(toMs)) return s;
  let n = s.length;
  while (n > 0 && (s.time[n - 1] as number) > toMs) n--;
  return n === s.length ? s : seriesHead(s, n);
}
