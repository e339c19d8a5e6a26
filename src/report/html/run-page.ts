import { metricFormat } from "../../metrics/metric-labels.js";
import { RUN_FILE } from "../../rundir/layout.js";
import type { DecisionView } from "../../rundir/schemas.js";
import { chartLibrarySource } from "./chart-library.js";
import { CLIENT_SCRIPT } from "./client-script.js";
import { escapeHtml as h, jsonScript } from "./escape.js";
import { cell, cutNote, formatValue, page, table } from "./page-parts.js";
import { LIMITS, MARKER_STYLES, type ReportModel } from "./report-model.js";

/** The whole self-contained report page of one run. */
export function renderRunPage(m: ReportModel): string {
  const r = m.result;
  const intraday = /\d\d:\d\d/.test(r.period.start ?? "");
  const data = {
    intraday,
    curve: m.curve,
    prices: m.charts.map((c) => ({
      candles: c.candles,
      markers: c.markers,
      lines: c.lines,
      overlays: c.overlays,
    })),
    markerStyles: MARKER_STYLES,
    labelledMarkers: LIMITS.labelledMarkers,
    usage: m.usage ? m.usage.points : null,
  };
  const body = [
    header(m),
    equitySection(m),
    pricesSection(m),
    metricsSection(m),
    tradesSection(m),
    m.decisions ? llmSection(m) : "",
  ].join("\n");
  const scripts = [
    jsonScript("report-data", data),
    `<script>${chartLibrarySource()}</script>`,
    `<script>${CLIENT_SCRIPT}</script>`,
  ].join("\n");
  return page(`${r.strategy.name} · ${r.id} · agenticbt`, body, scripts);
}

function header(m: ReportModel): string {
  const r = m.result;
  const symbols = r.data.map((d) => d.symbol).join(", ");
  const error =
    r.error && typeof r.error === "object" ? (r.error as Record<string, unknown>) : null;
  return `<h1>${h(r.strategy.name)} on ${h(symbols)}</h1>
<p class="meta">Run <b id="run-id">${h(r.id)}</b> · status <b>${h(r.status)}</b> · ${h(r.period.start ?? "?")} → ${h(r.period.end ?? "?")} (${h(formatValue(r.period.bars))} bars) · ${h(r.strategy.kind)} strategy ${h(r.strategy.path)}</p>
${error ? `<p class="err">${h(String(error.type ?? "Error"))}: ${h(String(error.message ?? ""))}</p>` : ""}`;
}

function equitySection(m: ReportModel): string {
  const shown = m.curve.equity.t.length;
  const note =
    m.curve.bars === 0
      ? `<p class="note">No bar was simulated, so there is no equity curve.</p>`
      : shown < m.curve.bars
        ? `<p class="note">${h(formatValue(m.curve.bars))} bars drawn as ${h(formatValue(shown))} points: each stretch keeps its lowest and highest equity (and drawdown). Every bar is in equity.csv.</p>`
        : "";
  return `<section id="equity"><h2>Equity against buy-and-hold, and drawdown</h2>${note}
<div class="chart" id="chart-equity"></div></section>`;
}

function pricesSection(m: ReportModel): string {
  if (m.pricesNote !== null) {
    return `<section id="prices"><h2>Prices and trades</h2><p class="note" id="prices-note">${h(m.pricesNote)}</p></section>`;
  }
  const parts = m.charts.map((c, k) => {
    const notes: string[] = [];
    if (c.candles.per > 1) {
      notes.push(
        `Each candle merges ${c.candles.per} bars (${c.candles.t.length.toLocaleString("en-US")} candles); trade markers sit on the candle that holds them.`,
      );
    }
    if (c.lines.total > c.lines.a.length) {
      notes.push(
        `Entry-to-exit lines are drawn for the first ${formatValue(c.lines.a.length)} of ${formatValue(c.lines.total)} trades.`,
      );
    }
    if (c.events > LIMITS.labelledMarkers) {
      notes.push(
        `${formatValue(c.events)} entries, exits and rejections: markers that would overlap merge into one labelled with their count (zoom in to part them); past ${LIMITS.labelledMarkers} on screen, single ones lose their labels. Every trade is listed below.`,
      );
    }
    // Checkboxes that show or hide each indicator line (the page's script wires them).
    const toggles = c.overlays.length
      ? `<p class="meta toggles" id="overlays-${k}">Indicators: ${c.overlays
          .map(
            (o, j) =>
              `<label><input type="checkbox" checked data-chart="${k}" data-line="${j}"> ${h(o.label)}</label>`,
          )
          .join(" ")}</p>`
      : "";
    return `<h3>${h(c.symbol)}</h3>${notes.map((n) => `<p class="note">${h(n)}</p>`).join("")}${toggles}
<div class="chart" id="chart-price-${k}"></div>`;
  });
  return `<section id="prices"><h2>Prices and trades</h2>
<p class="meta">▲ buy or cover, ▼ sell or short, ● rejected order; a dashed line joins each trade's entry to its exit, green for a win, red for a loss; volume below. Charts zoom and move together, crosshair included.</p>${parts.join("\n")}</section>`;
}

