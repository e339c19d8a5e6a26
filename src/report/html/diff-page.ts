import { formatMetric, metricFormat } from "../../metrics/metric-labels.js";
import { readResult } from "../../rundir/run-record.js";
import type { DiffOutput, MemoryDiff, TradeKey } from "../../rundir/schemas.js";
import {
  explainDivergence,
  memoryCounts,
  shownDelta,
  tradeCounts,
  tradeReturn,
} from "../diff-wording.js";
import { chartLibrarySource } from "./chart-library.js";
import { CLIENT_DIFF_SCRIPT } from "./client-diff-script.js";
import { escapeHtml as h, jsonScript } from "./escape.js";
import { cell, cutNote, page } from "./page-parts.js";
import { curveSeries, metricRows, readEquityCsv } from "./report-model.js";

/** The sections, in the text diff's order, linked from the top of the page. */
const NAV = [
  ["config", "Config"],
  ["metrics", "Metrics"],
  ["playbook", "Playbook"],
  ["memory", "Notes and reviews"],
  ["journal", "Journal"],
  ["trades", "Trades"],
  ["policy", "Memory policy"],
  ["divergence", "First divergence"],
] as const;

/** Trades listed per run on the page; the rest are in that run's trades.csv. */
const MAX_PAGE_TRADES = 2_000;

// Long config values, memory file names and divergence descriptions wrap instead of widening the
// page; the change marks keep the text diff's signs.
const DIFF_STYLE = `<style>
table.wrap td{white-space:normal;word-break:break-word}
.add{color:#1b7a1b}.del{color:#b00020}.hunk{color:#6a3fb0}
#divergence-sentence{font-weight:600}
#config-table td:first-child{width:1.5em}
</style>`;

/**
 * `diff --html`: the `diffRuns` result the text and `--json` print (config, metrics, playbook,
 * memory, journal, trades found in one run only, memory policy, first divergence), with both
 * equity curves on one chart and every other metric of result.json below the compared ones.
 */
export function renderDiffPage(d: DiffOutput): string {
  const ra = readResult(d.a.dir);
  const rb = readResult(d.b.dir);
  const intraday = /\d\d:\d\d/.test(ra.period.start ?? "");
  const body = `${DIFF_STYLE}
<h1>A: ${h(ra.strategy.name)} vs B: ${h(rb.strategy.name)}</h1>
<p class="meta">A <b id="run-a">${h(d.a.id)}</b> (${h(ra.period.start ?? "?")} → ${h(ra.period.end ?? "?")}, ${h(ra.status)})<br>
B <b id="run-b">${h(d.b.id)}</b> (${h(rb.period.start ?? "?")} → ${h(rb.period.end ?? "?")}, ${h(rb.status)})</p>
<nav class="meta">${NAV.map(([id, label]) => `<a href="#${id}">${label}</a>`).join(" · ")}</nav>
<section id="equity"><h2>Equity, and drawdown</h2><div class="chart" id="chart-equity"></div></section>
${configSection(d.config)}
${metricsSection(d, ra, rb)}
${playbookSection(d.playbookDiff)}
<section id="memory"><h2>Notes and reviews</h2>
${memoryPart("notes", "Notes", d.notes)}
${memoryPart("reviews", "Reviews", d.reviews)}
</section>
${journalSection(d.journal)}
${tradesSection(d.trades)}
${policySection(d.policy)}
${divergenceSection(d)}`;
  const data = {
    intraday,
    a: curveSeries(readEquityCsv(d.a.dir, ra)),
    b: curveSeries(readEquityCsv(d.b.dir, rb)),
  };
  const scripts = [
    jsonScript("report-data", data),
    `<script>${chartLibrarySource()}</script>`,
    `<script>${CLIENT_DIFF_SCRIPT}</script>`,
  ].join("\n");
  return page(`diff ${d.a.id} ${d.b.id} · agenticbt`, body, scripts);
}

