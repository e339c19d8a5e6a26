import { type CompareOutput, compareRows } from "../compare-runs.js";
import { escapeHtml } from "./escape.js";
import { page, table } from "./page-parts.js";

/** `compare --html`: the comparison as one offline page (no script, no network). */
export function renderComparePage(c: CompareOutput): string {
  const columns = ["", ...c.runs.map((r) => `${r.id} (${r.memorySystem})`)];
  const body = [
    `<h1>${escapeHtml(`Compare ${c.runs.length} runs`)}</h1>`,
    `<p class="meta">${c.runs.map((r) => escapeHtml(r.dir)).join("<br>")}</p>`,
    ...compareRows(c)
      .filter((s) => s.rows.length > 0)
      .map(
        (s) =>
          `<h2>${escapeHtml(s.section)}</h2>\n${table(`compare-${s.section.toLowerCase()}`, columns, s.rows)}`,
      ),
  ].join("\n");
  return page(`agenticbt compare: ${c.runs.map((r) => r.id).join(", ")}`, body, "");
}
