import { asRunResult, type ResultFile } from "../../report/run-record.js";
import type { ShowOutput } from "../../report/schemas.js";
import { formatSummary } from "../format-summary.js";
import { bytes, inline, WIDTH, wrap } from "./text-layout.js";

/** `show <run>`: settings, the summary table (as `run` prints it), memory, index and files. */
export function formatShow(s: ShowOutput): string {
  const lines = [`Run ${s.id}`, s.dir, ""];
  const labelWidth = Math.max(...s.highlights.map((h) => h.label.length)) + 2;
  for (const h of s.highlights) {
    const [first = "", ...rest] = wrap(h.value.split(", "), "", WIDTH - labelWidth);
    lines.push(`${h.label.padEnd(labelWidth)}${first}`);
    for (const r of rest) lines.push(`${"".padEnd(labelWidth)}${r}`);
  }
  lines.push("", formatSummary(asRunResult(s.result as ResultFile)));
  if (s.memory) {
    lines.push("", "Memory");
    lines.push(
      ...wrap(
        Object.entries(s.memory).map(([k, v]) => `${k} ${v}`),
        "  ",
      ),
    );
  }
  if (s.index !== null && s.index !== undefined) {
    lines.push("", "Recall index");
    const entries =
      typeof s.index === "object"
        ? Object.entries(s.index).map(([k, v]) => `${k} ${inline(v, 60)}`)
        : [inline(s.index, WIDTH - 2)];
    lines.push(...wrap(entries, "  "));
  }
  lines.push("", "Files");
  lines.push(
    ...wrap(
      s.files.map((f) =>
        f.kind === "dir" ? `${f.path} (${f.size} files)` : `${f.path} ${bytes(f.size)}`,
      ),
      "  ",
    ),
  );
  return lines.join("\n");
}
