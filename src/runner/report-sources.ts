import fs from "node:fs";
import path from "node:path";
import { attributionLine } from "../memory/attribution.js";
import { REPORTS_DIR } from "../memory/memory-layout.js";
import type { MemorySeed } from "../memory/workspace.js";
import { COMPARED_METRICS, formatMetric, metricFormat } from "../metrics/metric-labels.js";
import { runIdentity } from "../report/compare-facts.js";
import { labelTime } from "../report/decisions-at.js";
import { numberAt, type ResultFile, readResult } from "../rundir/run-record.js";
import { isErrnoCode } from "../util/errno.js";
import { lstatOrNull, readFileNoFollow, refuseSymlink } from "../util/no-follow.js";

// Backtest reports as memory (`--recall-sources reports`): a summary of each finished run, put in
// the new run's reports/ before its first bar. Each is attributed to the end of its run's period,
// so recall (which returns nothing dated after the simulated now) finds a report only once the
// simulated time has passed the end of the window it covers.

/**
 * The report summaries of every finished run in `runsRoot` (not running, with a period), one
 * seed `reports/<id>.md` each, in id order. A run directory that is a link, or whose result.json
 * cannot be read, is skipped: it is no report.
 */
export function readReportSeeds(runsRoot: string): MemorySeed[] {
  let names: string[];
  try {
    names = fs.readdirSync(runsRoot).sort();
  } catch (err) {
    if (isErrnoCode(err, "ENOENT")) return [];
    throw err;
  }
  const seeds: MemorySeed[] = [];
  for (const name of names) {
    const dir = path.join(runsRoot, name);
    const st = lstatOrNull(dir);
    if (st === null || !st.isDirectory()) continue;
    let result: ResultFile;
    try {
      result = readResult(dir);
    } catch {
      continue;
    }
    const text = reportSummary(result);
    if (text !== null) seeds.push({ path: `${REPORTS_DIR}/${name}.md`, data: Buffer.from(text) });
  }
  return seeds;
}

/** A replay reads the reports the recorded run read, not the runs root as it is now. */
export function readRecordedReportSeeds(recordedRun: string): MemorySeed[] {
  const dir = path.join(recordedRun, REPORTS_DIR);
  refuseSymlink(dir);
  let names: string[];
  try {
    names = fs.readdirSync(dir).sort();
  } catch (err) {
    if (isErrnoCode(err, "ENOENT")) return [];
    throw err;
  }
  const seeds: MemorySeed[] = [];
  for (const name of names.filter((n) => n.endsWith(".md"))) {
    const data = readFileNoFollow(path.join(dir, name));
    if (data !== null) seeds.push({ path: `${REPORTS_DIR}/${name}`, data });
  }
  return seeds;
}

/**
 * One run's report as a memory file: attributed to its period's end, then what it was (strategy,
 * parameters, model, data, memory system), its window and status, and the figures compare shows.
 * null for a run still running or that simulated no bar.
 */
export function reportSummary(r: ResultFile): string | null {
  if (r.status === "running" || r.period.start === null || r.period.end === null) return null;
  const id = runIdentity(r);
  const system = (r as { memorySystem?: unknown }).memorySystem;
  const figures = COMPARED_METRICS.map(
    (k) => `${metricFormat(k).label} ${formatMetric(k, numberAt(r.metrics, k))}`,
  );
  const lines = [
    attributionLine(labelTime(r.period.end), r.id),
    `# Backtest report ${r.id}`,
    "",
    `- strategy: ${id.strategy}${id.params === null ? "" : ` (${id.params})`}`,
    ...(id.model === null ? [] : [`- model: ${id.model}`]),
    `- data: ${id.data}`,
    `- window: ${r.period.start} .. ${r.period.end} (${r.period.bars} bars)`,
    `- memory: ${typeof system === "string" ? system : "files"}`,
    `- status: ${r.status}`,
    `- results: ${figures.join("; ")}`,
  ];
  return `${lines.join("\n")}\n`;
}