/** A config value as JSON (strings as written), in full: the page has room the text has not. */
function json(v: unknown): string {
  return typeof v === "string" ? v : (JSON.stringify(v) ?? "null");
}

/** A figure already formatted as the text prints it ("0.80", "n/a"): right-aligned, as it is. */
function shown(text: string): string {
  return `<td class="n">${h(text)}</td>`;
}

function configSection(c: DiffOutput["config"]): string {
  const row = (mark: string, change: string, key: string, a: string, b: string) =>
    `<tr data-key="${h(key)}" data-change="${change}"><td>${mark}</td><td>${h(key)}</td><td>${h(a)}</td><td>${h(b)}</td></tr>`;
  const rows = [
    ...c.changed.map((x) => row("~", "changed", x.key, json(x.a), json(x.b))),
    ...c.added.map((x) => row("+", "added", x.key, "", json(x.b))),
    ...c.removed.map((x) => row("−", "removed", x.key, json(x.a), "")),
  ];
  const content =
    rows.length === 0
      ? `<p id="config-identical">identical</p>`
      : `<div class="scroll"><table id="config-table" class="wrap"><thead><tr><th></th><th>key</th><th>A</th><th>B</th></tr></thead><tbody>
${rows.join("\n")}
</tbody></table></div>`;
  return `<section id="config"><h2>Config (A → B)</h2>${content}</section>`;
}

function metricsSection(d: DiffOutput, ...results: ReturnType<typeof readResult>[]): string {
  // The metrics the text compares, formatted as it formats them; then every other metric of
  // result.json, so the page loses nothing the run page would show.
  const compared = d.metrics.map(
    (m) =>
      `<tr data-key="${h(m.key)}"><td title="result.json: ${h(m.key)}">${h(metricFormat(m.key).label)}</td>${shown(formatMetric(m.key, m.a))}${shown(formatMetric(m.key, m.b))}${shown(shownDelta(m.key, m.a, m.b))}</tr>`,
  );
  const [ma, mb] = results.map((r) => new Map(metricRows(r).map((x) => [x.key, x.strategy])));
  const seen = new Set(d.metrics.map((m) => m.key));
  const rest = [...new Set([...(ma?.keys() ?? []), ...(mb?.keys() ?? [])])]
    .filter((key) => !seen.has(key))
    .map((key) => {
      const a = ma?.get(key) ?? null;
      const b = mb?.get(key) ?? null;
      const delta = typeof a === "number" && typeof b === "number" ? b - a : null;
      return `<tr data-key="${h(key)}"><td title="result.json: ${h(key)}">${h(metricFormat(key).label)}</td>${cell(a)}${cell(b)}${cell(delta)}</tr>`;
    });
  return `<section id="metrics"><h2>Metrics</h2><div class="scroll"><table id="metrics-table"><thead><tr><th>metric</th><th>A</th><th>B</th><th>B − A</th></tr></thead><tbody>
${[...compared, ...rest].join("\n")}
</tbody></table></div></section>`;
}

function playbookSection(diff: string): string {
  if (diff === "") return `<section id="playbook"><h2>Playbook</h2><p>identical</p></section>`;
  const lines = diff
    .trimEnd()
    .split("\n")
    .map((l) => {
      const kind = l.startsWith("@@")
        ? "hunk"
        : l.startsWith("+") && !l.startsWith("+++")
          ? "add"
          : l.startsWith("-") && !l.startsWith("---")
            ? "del"
            : "";
      return kind ? `<span class="${kind}">${h(l)}</span>` : h(l);
    });
  return `<section id="playbook"><h2>Playbook</h2><pre id="playbook-diff">${lines.join("\n")}</pre></section>`;
}

function memoryPart(id: string, title: string, m: MemoryDiff): string {
  const items = [
    ...m.added.map((f) => `<li class="add" data-change="added">+ ${h(f)}</li>`),
    ...m.changed.map((f) => `<li data-change="changed">~ ${h(f)}</li>`),
    ...m.removed.map((f) => `<li class="del" data-change="removed">− ${h(f)}</li>`),
  ];
  const list = items.length ? `<ul id="${id}-files">${items.join("")}</ul>` : "";
  return `<h3>${title}</h3><p id="${id}-counts">${h(memoryCounts(m))}</p>${list}`;
}

