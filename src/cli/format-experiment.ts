import { EXPERIMENT_METRICS } from "../metrics/experiment/metrics.js";
import {
  deflatedSharpeLine,
  type ExperimentSummary,
} from "../sweep/experiment/experiment-summary.js";
import { sweepFile } from "../sweep/sweep-layout.js";
import { usdText } from "../util/usd-text.js";
import { type Column, fixed, table, WIDTH, wrap } from "./commands/text-layout.js";
import { relativeIfInside } from "./format-run-error.js";

/** Prose fitted to `width` (continuation lines indented); a pipe gets each on one line. */
function prose(text: string, width: number | null): string[] {
  if (width === null) return [text];
  const [first = "", ...rest] = wrap(text.split(" "), "", width, " ");
  return [first, ...wrap(rest.join(" ").split(" "), "  ", width, " ").filter((l) => l !== "")];
}

/**
 * An experiment's summary as `sweep` and `show` print it: each cell's runs and figures in a
 * table, then the comparisons in words, the DSR, the spend and buy-and-hold. `width`: the
 * terminal's columns (the table fits them, the prose wraps), or null for a pipe (one line each).
 */
export function formatExperimentSummary(
  s: ExperimentSummary,
  dir: string,
  width: number | null = null,
): string {
  const metric = (c: ExperimentSummary["cells"][number], k: keyof typeof EXPERIMENT_METRICS) =>
    c.metrics[k];
  const rows = s.cells.map((c) => {
    const r = metric(c, "returnPct");
    const ci = r.ci.interval;
    const cost = metric(c, "costUsd").mean.value;
    const tokens = metric(c, "tokens").mean.value;
    return [
      c.label,
      String(c.runs),
      fixed(r.mean.value),
      ci.low === null ? "n/a" : `${fixed(ci.low)}..${fixed(ci.high)}`,
      fixed(r.sd.value),
      fixed(metric(c, "sharpe").mean.value),
      tokens === null ? "n/a" : String(Math.round(tokens)),
      // A cell with runs and no bill: its price is unknown (a code cell has no tokens either).
      cost === null && tokens !== null ? "unknown" : cost === null ? "n/a" : usdText(cost),
    ];
  });
  const columns: Column[] = [
    { header: "cell", align: "left", shrink: true },
    { header: "runs", align: "right" },
    { header: EXPERIMENT_METRICS.returnPct.label, align: "right" },
    { header: "95% CI", align: "right" },
    { header: "SD", align: "right" },
    { header: "Sharpe", align: "right" },
    { header: "tokens", align: "right" },
    { header: "$/run", align: "right" },
  ];
  const b = s.budget;
  const lines = [
    `Experiment ${s.id} (${s.status}): ${s.done} of ${s.total} runs, ${s.failed} failed`,
    table(columns, rows, width ?? WIDTH),
    // An experiment summarised by an earlier version has no DSR (nor a code baseline).
    ...[
      ...s.sentences,
      ...(s.codeBaseline?.sentences ?? []),
      ...(s.deflatedSharpe === undefined ? [] : [deflatedSharpeLine(s.deflatedSharpe)]),
    ].flatMap((t) => prose(t, width)),
    // Always said: an unknown price is "unknown", never left out nor $0.0000.
    `Spent ${b.spentUsd === null ? "unknown (a model's price is unknown: --prices)" : usdText(b.spentUsd)}${b.usd === null ? "" : ` of --budget-usd ${b.usd}`}`,
    ...(b.stopped === null ? [] : prose(`Runs left unstarted: ${b.stopped}.`, width)),
    ...prose(
      `Buy & hold: ${s.buyAndHold.map((h) => `${h.window} ${fixed(h.returnPct)}%`).join(", ")}`,
      width,
    ),
    relativeIfInside(dir) || ".",
    `Report ${relativeIfInside(sweepFile(dir, "report"))}`,
  ];
  return lines.join("\n");
}
