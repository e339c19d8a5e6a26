// The page's only code besides the chart library: it reads the JSON block and draws the charts.
// Tables and the decision timeline are plain HTML rendered (and escaped) by the generator, so the
// page reads fine even where scripts are off. Plain ES2017, no inline handlers (the CSP).

export const CLIENT_SCRIPT = `(function () {
  "use strict";
  var LC = window.LightweightCharts;
  var data = JSON.parse(document.getElementById("report-data").textContent);
  var base = {
    autoSize: true,
    layout: { attributionLogo: false, background: { color: "#ffffff" }, textColor: "#222222", fontSize: 11 },
    grid: { vertLines: { color: "#f0f0f0" }, horzLines: { color: "#f0f0f0" } },
    // Both edges fixed: the library then lets bars shrink to width / points (not its 0.5 px
    // default), so fitContent shows the whole run, however long, and zooming out stops there.
    timeScale: { timeVisible: data.intraday, secondsVisible: false, borderVisible: false, fixLeftEdge: true, fixRightEdge: true, lockVisibleTimeRangeOnResize: true },
    rightPriceScale: { borderVisible: false },
    localization: { locale: "en-US" }
  };
  function points(p) {
    var out = new Array(p.t.length);
    for (var i = 0; i < p.t.length; i++) out[i] = { time: p.t[i], value: p.v[i] };
    return out;
  }
  // Axis numbers for people: thousands separated, fixed decimals, perhaps a unit.
  function numbers(decimals, unit) {
    var f = new Intl.NumberFormat("en-US", { minimumFractionDigits: decimals, maximumFractionDigits: decimals });
    return { type: "custom", minMove: Math.pow(10, -decimals), formatter: function (v) { return unit === "$" ? "$" + f.format(v) : f.format(v) + (unit || ""); } };
  }
  // Enough decimals to tell a chart's ticks apart: 2 for stocks, 4 or 5 for a currency pair.
  function decimalsFor(lo, hi) {
    var span = hi - lo;
    return span > 0 ? Math.min(8, Math.max(2, Math.ceil(Math.log10(1000 / span)))) : 2;
  }
  var MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
  var two = function (n) { return n < 10 ? "0" + n : String(n); };
  // The library names the year only on a year's first tick: a view inside one year (or month,
  // or day) would show none. Such views get the year (and month, day) on their coarsest ticks.
  function timeLabels(view) {
    return function (time, type) {
      var r = (view.chart && view.chart.timeScale().getVisibleRange()) || view.range;
      if (!r || typeof time !== "number") return null;
      var a = new Date(r.from * 1000), b = new Date(r.to * 1000), d = new Date(time * 1000);
      var year = a.getUTCFullYear() === b.getUTCFullYear();
      var month = year && a.getUTCMonth() === b.getUTCMonth();
      var day = month && a.getUTCDate() === b.getUTCDate();
      var date = d.getUTCDate() + " " + MONTHS[d.getUTCMonth()] + " " + d.getUTCFullYear();
      if (type === 1 && year) return MONTHS[d.getUTCMonth()] + " " + d.getUTCFullYear();
      if (type === 2 && month) return date;
      if (type >= 3 && day) return date + " " + two(d.getUTCHours()) + ":" + two(d.getUTCMinutes());
      return null;
    };
  }
  function make(id, first, last) {
    var el = document.getElementById(id);
    if (!el) return null;
    // Until the chart has a visible range, its whole run.
    var view = { chart: null, range: { from: first, to: last } };
    var chart = LC.createChart(el, base);
    chart.applyOptions({ timeScale: { tickMarkFormatter: timeLabels(view) } });
    view.chart = chart;
    return chart;
  }
  var money = numbers(2);
  var compact = new Intl.NumberFormat("en-US", { notation: "compact", maximumFractionDigits: 1 });
  var volumeFormat = { type: "custom", minMove: 1, formatter: function (v) { return compact.format(v); } };
  function floorIndex(xs, x) {
    var lo = 0, hi = xs.length - 1, ans = 0;
    while (lo <= hi) {
      var mid = (lo + hi) >> 1;
      if (xs[mid] <= x) { ans = mid; lo = mid + 1; } else hi = mid - 1;
    }
    return ans;
  }
  // Draws on a series' pane with draw(ctx, width, height) in CSS pixels, above the series.
  function overlay(series, draw) {
    var renderer = { draw: function (target) {
      target.useMediaCoordinateSpace(function (scope) { draw(scope.context, scope.mediaSize.width, scope.mediaSize.height); });
    } };
    var view = { renderer: function () { return renderer; }, zOrder: function () { return "top"; } };
    series.attachPrimitive({ paneViews: function () { return [view]; } });
  }
  // Each trade's entry joined to its exit, green for a win, red for a loss.
  function tradeLines(chart, series, lines) {
    var ts = chart.timeScale();
    overlay(series, function (ctx) {
      var range = ts.getVisibleLogicalRange();
      if (!range) return;
      ctx.lineWidth = 1.5;
      ctx.setLineDash([4, 3]);
      [0, 1].forEach(function (w) {
        ctx.strokeStyle = w ? "rgba(26,152,80,0.9)" : "rgba(215,48,39,0.9)";
        ctx.beginPath();
        for (var j = 0; j < lines.a.length; j++) {
          if (lines.win[j] !== w || lines.b[j] < range.from - 1 || lines.a[j] > range.to + 1) continue;
          var x0 = ts.logicalToCoordinate(lines.a[j]), x1 = ts.logicalToCoordinate(lines.b[j]);
          var y0 = series.priceToCoordinate(lines.ap[j]), y1 = series.priceToCoordinate(lines.bp[j]);
          if (x0 === null || x1 === null || y0 === null || y1 === null) continue;
          ctx.moveTo(x0, y0);
          ctx.lineTo(x1, y1);
        }
        ctx.stroke();
      });
    });
  }
  // The deepest drawdown (its peak on equity, its trough below) and the longest one, shaded.
  function drawdownMarks(chart, equity, drawdown, d) {
    var snap = function (line, t) { return line.t[floorIndex(line.t, t)]; };
    var ts = chart.timeScale();
    var pct = numbers(2, "%").formatter;
    var days = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });
    var peak = snap(data.curve.equity, d.peak);
    var eqMarks = LC.createSeriesMarkers(equity, [{ time: peak, position: "aboveBar", shape: "arrowDown", color: "#2962ff", text: "" }]);
    var peakLabel = "peak before max drawdown";
    // Labels are drawn here, kept inside the pane: a marker's own text is centred and cut at an edge.
    function label(ctx, text, x, y, width) {
      var w = ctx.measureText(text).width;
      ctx.fillText(text, Math.max(2, Math.min(x - w / 2, width - w - 4)), y);
    }
    overlay(equity, function (ctx, width) {
      var x = ts.timeToCoordinate(peak), y = equity.priceToCoordinate(d.peakEquity);
      if (x === null || y === null) return;
      ctx.fillStyle = "#2962ff";
      ctx.font = "11px system-ui, sans-serif";
      label(ctx, peakLabel, x, Math.max(11, y - 20), width);
    });
    var trough = snap(data.curve.drawdown, d.trough);
    var deepest = "max drawdown " + pct(d.maxPct);
    var ddMarks = LC.createSeriesMarkers(drawdown, [{ time: trough, position: "belowBar", shape: "arrowUp", color: "#d73027", text: "" }]);
    var from = snap(data.curve.drawdown, d.longestFrom), to = snap(data.curve.drawdown, d.longestTo);
    var longest = "longest drawdown: " + days.format(d.longestDays) + " days" + (d.recovered ? "" : ", not recovered");
    overlay(drawdown, function (ctx, width, height) {
      var x0 = ts.timeToCoordinate(from), x1 = ts.timeToCoordinate(to);
      if (x0 === null || x1 === null) return;
      ctx.fillStyle = "rgba(255,160,0,0.16)";
      ctx.fillRect(x0, 0, Math.max(1, x1 - x0), height);
      ctx.fillStyle = "#8a5a00";
      ctx.font = "11px system-ui, sans-serif";
      var w = ctx.measureText(longest).width;
      ctx.fillText(longest, Math.max(2, Math.min(x0 + 4, width - w - 4)), 12);
      var xt = ts.timeToCoordinate(trough), yt = drawdown.priceToCoordinate(d.maxPct);
      if (xt === null || yt === null) return;
      ctx.fillStyle = "#b00020";
      label(ctx, deepest, xt, Math.min(height - 4, yt + 26), width);
    });
    return { peak: eqMarks, peakLabel: peakLabel, trough: ddMarks, deepest: deepest, longest: { from: from, to: to, label: longest } };
  }
  // Charts that zoom, scroll and point together: the one under the mouse leads, the others
  // follow its time range and crosshair (each snapped to its own nearest earlier point).
  var linked = [];
  var leader = null;
  function link(chart, series, times, values) {
    var me = { chart: chart, series: series, times: times, values: values };
    linked.push(me);
    var el = chart.chartElement();
    el.addEventListener("mouseenter", function () { leader = me; });
    el.addEventListener("mouseleave", function () {
      linked.forEach(function (o) { if (o !== me) o.chart.clearCrosshairPosition(); });
    });
    chart.timeScale().subscribeVisibleTimeRangeChange(function (r) {
      if (leader !== me || !r) return;
      linked.forEach(function (o) { if (o !== me) o.chart.timeScale().setVisibleRange(r); });
    });
    chart.subscribeCrosshairMove(function (param) {
      if (leader !== me) return;
      linked.forEach(function (o) {
        if (o === me) return;
        if (typeof param.time !== "number" || !o.times.length) { o.chart.clearCrosshairPosition(); return; }
        var i = floorIndex(o.times, param.time);
        o.chart.setCrosshairPosition(o.values[i], o.times[i], o.series);
      });
    });
  }
  // Markers closer than this many pixels merge into one, labelled with their count: a long run's
  // thousands of trades then spread over the whole chart instead of piling up.
  var MARKER_PX = 52;
  var count = new Intl.NumberFormat("en-US");
  function markers(chart, series, p) {
    var plugin = LC.createSeriesMarkers(series, []);
    var state = { plugin: plugin, groups: [] };
    var spacing = -1;
    function update() {
      var now = chart.timeScale().options().barSpacing;
      if (now === spacing) return;
      spacing = now;
      var span = Math.max(1, Math.ceil(MARKER_PX / now));
      var open = [null, null, null];
      var groups = [];
      p.markers.forEach(function (m) {
        var g = open[m.k];
        if (g && m.i - g.i < span) { g.n += m.n; return; }
        g = open[m.k] = { i: m.i, k: m.k, n: m.n, x: m.x };
        groups.push(g);
      });
      var labels = groups.length <= data.labelledMarkers;
      plugin.setMarkers(groups.map(function (g) {
        var st = data.markerStyles[g.k];
        return { time: p.candles.t[g.i], position: st.position, shape: st.shape, color: st.color,
          text: g.n > 1 ? "\u00d7" + count.format(g.n) : labels ? g.x : "" };
      }));
      state.groups = groups.map(function (g) { return { time: p.candles.t[g.i], kind: g.k, n: g.n }; });
    }
    update();
    chart.timeScale().subscribeVisibleLogicalRangeChange(update);
    return state;
  }
  var drawn = 0;
  // The chart objects, for a reader's console and the browser tests (visible ranges via the API).
  var charts = { equity: null, drawdowns: null, prices: [], markers: [], overlays: [], markerPx: MARKER_PX, usage: null };
  var PALETTE = ["#ff9800", "#7b1fa2", "#0097a7", "#c2185b", "#5d4037", "#455a64"];
  window.__charts = charts;
  var et = data.curve.equity.t;
  var eq = et.length ? make("chart-equity", et[0], et[et.length - 1]) : null;
  if (eq) {
    var strategy = eq.addSeries(LC.LineSeries, { color: "#2962ff", lineWidth: 2, title: "strategy", priceFormat: money });
    strategy.setData(points(data.curve.equity));
    eq.addSeries(LC.LineSeries, { color: "#9e9e9e", lineWidth: 1, title: "buy & hold", priceFormat: money }).setData(points(data.curve.benchmark));
    var dd = eq.addSeries(LC.AreaSeries, { lineColor: "#d73027", topColor: "rgba(215,48,39,0.05)", bottomColor: "rgba(215,48,39,0.45)", lineWidth: 1, title: "drawdown", invertFilledArea: true, priceFormat: numbers(2, "%") }, 1);
    dd.setData(points(data.curve.drawdown));
    var panes = eq.panes();
    if (panes[1]) panes[1].setHeight(120);
    if (data.curve.drawdowns) charts.drawdowns = drawdownMarks(eq, strategy, dd, data.curve.drawdowns);
    eq.timeScale().fitContent();
    link(eq, strategy, et, data.curve.equity.v);
    charts.equity = eq;
    drawn++;
  }
  data.prices.forEach(function (p, k) {
    var ct = p.candles.t;
    var chart = ct.length ? make("chart-price-" + k, ct[0], ct[ct.length - 1]) : null;
    if (!chart) return;
    var price = numbers(decimalsFor(Math.min.apply(null, p.candles.l), Math.max.apply(null, p.candles.h)));
    var s = chart.addSeries(LC.CandlestickSeries, { upColor: "#26a69a", downColor: "#ef5350", borderVisible: false, wickUpColor: "#26a69a", wickDownColor: "#ef5350", priceFormat: price });
    var bars = new Array(p.candles.t.length);
    for (var i = 0; i < bars.length; i++) bars[i] = { time: p.candles.t[i], open: p.candles.o[i], high: p.candles.h[i], low: p.candles.l[i], close: p.candles.c[i] };
    s.setData(bars);
    charts.markers[k] = markers(chart, s, p);
    tradeLines(chart, s, p.lines);
    var pane = 1;
    if (p.candles.v.length) {
      var up = "rgba(38,166,154,0.45)", down = "rgba(239,83,80,0.45)";
      chart.addSeries(LC.HistogramSeries, { priceFormat: volumeFormat, priceLineVisible: false, lastValueVisible: false, title: "volume" }, pane)
        .setData(p.candles.v.map(function (v, i) { return { time: ct[i], value: v, color: p.candles.c[i] >= p.candles.o[i] ? up : down }; }));
      chart.panes()[pane].setHeight(80);
      pane++;
    }
    // The strategy's indicators: price-like ones over the candles, the others in one pane below.
    var oscillators = -1;
    charts.overlays[k] = p.overlays.map(function (o, j) {
      var at = o.onPrice ? 0 : oscillators < 0 ? (oscillators = pane) : oscillators;
      var line = chart.addSeries(LC.LineSeries, { color: PALETTE[j % PALETTE.length], lineWidth: 1, title: o.label, priceLineVisible: false, lastValueVisible: false, crosshairMarkerVisible: false, priceFormat: o.onPrice ? price : numbers(2) }, at);
      var pts = [];
      for (var i = 0; i < o.v.length; i++) pts.push(o.v[i] === null ? { time: ct[i] } : { time: ct[i], value: o.v[i] });
      line.setData(pts);
      if (at !== 0 && chart.panes()[at]) chart.panes()[at].setHeight(100);
      return line;
    });
    document.querySelectorAll('#overlays-' + k + ' input').forEach(function (box) {
      box.addEventListener("change", function () {
        charts.overlays[k][Number(box.getAttribute("data-line"))].applyOptions({ visible: box.checked });
      });
    });
    chart.timeScale().fitContent();
    link(chart, s, ct, p.candles.c);
    charts.prices[k] = chart;
    drawn++;
  });
  if (data.usage) {
    var ut = data.usage;
    var u = ut.length ? make("chart-usage", ut[0].t, ut[ut.length - 1].t) : null;
    if (u) {
      var col = function (key) { return data.usage.map(function (q) { return { time: q.t, value: q[key] }; }); };
      var tokens = numbers(0);
      u.addSeries(LC.LineSeries, { color: "#2962ff", title: "prompt tokens", priceFormat: tokens }).setData(col("prompt"));
      u.addSeries(LC.LineSeries, { color: "#26a69a", title: "cached tokens", priceFormat: tokens }).setData(col("cached"));
      u.addSeries(LC.LineSeries, { color: "#f28e2b", title: "completion tokens", priceFormat: tokens }).setData(col("completion"));
      if (data.usage.length && data.usage[0].usd !== null) {
        u.addSeries(LC.LineSeries, { color: "#7b1fa2", title: "USD", priceFormat: numbers(4, "$") }, 1).setData(col("usd"));
      }
      u.timeScale().fitContent();
      link(u, u.panes()[0].getSeries()[0], ut.map(function (q) { return q.t; }), ut.map(function (q) { return q.prompt; }));
      charts.usage = u;
      drawn++;
    }
  }
  document.body.setAttribute("data-charts", String(drawn));
})();`;
