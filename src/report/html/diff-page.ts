import { metricFormat } from "../../metrics/metric-labels.js";
import { readResult } from "../../rundir/run-record.js";
import { chartLibrarySource } from "./chart-library.js";
import { CLIENT_DIFF_SCRIPT } from "./client-diff-script.js";
import { escapeHtml as h, jsonScript } from "./escape.js";
import { cell, page } from "./page-parts.js";
import { curveSeries, metricRows, readEquityCsv } from "./report-model.js";

/** `diff --html`: both runs' equity curves on one chart and every metric side by side. */
export function renderDiffPage(dirA: string, dirB: string): string {
  const ra = readResult(dirA);
  const rb = readResult(dirB);
  const ca = curveSeries(readEquityCsv(dirA, ra));
  const cb = curveSeries(readEquityCsv(dirB, rb));
  const ma = new Map(metricRows(ra).map((x) => [x.key, x.strategy]));
  const mb = new Map(metricRows(rb).map((x) => [x.key, x.strategy]));
  const rows = [...new Set([...ma.keys(), ...mb.keys()])].map((key) => {
    const a = ma.get(key) ?? null;
    const b = mb.get(key) ?? null;
    const delta = typeof a === "number" && typeof b === "number" ? b - a : null;
    return `<tr data-key="${h(key)}"><td title="result.json: ${h(key)}">${h(metricFormat(key).label)}</td>${cell(a)}${cell(b)}${cell(delta)}</tr>`;
  });
  const intraday = /\d\d:\d\d/.test(ra.period.start ?? "");
  const body = `<h1>A: ${h(ra.strategy.name)} vs B: ${h(rb.strategy.name)}</h1>
<p class="meta">A <b id="run-a">${h(ra.id)}</b> (${h(ra.period.start ?? "?")} → ${h(ra.period.end ?? "?")}, ${h(ra.status)})<br>
B <b id="run-b">${h(rb.id)}</b> (${h(rb.period.start ?? "?")} → ${h(rb.period.end ?? "?")}, ${h(rb.status)})</p>
<section id="equity"><h2>Equity, and drawdown</h2><div class="chart" id="chart-equity"></div></section>
<section id="metrics"><h2>Metrics</h2><div class="scroll"><table id="metrics-table"><thead><tr><th>metric</th><th>A</th><th>B</th><th>B − A</th></tr></thead><tbody>
${rows.join("\n")}
</tbody></table></div></section>`;
  const data = { intraday, a: ca, b: cb };
  const scripts = [
    jsonScript("report-data", data),
    `<script>${chartLibrarySource()}</script>`,
    `<script>${CLIENT_DIFF_SCRIPT}</script>`,
  ].join("\n");
  return page(`diff ${ra.id} ${rb.id} · agenticbt`, body, scripts);
}
