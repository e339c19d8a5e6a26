import { METRIC_FORMATS } from "../metrics/metric-labels.js";
import { escapeHtml, jsonScript } from "../report/html/escape.js";
import { writeFileAtomic } from "../util/atomic-write.js";
import type { CombinationOutcome } from "./run-combination.js";
import { objectiveValue } from "./summary.js";
import type { SweepConfig, SweepSummaryFile } from "./sweep-dir.js";
import { sweepFile } from "./sweep-layout.js";

// report.html of a sweep: offline (no network, no library), its data in a JSON block and drawn
// by a small script: the heatmap over two chosen axes (the others aggregated by max or mean), a
// sortable table of every combination, and the best one's equity against buy-and-hold.

/** The best combination's equity beside buy-and-hold, for the page. */
export interface BestCurve {
  times: Float64Array;
  equity: Float64Array;
  benchmark: Float64Array;
}

/** Points of the equity chart at most: a million bars are drawn from every k-th close. */
const CHART_POINTS = 2000;

/** The page's columns of the table, after the settings: the objective first, then these. */
const TABLE_METRICS = ["returnPct", "sharpe", "maxDrawdownPct", "trades", "winRatePct"] as const;

function thin(curve: BestCurve): { t: number[]; e: number[]; b: number[] } {
  const n = curve.equity.length;
  const step = Math.max(1, Math.ceil(n / CHART_POINTS));
  const t: number[] = [];
  const e: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < n; i += step) {
    t.push(curve.times[i] as number);
    e.push(curve.equity[i] as number);
    b.push(curve.benchmark[i] as number);
  }
  if ((n - 1) % step !== 0 && n > 0) {
    t.push(curve.times[n - 1] as number);
    e.push(curve.equity[n - 1] as number);
    b.push(curve.benchmark[n - 1] as number);
  }
  return { t, e, b };
}

/** The page's data: what the script draws. */
function sweepPageData(
  config: SweepConfig,
  summary: SweepSummaryFile,
  outcomes: readonly CombinationOutcome[],
  curve: BestCurve | null,
  walkForwardCurve: BestCurve | null = null,
) {
  const { objective } = summary;
  const metrics = [objective.metric, ...TABLE_METRICS.filter((m) => m !== objective.metric)];
  return {
    name: config.name,
    id: config.id,
    axes: config.search.grid.map((g) => g.name),
    objective,
    objectiveLabel: METRIC_FORMATS[objective.metric]?.label ?? objective.metric,
    metrics: metrics.map((m) => ({ key: m, label: METRIC_FORMATS[m]?.label ?? m })),
    best: summary.best?.index ?? null,
    rows: outcomes.map((o) => ({
      index: o.index,
      settings: o.settings,
      status: o.status,
      error: o.error ? `${o.error.type}: ${o.error.message}` : null,
      value: objectiveValue(o, objective),
      metrics: metrics.map((m) => (o.metrics ? (o.metrics[m] as number | null) : null)),
    })),
    curve: curve ? thin(curve) : null,
    walkForwardCurve: walkForwardCurve ? thin(walkForwardCurve) : null,
  };
}

