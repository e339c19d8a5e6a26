import { EXPERIMENT_METRIC_NAMES, EXPERIMENT_METRICS } from "../../metrics/experiment/metrics.js";
import type { Figure } from "../../metrics/figure.js";
import { escapeHtml, jsonScript } from "../../report/html/escape.js";
import { writeFileAtomic } from "../../util/atomic-write.js";
import { usdText } from "../../util/usd-text.js";
import { sweepFile } from "../sweep-layout.js";
import type { ExperimentConfig, ExperimentResultLine } from "./experiment-dir.js";
import { cellLabel, windowLabel } from "./experiment-plan.js";
import { deflatedSharpeLine, type ExperimentSummary } from "./experiment-summary.js";

// report.html of an LLM experiment: offline, static tables (no script needed to read it): each
// cell's statistics, each cell against its baseline in words, buy-and-hold per window, every run.

const num = (f: Figure, digits = 2) => (f.value === null ? "n/a" : f.value.toFixed(digits));
const cellOf = (v: unknown) => `<td>${escapeHtml(v)}</td>`;

/** A run's bill: "unknown" when its model's price is (never $0.0000), "" for no call made. */
function runCost(l: ExperimentResultLine): string {
  if (l.calls.network === 0) return l.metrics.costUsd === null ? "" : usdText(l.metrics.costUsd);
  return usdText(l.metrics.costUsd);
}

function experimentPage(
  config: ExperimentConfig,
  lines: readonly ExperimentResultLine[],
  s: ExperimentSummary,
): string {
  const statsHead = EXPERIMENT_METRIC_NAMES.map(
    (m) => `<th>${escapeHtml(EXPERIMENT_METRICS[m].label)} mean [95% CI] (SD; min..max; n)</th>`,
  ).join("");
  const statsRows = s.cells
    .map((c) => {
      const figures = EXPERIMENT_METRIC_NAMES.map((m) => {
        const f = c.metrics[m];
        const ci = f.ci.interval;
        const band = ci.low === null ? "" : ` [${ci.low.toFixed(2)}, ${ci.high.toFixed(2)}]`;
        // Runs without a bill: their model's price is unknown, which n/a would not say.
        if (m === "costUsd" && f.mean.value === null && c.runs > 0) return cellOf("unknown");
        return cellOf(`${num(f.mean)}${band} (${num(f.sd)}; ${num(f.min)}..${num(f.max)}; ${f.n})`);
      }).join("");
      return `<tr>${cellOf(c.label)}${cellOf(c.runs)}${figures}</tr>`;
    })
    .join("\n");
  const sentences = s.sentences.length
    ? `<ul>${s.sentences.map((x) => `<li>${escapeHtml(x)}</li>`).join("")}</ul>`
    : "<p>No baseline: add memory=none to the memory axis to compare every cell with no memory.</p>";
  const bh = s.buyAndHold
    .map(
      (b) =>
        `<tr>${cellOf(b.window)}${cellOf(b.returnPct === null ? "n/a" : b.returnPct.toFixed(2))}</tr>`,
    )
    .join("\n");
  const runs = lines
    .map((l) => {
      const c = config.cells[l.cell];
      const w = config.windows[l.window];
      return `<tr>${[
        l.key,
        c ? cellLabel(c.settings) : l.cell,
        w ? windowLabel(w) : l.window,
        l.repeat,
        l.seed,
        l.runId,
        l.status,
        l.metrics.returnPct === null ? "n/a" : l.metrics.returnPct.toFixed(2),
        runCost(l),
        l.error ?? "",
      ]
        .map(cellOf)
        .join("")}</tr>`;
    })
    .join("\n");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(`Experiment ${s.name}`)}</title>
<style>body{font:14px system-ui,sans-serif;margin:2em}table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:4px 8px;text-align:left}</style>
</head><body>
<h1>${escapeHtml(`Experiment ${s.name}`)}</h1>
<p>${escapeHtml(`${s.status}: ${s.done} of ${s.total} runs, ${s.failed} failed; ${config.cells.length} cells × ${config.windows.length} windows × ${config.repeats} repeats. Bootstrap: ${s.bootstrap.resamples} resamples, seed ${s.bootstrap.seed}.`)}</p>
<p id="spent">${escapeHtml(`Spent ${usdText(s.budget.spentUsd)}${s.budget.spentUsd === null ? " (a model's price is unknown: --prices-file)" : ""}${s.budget.usd === null ? "" : ` of --budget-usd ${s.budget.usd}`}.`)}</p>
<h2>Against the baseline</h2>
${sentences}
${
  s.codeBaseline === null
    ? ""
    : `<h2>Against ${escapeHtml(s.codeBaseline.label)}</h2>
<p>Each cell's repeats averaged per window, paired with the code strategy's run on that window.</p>
<ul>${s.codeBaseline.sentences.map((x) => `<li>${escapeHtml(x)}</li>`).join("")}</ul>`
}
<p id="deflated-sharpe">${escapeHtml(deflatedSharpeLine(s.deflatedSharpe))}</p>
<h2>Cells</h2>
<table id="cells"><tr><th>Cell</th><th>Runs</th>${statsHead}</tr>
${statsRows}
</table>
<h2>Buy and hold</h2>
<table id="buy-and-hold"><tr><th>Window</th><th>Return %</th></tr>
${bh}
</table>
<h2>Runs</h2>
<table id="runs"><tr><th>Key</th><th>Cell</th><th>Window</th><th>Repeat</th><th>Seed</th><th>Run</th><th>Status</th><th>Return %</th><th>$</th><th>Error</th></tr>
${runs}
</table>
${jsonScript("summary", s)}
</body></html>
`;
}

export function writeExperimentPage(
  dir: string,
  config: ExperimentConfig,
  lines: readonly ExperimentResultLine[],
  summary: ExperimentSummary,
): void {
  writeFileAtomic(sweepFile(dir, "report"), experimentPage(config, lines, summary));
}
