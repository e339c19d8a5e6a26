import { type CompareOutput, compareRows } from "../../report/compare-runs.js";
import { formatValue } from "../../report/html/page-parts.js";
import { shortIds } from "./format-list.js";
import { pad, textWidth } from "./text-layout.js";

/** `compare` as text: one column per run, one row per field, sections in between. */
export function formatCompare(c: CompareOutput): string {
  // Each run by its shortest unique prefix (its start to the second at least), as `list` shows
  // it: three full ids made lines of 130 characters. --json has the full ids.
  const header = ["", ...shortIds(c.runs.map((r) => r.id))];
  const lines: string[][] = [header];
  const sections = compareRows(c);
  const breaks = new Set<number>();
  for (const s of sections) {
    if (s.rows.length === 0) continue;
    breaks.add(lines.length);
    lines.push([`${s.section}:`, ...c.runs.map(() => "")]);
    for (const [label, ...values] of s.rows) {
      lines.push([`  ${label}`, ...values.map((v) => formatValue(v))]);
    }
  }
  const widths = header.map((_, i) => Math.max(...lines.map((l) => textWidth(l[i] ?? ""))));
  const table = lines
    .map((l, n) =>
      l
        .map((v, i) => pad(v, widths[i] ?? 0, i === 0 || breaks.has(n) ? "left" : "right"))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
  // Said first: the figures below are not like for like.
  return [...c.warnings.map((w) => `warning: ${w}`), table].join("\n");
}
