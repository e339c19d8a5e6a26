import { asRunResult, type ResultFile } from "../../rundir/run-record.js";
import type { RunResult } from "../../rundir/run-result.js";
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
  lines.push("", formatSummary(shownResult(s)));
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

/**
 * result.json as the summary shows it: with the status `show` found (a `running` run whose
 * process is gone is interrupted), and, for a run stopped before it wrote its period, the bars
 * its last checkpoint reached in place of "no bar simulated".
 */
function shownResult(s: ShowOutput): RunResult {
  const r = asRunResult(s.result as ResultFile);
  // Printed as it is: `interrupted (process gone)` is not a status a result holds.
  const status = s.status as RunResult["status"];
  const reached = s.reached;
  if (reached === null) {
    if (r.status !== "running" || r.period.start !== null || status === "running")
      return { ...r, status };
    return {
      ...r,
      status,
      nullReasons: {
        ...r.nullReasons,
        metrics:
          "the run stopped before writing them, and before its first checkpoint: how far it got is not known",
      },
    };
  }
  // Results of old runners lack the requested window.
  const requested = (r.period.requested as RunResult["period"]["requested"] | undefined) ?? {
    start: null,
    end: null,
    bars: reached.bars,
  };
  return {
    ...r,
    status,
    period: { ...r.period, start: requested.start, end: reached.time, bars: reached.bars },
    nullReasons: {
      ...r.nullReasons,
      metrics: `the run stopped before writing them; its last checkpoint (${reached.savedAt}) was at ${reached.time}, bar ${reached.bars} of ${requested.bars}, and it may have gone further (agenticbt resume ${s.id} continues it)`,
    },
  };
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