/** Writes report.html into the sweep directory. */
export function writeSweepReport(
  dir: string,
  config: SweepConfig,
  summary: SweepSummaryFile,
  outcomes: readonly CombinationOutcome[],
  curve: BestCurve | null,
  walkForwardCurve: BestCurve | null = null,
): void {
  const data = sweepPageData(config, summary, outcomes, curve, walkForwardCurve);
  const title = `Sweep ${config.name}`;
  const stats = summary.statistics;
  const figure = (f: { value: number | null; reason: string | null }) =>
    f.value === null ? `n/a (${escapeHtml(f.reason ?? "")})` : escapeHtml(f.value.toFixed(4));
  const bestText = summary.best
    ? `${Object.entries(summary.best.settings)
        .map(([k, v]) => `${k}=${String(v)}`)
        .join(" ")} → ${data.objectiveLabel} ${summary.best.value.toFixed(4)}`
    : "none (no combination completed with a value)";
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<title>${escapeHtml(title)}</title>
<style>
body{font:14px system-ui,sans-serif;margin:1.5em;color:#222}
h1{font-size:1.3em}h2{font-size:1.1em;margin-top:1.6em}
.facts td{padding:2px 12px 2px 0}
#heatmap table{border-collapse:collapse}
#heatmap td,#heatmap th{border:1px solid #ddd;padding:0;text-align:center;font-size:11px;min-width:34px;height:22px}
#heatmap td.cell{cursor:default}
#heatmap td.best{outline:3px solid #000;outline-offset:-3px;font-weight:bold}
#table table{border-collapse:collapse}
#table th{cursor:pointer;background:#f3f3f3;user-select:none}
#table td,#table th{border:1px solid #ddd;padding:2px 6px;text-align:right}
#table tr.best td{background:#fff3c4}
.controls label{margin-right:1em}
table.wf{border-collapse:collapse}
table.wf td,table.wf th{border:1px solid #ddd;padding:2px 6px;text-align:right}
</style></head><body>
<h1>${escapeHtml(title)}</h1>
<table class="facts">
<tr><td>Sweep</td><td>${escapeHtml(config.id)}</td></tr>
<tr><td>Status</td><td>${escapeHtml(summary.status)}: ${summary.done} of ${summary.total} combinations, ${summary.failed} failed</td></tr>
<tr><td>Objective</td><td>${escapeHtml(`${summary.objective.direction} ${data.objectiveLabel}`)}</td></tr>
<tr><td>Best</td><td id="best-text">${escapeHtml(bestText)}</td></tr>
<tr><td>Trials</td><td>${stats.trials} (${stats.sharpeTrials ?? stats.trials} with a per-bar Sharpe ratio)</td></tr>
<tr><td>Probabilistic Sharpe Ratio</td><td id="stat-psr">${figure(stats.psr)}</td></tr>
<tr><td>Deflated Sharpe Ratio</td><td id="stat-dsr">${figure(stats.dsr)}</td></tr>
<tr><td>Probability of Backtest Overfitting</td><td id="stat-pbo">${figure(stats.pbo)}${stats.cscvBlocks ? ` (CSCV, ${stats.cscvBlocks} blocks, ${stats.pboCombinations} combinations)` : ""}</td></tr>
</table>
<p>PSR: the chance the best combination's true Sharpe ratio is above 0. DSR: the same against the
best Sharpe ratio that many skill-less trials would show. PBO: how often the best in-sample
combination ranks at or below the median out of sample. See docs/statistics.md.</p>
<h2>Heatmap of ${escapeHtml(data.objectiveLabel)}</h2>
<div class="controls">
<label>x <select id="x-axis"></select></label>
<label>y <select id="y-axis"></select></label>
<label>other axes <select id="aggregate"><option value="max">max</option><option value="mean">mean</option></select></label>
</div>
<div id="heatmap"></div>
<h2>Best combination: equity against buy-and-hold</h2>
<div id="equity"></div>
<h2>Every combination</h2>
<div id="table"></div>
${walkForwardSection(summary)}
${jsonScript("sweep-data", data)}
<script>${CLIENT_SCRIPT}</script>
</body></html>
`;
  writeFileAtomic(sweepFile(dir, "report"), html);
}

/** The walk-forward's windows and stitched out-of-sample figures, as a table (none: no section). */
function walkForwardSection(summary: SweepSummaryFile): string {
  const wf = summary.walkForward;
  if (!wf) return "";
  const metric = wf.objective.metric;
  const label = METRIC_FORMATS[metric]?.label ?? metric;
  const num = (v: number | null | undefined, digits = 4) =>
    v === null || v === undefined ? "n/a" : escapeHtml(v.toFixed(digits));
  const figure = (f: { value: number | null; reason: string | null }, digits = 4) =>
    f.value === null ? `n/a (${escapeHtml(f.reason ?? "")})` : escapeHtml(f.value.toFixed(digits));
  const settings = (x: Readonly<Record<string, unknown>> | undefined) =>
    x
      ? escapeHtml(
          Object.entries(x)
            .map(([k, v]) => `${k}=${String(v)}`)
            .join(" "),
        )
      : "none";
  const rows = wf.windows
    .map(
      (w) =>
        `<tr><td>${w.window}</td><td>${escapeHtml(`${w.train.from} → ${w.train.to}`)}</td><td>${w.train.historyBars}</td><td>${escapeHtml(`${w.test.from} → ${w.test.to}`)}</td><td>${w.test.historyBars}</td><td>${settings(w.best?.settings)}</td><td>${num(w.best?.value)}</td><td>${figure(w.outOfSampleValue)}</td><td>${num(w.outOfSample?.returnPct, 2)}</td><td>${w.outOfSample?.trades ?? "n/a"}</td></tr>`,
    )
    .join("\n");
  const st = wf.stitched;
  const stitched =
    st === null
      ? `<p>Stitched out of sample: n/a (${escapeHtml(wf.stitchedReason ?? "")})</p>`
      : `<table class="facts">
<tr><td>Out-of-sample span</td><td>${escapeHtml(`${st.start} → ${st.end}`)} (${st.bars} bars)</td></tr>
<tr><td>Return</td><td>${num(st.returnPct, 2)} % (buy &amp; hold ${num(st.buyHoldReturnPct, 2)} %)</td></tr>
<tr><td>Sharpe / Sortino</td><td>${num(st.sharpe)} / ${num(st.sortino)}</td></tr>
<tr><td>Max drawdown</td><td>${num(st.maxDrawdownPct, 2)} %</td></tr>
<tr><td>Trades</td><td>${st.trades}</td></tr>
</table>`;
  return `<h2>Walk-forward ${escapeHtml(wf.spec)}</h2>
<p>Each window sweeps its training span and runs the best settings on the test span after it.
Bars before a span are indicator history only, as with <code>agenticbt run --from --to</code>.</p>
<table id="walk-forward" class="wf">
<tr><th>window</th><th>train</th><th>history bars</th><th>test</th><th>history bars</th><th>best in sample</th><th>${escapeHtml(label)} in sample</th><th>${escapeHtml(label)} out of sample</th><th>return % out of sample</th><th>trades</th></tr>
${rows}
</table>
<h3>Stitched out-of-sample equity</h3>
${stitched}
<div id="wf-equity"></div>
<p>Out of sample / in sample, mean ${escapeHtml(label)} over the windows: ${figure(wf.outOfSampleMean)} / ${figure(wf.inSampleMean)} = <span id="wf-ratio">${figure(wf.ratio, 3)}</span></p>`;
}

/** The page's script: plain DOM, no library. */
const CLIENT_SCRIPT = String.raw`
(function () {
  var data = JSON.parse(document.getElementById("sweep-data").textContent);
  var NONE = "(none)";
  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    for (var k in attrs || {}) e.setAttribute(k, attrs[k]);
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function fmt(v) {
    if (v === null || v === undefined) return "n/a";
    if (typeof v !== "number") return String(v);
    return Math.abs(v) >= 1000 ? v.toFixed(0) : v.toPrecision(4).replace(/\.?0+$/, "");
  }
  function key(v) { return JSON.stringify(v); }
  function colour(v, lo, hi) {
    if (v === null) return "#f4f4f4";
    var t = hi > lo ? (v - lo) / (hi - lo) : 0.5;
    if (data.objective.direction === "minimize") t = 1 - t;
    var r = Math.round(215 - 170 * t), g = Math.round(48 + 140 * t), b = Math.round(39 + 60 * t);
    return "rgb(" + r + "," + g + "," + b + ")";
  }
  var xs = document.getElementById("x-axis"), ys = document.getElementById("y-axis");
  var agg = document.getElementById("aggregate");
  var choices = data.axes.concat(data.axes.length < 2 ? [NONE] : []);
  choices.forEach(function (a) { xs.appendChild(el("option", { value: a }, a)); ys.appendChild(el("option", { value: a }, a)); });
  xs.value = data.axes[0];
  ys.value = data.axes.length > 1 ? data.axes[1] : NONE;
  function valuesOf(axis) {
    if (axis === NONE) return [null];
    var seen = {}, out = [];
    data.rows.forEach(function (r) { var k = key(r.settings[axis]); if (!(k in seen)) { seen[k] = 1; out.push(r.settings[axis]); } });
    return out.sort(function (a, b) { return typeof a === "number" && typeof b === "number" ? a - b : String(a) < String(b) ? -1 : 1; });
  }
  function drawHeatmap() {
    var x = xs.value, y = ys.value, how = agg.value;
    var host = document.getElementById("heatmap");
    host.textContent = "";
    if (x === y) { host.appendChild(el("p", {}, "Pick two different axes.")); return; }
    var cells = {};
    data.rows.forEach(function (r) {
      var k = key(x === NONE ? null : r.settings[x]) + "|" + key(y === NONE ? null : r.settings[y]);
      var c = cells[k] || (cells[k] = { values: [], rows: [] });
      c.rows.push(r);
      if (r.value !== null) c.values.push(r.value);
    });
    var lo = Infinity, hi = -Infinity;
    for (var k in cells) {
      var c = cells[k], v = null;
      if (c.values.length) {
        if (how === "mean") v = c.values.reduce(function (s, a) { return s + a; }, 0) / c.values.length;
        else v = data.objective.direction === "minimize" ? Math.min.apply(null, c.values) : Math.max.apply(null, c.values);
      }
      c.value = v;
      c.best = c.rows.some(function (r) { return r.index === data.best; });
      if (v !== null) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
    }
    var table = el("table", { "aria-label": "heatmap" });
    var xv = valuesOf(x), yv = valuesOf(y);
    var head = el("tr");
    head.appendChild(el("th", {}, (y === NONE ? "" : y) + " \\ " + (x === NONE ? "" : x)));
    xv.forEach(function (v) { head.appendChild(el("th", {}, fmt(v))); });
    table.appendChild(head);
    yv.slice().reverse().forEach(function (yval) {
      var tr = el("tr");
      tr.appendChild(el("th", {}, y === NONE ? "" : fmt(yval)));
      xv.forEach(function (xval) {
        var c = cells[key(xval) + "|" + key(yval)];
        if (!c) { tr.appendChild(el("td", { "class": "empty" })); return; }
        var parts = [];
        if (x !== NONE) parts.push(x + "=" + fmt(xval));
        if (y !== NONE) parts.push(y + "=" + fmt(yval));
        var tip = parts.join(" ") + ": " + data.objectiveLabel + " " + fmt(c.value) + (c.rows.length > 1 ? " (" + how + " of " + c.rows.length + ")" : "") + (c.best ? " (best)" : "");
        var td = el("td", { "class": "cell" + (c.best ? " best" : ""), title: tip, "data-value": c.value === null ? "" : String(c.value) }, c.best ? "★" : "");
        td.style.background = colour(c.value, lo, hi);
        tr.appendChild(td);
      });
      table.appendChild(tr);
    });
    host.appendChild(table);
  }
  [xs, ys, agg].forEach(function (s) { s.addEventListener("change", drawHeatmap); });
  drawHeatmap();

  function drawEquity() {
    drawCurve(document.getElementById("equity"), data.curve, "best combination", "No combination completed.");
    var wf = document.getElementById("wf-equity");
    if (wf) drawCurve(wf, data.walkForwardCurve, "stitched out of sample", "No stitched equity.");
  }
  function drawCurve(host, c, name, none) {
    if (!c) { host.appendChild(el("p", {}, none)); return; }
    var W = 900, H = 300, P = 40, n = c.t.length;
    var all = c.e.concat(c.b), lo = Math.min.apply(null, all), hi = Math.max.apply(null, all);
    if (!(hi > lo)) { hi = lo + 1; }
    function pts(ys) {
      return ys.map(function (v, i) {
        var px = P + (n > 1 ? (i / (n - 1)) * (W - 2 * P) : 0);
        var py = H - P - ((v - lo) / (hi - lo)) * (H - 2 * P);
        return px.toFixed(1) + "," + py.toFixed(1);
      }).join(" ");
    }
    var ns = "http://www.w3.org/2000/svg";
    var svg = document.createElementNS(ns, "svg");
    svg.setAttribute("width", W); svg.setAttribute("height", H); svg.setAttribute("role", "img");
    function line(ys, colour, label) {
      var p = document.createElementNS(ns, "polyline");
      p.setAttribute("points", pts(ys)); p.setAttribute("fill", "none");
      p.setAttribute("stroke", colour); p.setAttribute("stroke-width", "1.5");
      p.setAttribute("data-series", label);
      svg.appendChild(p);
    }
    line(c.b, "#999", "buy-and-hold");
    line(c.e, "#1565c0", "equity");
    function text(x, y, s, colour) {
      var t = document.createElementNS(ns, "text");
      t.setAttribute("x", x); t.setAttribute("y", y); t.setAttribute("font-size", "12");
      t.setAttribute("fill", colour); t.textContent = s; svg.appendChild(t);
    }
    text(P, 16, name + ": " + fmt(c.e[n - 1]), "#1565c0");
    text(P + 260, 16, "buy-and-hold: " + fmt(c.b[n - 1]), "#777");
    text(4, P, fmt(hi), "#555"); text(4, H - P, fmt(lo), "#555");
    text(P, H - 8, new Date(c.t[0]).toISOString().slice(0, 10), "#555");
    text(W - P - 70, H - 8, new Date(c.t[n - 1]).toISOString().slice(0, 10), "#555");
    host.appendChild(svg);
  }
  drawEquity();

  var sortBy = { col: 1 + data.axes.length, dir: data.objective.direction === "minimize" ? 1 : -1 };
  function drawTable() {
    var host = document.getElementById("table");
    host.textContent = "";
    var cols = ["#"].concat(data.axes, data.metrics.map(function (m) { return m.label; }), ["status"]);
    function cellOf(r, k) {
      if (k === 0) return r.index;
      if (k <= data.axes.length) return r.settings[data.axes[k - 1]];
      var m = k - 1 - data.axes.length;
      if (m < data.metrics.length) return r.metrics[m];
      return r.error ? r.status + " (" + r.error + ")" : r.status;
    }
    var rows = data.rows.slice().sort(function (a, b) {
      var x = cellOf(a, sortBy.col), y = cellOf(b, sortBy.col);
      if (x === y) return a.index - b.index;
      if (x === null) return 1;
      if (y === null) return -1;
      return (x < y ? -1 : 1) * sortBy.dir;
    });
    var table = el("table", { "aria-label": "combinations" });
    var head = el("tr");
    cols.forEach(function (c, k) {
      var th = el("th", {}, c + (sortBy.col === k ? (sortBy.dir > 0 ? " ▲" : " ▼") : ""));
      th.addEventListener("click", function () {
        sortBy = { col: k, dir: sortBy.col === k ? -sortBy.dir : -1 };
        drawTable();
      });
      head.appendChild(th);
    });
    table.appendChild(head);
    rows.forEach(function (r) {
      var tr = el("tr", { "class": r.index === data.best ? "best" : "" });
      cols.forEach(function (_, k) { tr.appendChild(el("td", {}, fmt(cellOf(r, k)))); });
      table.appendChild(tr);
    });
    host.appendChild(table);
  }
  drawTable();
  document.body.setAttribute("data-drawn", "1");
})();
`;
