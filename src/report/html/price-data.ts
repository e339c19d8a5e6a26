import fs from "node:fs";
import path from "node:path";
import type { ColumnMapping } from "../../data/columns.js";
import { type LoadCsvOptions, loadCsv } from "../../data/load-csv.js";
import type { SymbolSeries } from "../../engine/types.js";
import type { ResultFile } from "../../rundir/run-record.js";

/** The run's price series, or why the page shows the equity curve without candles. */
export type PriceSource = { series: readonly SymbolSeries[] } | { missing: string };

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => v !== null && typeof v === "object" && !Array.isArray(v);

/**
 * Re-reads the run's data files through the project's loader, with the options the run used, and
 * keeps them only if every file's sha256 still matches the one result.json recorded: a changed
 * file would draw candles the run never saw.
 */
export function loadRunPrices(dir: string, result: ResultFile, config: Rec): PriceSource {
  const specs = Array.isArray(config.data) ? config.data.filter(isRec) : [];
  if (specs.length === 0 || specs.length !== result.data.length) {
    return { missing: "config.json does not list the run's data files." };
  }
  const series: SymbolSeries[] = [];
  for (const [i, spec] of specs.entries()) {
    const info = result.data[i] as Rec;
    const file = typeof spec.file === "string" ? spec.file : null;
    const sha = typeof info.sha256 === "string" ? info.sha256 : null;
    if (file === null || sha === null)
      return { missing: "result.json lacks a data file's sha256." };
    // Relative paths were relative to where the run was started, usually the runs root's project.
    const candidates = path.isAbsolute(file)
      ? [file]
      : [path.resolve(file), path.resolve(dir, "..", "..", "..", file)];
    const found = candidates.find((f) => fs.existsSync(f));
    if (found === undefined) return { missing: `the data file ${file} no longer exists.` };
    try {
      const opts: LoadCsvOptions & { symbol: string } = {
        symbol: String(info.symbol),
        strict: config.strict === true,
      };
      if (typeof config.tz === "string") opts.tz = config.tz;
      if (config.timeUnit === "s" || config.timeUnit === "ms") opts.timeUnit = config.timeUnit;
      if (typeof config.dateFormat === "string") opts.dateFormat = config.dateFormat;
      if (config.columns && typeof config.columns === "object")
        opts.columns = config.columns as ColumnMapping;
      const loaded = loadCsv(found, opts);
      if (loaded.sha256 !== sha) {
        return { missing: `the data file ${file} changed since the run (sha256 differs).` };
      }
      series.push(loaded.series);
    } catch (err) {
      return { missing: `the data file ${file} cannot be read: ${(err as Error).message}` };
    }
  }
  return { series };
}