function metricsSection(m: ReportModel): string {
  const rows = m.metrics.map(
    (x) =>
      `<tr data-key="${h(x.key)}"><td title="result.json: ${h(x.key)}">${h(metricFormat(x.key).label)}</td>${cell(x.strategy)}${cell(x.benchmark)}<td>${h(x.note ?? "")}</td></tr>`,
  );
  const facts = m.facts.map(([k, v]) => [k, v]);
  return `<section id="metrics"><h2>Metrics</h2><div class="grid"><div>
<div class="scroll tall"><table id="metrics-table"><thead><tr><th>metric</th><th>strategy</th><th>buy &amp; hold</th><th>why null</th></tr></thead><tbody>
${rows.join("\n")}
</tbody></table></div></div><div>${table("facts-table", [RUN_FILE.result, "value"], facts)}</div></div>
<p class="meta">Definitions: docs/metrics.md (hover a row's name for its result.json key).</p></section>`;
}

function tradesSection(m: ReportModel): string {
  const t = m.trades;
  const rej = m.rejected;
  return `<section id="trades"><h2>Trades (${h(formatValue(t.total))})</h2>${cutNote(t.rows.length, t.total, RUN_FILE.trades)}
${t.total ? table("trades-table", t.columns, t.rows) : "<p>No trades.</p>"}
<h3>Rejected orders (${h(formatValue(rej.total))})</h3>${cutNote(rej.rows.length, rej.total, RUN_FILE.orders)}
${rej.total ? table("rejected-table", rej.columns, rej.rows) : "<p>None.</p>"}</section>`;
}

function llmSection(m: ReportModel): string {
  const d = m.decisions as NonNullable<ReportModel["decisions"]>;
  const usage = m.usage;
  const costNote = usage?.costNote
    ? `<p class="note">Cost not charted: ${h(usage.costNote)}</p>`
    : "";
  return `<section id="llm"><h2>Tokens and cost over time</h2>${costNote}
<div class="chart small" id="chart-usage"></div>
<h2>Decision timeline (${h(formatValue(d.total))})</h2>${cutNote(d.shown.length, d.total, RUN_FILE.decisions)}
<div id="timeline">${d.shown.map(decision).join("\n")}</div></section>`;
}

const clip = (text: string, max = 2000) =>
  text.length <= max ? text : `${text.slice(0, max)}… (${text.length} characters)`;
const json = (v: unknown) => clip(JSON.stringify(v) ?? "null");

function decision(d: DecisionView): string {
  const tokens = d.tokens
    ? Object.entries(d.tokens)
        .map(([k, v]) => `${k} ${v}`)
        .join(", ")
    : "";
  const summary = [
    `<b>${h(d.time)}</b>`,
    `<span class="tag">${h(d.type)}</span>`,
    d.orders.length ? `${d.orders.length} order(s)` : "",
    d.toolCalls.length ? `${d.toolCalls.length} tool call(s)` : "",
    d.recalls.length ? `${d.recalls.length} recall(s)` : "",
    d.error ? `<span class="err">error ${h(json(d.error))}</span>` : "",
    d.rationale ? h(clip(d.rationale.replace(/\s+/g, " "), 140)) : "",
  ]
    .filter(Boolean)
    .join(" · ");
  const tools = d.toolCalls.map(
    (c) =>
      `<li><b>${h(c.name)}</b> <code>${h(json(c.args))}</code>${c.error ? ` <span class="err">${h(json(c.error))}</span>` : ""}<pre>${h(json(c.result))}</pre></li>`,
  );
  const orders = d.orders.map((o) => `<li>${h(json(o))}</li>`);
  const recalls = d.recalls.map(
    (q) =>
      `<li>“${h(q.query)}”<ul>${q.citations
        .map(
          (c) =>
            `<li class="citation"><code>${h(c.path)}:${c.startLine}-${c.endLine}</code> score ${h(formatValue(c.score))}<pre>${h(clip(c.snippet, 600))}</pre></li>`,
        )
        .join("")}</ul></li>`,
  );
  const block = (title: string, items: string[]) =>
    items.length ? `<div><b>${title}</b><ul>${items.join("")}</ul></div>` : "";
  return `<details class="decision"><summary>${summary}</summary>
${d.rationale ? `<div><b>Rationale</b><pre class="rationale">${h(d.rationale)}</pre></div>` : ""}
${block("Tool calls", tools)}${block("Orders", orders)}${block("Recall citations", recalls)}
${tokens ? `<p class="meta">tokens: ${h(tokens)}</p>` : ""}</details>`;
}