function journalSection(j: DiffOutput["journal"]): string {
  const rows: [string, unknown, unknown][] = [
    ["days", j.a.days, j.b.days],
    ["entries", j.a.entries, j.b.entries],
    ["words", j.a.words, j.b.words],
    ["words per day", j.a.wordsPerDay, j.b.wordsPerDay],
  ];
  const body = rows.map(([k, a, b]) => `<tr><td>${h(k)}</td>${cell(a)}${cell(b)}</tr>`);
  return `<section id="journal"><h2>Journal</h2><div class="scroll"><table id="journal-table"><thead><tr><th></th><th>A</th><th>B</th></tr></thead><tbody>
${body.join("\n")}
</tbody></table></div></section>`;
}

function tradesSection(t: DiffOutput["trades"]): string {
  const side = (name: "A" | "B", list: TradeKey[]) => {
    const listed = list.slice(0, MAX_PAGE_TRADES);
    const rows = listed.map(
      (x) =>
        `<tr><td>${h(x.symbol)}</td><td>${h(x.side)}</td>${cell(x.qty)}<td>${h(x.entryTime)}</td><td>${h(x.exitTime || "open")}</td>${shown(tradeReturn(x))}</tr>`,
    );
    const table = list.length
      ? `<div class="scroll"><table id="trades-only-${name.toLowerCase()}"><thead><tr><th>symbol</th><th>side</th><th>qty</th><th>entry</th><th>exit</th><th>return</th></tr></thead><tbody>
${rows.join("\n")}
</tbody></table></div>${cutNote(listed.length, list.length, `run ${name}'s trades.csv`)}`
      : "<p>none</p>";
    return `<div><h3>Only in ${name} (${list.length.toLocaleString("en-US")})</h3>${table}</div>`;
  };
  return `<section id="trades"><h2>Trades</h2><p id="trades-summary">${h(tradeCounts(t))}</p>
<div class="grid">${side("A", t.onlyA)}${side("B", t.onlyB)}</div></section>`;
}

function policySection(p: DiffOutput["policy"]): string {
  const title = "<h2>Memory policy changes (evolution, in force from the month shown)</h2>";
  if (p.a.length === 0 && p.b.length === 0) {
    return `<section id="policy">${title}<p>none in either run</p></section>`;
  }
  const rows = (["A", "B"] as const).flatMap((run) =>
    (run === "A" ? p.a : p.b).map(
      (c) =>
        `<tr><td>${run}</td><td>${h(c.effectiveFrom)}</td><td>${h(c.key)}</td><td>${h(json(c.before))}</td><td>${h(json(c.after))}</td><td>${h(c.reason)}</td></tr>`,
    ),
  );
  return `<section id="policy">${title}<div class="scroll"><table id="policy-table" class="wrap"><thead><tr><th>run</th><th>from</th><th>key</th><th>before</th><th>after</th><th>reason</th></tr></thead><tbody>
${rows.join("\n")}
</tbody></table></div></section>`;
}

function divergenceSection(d: DiffOutput): string {
  const w = explainDivergence(d.divergence);
  const detail =
    w.a === null || w.b === null
      ? ""
      : `<div class="scroll"><table id="divergence-table" class="wrap"><thead><tr><th>run</th><th>bar</th><th>decided</th></tr></thead><tbody>
<tr><td>A</td>${cell(d.divergence.barA ?? "—")}<td>${h(w.a)}</td></tr>
<tr><td>B</td>${cell(d.divergence.barB ?? "—")}<td>${h(w.b)}</td></tr>
</tbody></table></div>`;
  return `<section id="divergence"><h2>First divergence</h2><p id="divergence-sentence">${h(w.sentence)}</p>${detail}</section>`;
}
