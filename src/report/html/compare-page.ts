import { readResult } from "../../rundir/run-record.js";
import { type CompareOutput, compareRows } from "../compare-runs.js";
import { escapeHtml } from "./escape.js";
import { type OverlayLine, overlayChart } from "./overlay-chart.js";
import { page, table } from "./page-parts.js";
import { readEquityCsv } from "./report-model.js";

/** `compare --html`: the comparison as one offline page (no script, no network). */
export function renderComparePage(c: CompareOutput): string {
  const columns = ["", ...c.runs.map((r) => `${r.id} (${r.memorySystem})`)];
  const lines: OverlayLine[] = c.runs.map((r) => {
    const curve = readEquityCsv(r.dir, readResult(r.dir));
    return { label: `${r.id} (${r.memorySystem})`, times: curve.times, values: curve.equity };
  });
  const chart = overlayChart(lines, "Equity of every run");
  const body = [
    `<h1>${escapeHtml(`Compare ${c.runs.length} runs`)}</h1>`,
    `<p class="meta">${c.runs.map((r) => escapeHtml(r.dir)).join("<br>")}</p>`,
    ...c.warnings.map((w) => `<p class="note">${escapeHtml(`Warning: ${w}`)}</p>`),
    ...(chart === "" ? [] : ["<h2>Equity</h2>", chart]),
    ...compareRows(c)
      .filter((s) => s.rows.length > 0)
      .map(
        (s) =>
          `<h2>${escapeHtml(s.section)}</h2>\n${table(`compare-${slug(s.section)}`, columns, s.rows)}`,
      ),
  ].join("\n");
  return page(`agenticbt compare: ${c.runs.map((r) => r.id).join(", ")}`, body, "");
}

const slug = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");
