import { asRunResult, type ResultFile } from "../../rundir/run-record.js";
import type { RecallHealthView, ShowOutput } from "../../rundir/schemas.js";
import { keyWords } from "../../util/key-words.js";
import { formatSummary } from "../format-summary.js";
import { bytes, pad, textWidth, WIDTH, wrap } from "./text-layout.js";

/** `show <run>`: settings, the summary table (as `run` prints it), memory, index and files. */
export function formatShow(s: ShowOutput): string {
  const lines = [`Run ${s.id}`, s.dir, ""];
  const labelWidth = Math.max(...s.highlights.map((h) => textWidth(h.label))) + 2;
  for (const h of s.highlights) {
    const [first = "", ...rest] = wrap(h.value.split(", "), "", WIDTH - labelWidth);
    lines.push(`${pad(h.label, labelWidth)}${first}`);
    for (const r of rest) lines.push(`${"".padEnd(labelWidth)}${r}`);
  }
  lines.push("", formatSummary(asRunResult(s.result as ResultFile)));
  if (s.memory) {
    lines.push("", "Memory");
    lines.push(
      ...wrap(
        Object.entries(s.memory).map(([k, v]) => `${keyWords(k)} ${v}`),
        "  ",
      ),
    );
  }
  if (s.index !== null) lines.push("", `Index   ${formatIndex(s.index)}`);
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

/** The recall index's health on one line: files, chunks, last sync, errors (and embeddings). */
export function formatIndex(h: RecallHealthView): string {
  const sync = h.lastSync === null ? "never synced" : `last sync ${h.lastSync}`;
  const errors = `${h.errors.length} error${h.errors.length === 1 ? "" : "s"}`;
  const vectors = h.embeddings
    ? `, embeddings ${h.embeddings.model} (${h.embeddings.vectors} vectors)`
    : "";
  return `${h.files} files, ${h.chunks} chunks, ${sync}, ${errors}${vectors}`;
}
