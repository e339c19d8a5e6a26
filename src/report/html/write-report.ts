import path from "node:path";
import { RUN_FILE } from "../../rundir/layout.js";
import type { DiffOutput } from "../../rundir/schemas.js";
import { writeFileAtomic } from "../../util/atomic-write.js";
import { renderDiffPage } from "./diff-page.js";
import { buildReportModel, type ReportInputs } from "./report-model.js";
import { renderRunPage } from "./run-page.js";

const REPORT_FILE = RUN_FILE.report;

export interface WrittenReport {
  file: string;
  bytes: number;
  ms: number;
}

/** Writes a run's report.html (or `out`) atomically from its directory; returns size and time. */
export function writeRunReport(
  dir: string,
  inputs: ReportInputs = {},
  out: string = path.join(dir, REPORT_FILE),
): WrittenReport {
  const t0 = performance.now();
  const html = renderRunPage(buildReportModel(dir, inputs));
  const bytes = Buffer.from(html, "utf8");
  writeFileAtomic(out, bytes);
  return { file: out, bytes: bytes.length, ms: Math.round((performance.now() - t0) * 10) / 10 };
}

/** `diff --html`: the page of a `diffRuns` result (what the text shows), written atomically. */
export function writeDiffPage(diff: DiffOutput, out: string): WrittenReport {
  const t0 = performance.now();
  const bytes = Buffer.from(renderDiffPage(diff), "utf8");
  writeFileAtomic(out, bytes);
  return { file: out, bytes: bytes.length, ms: Math.round((performance.now() - t0) * 10) / 10 };
}
