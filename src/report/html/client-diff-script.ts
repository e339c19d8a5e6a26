// The diff page's chart: both runs' equity (and A's buy-and-hold) above, both drawdowns below.
export const CLIENT_DIFF_SCRIPT = `(function () {
  "use strict";
  var LC = window.LightweightCharts;
  var data = JSON.parse(document.getElementById("report-data").textContent);
  function points(p) {
    var out = new Array(p.t.length);
    for (var i = 0; i < p.t.length; i++) out[i] = { time: p.t[i], value: p.v[i] };
    return out;
  }
  var chart = LC.createChart(document.getElementById("chart-equity"), {
    autoSize: true,
    layout: { attributionLogo: false, background: { color: "#ffffff" }, textColor: "#222222", fontSize: 11 },
    timeScale: { timeVisible: data.intraday, secondsVisible: false },
    localization: { locale: "en-US" }
  });
  chart.addSeries(LC.LineSeries, { color: "#2962ff", lineWidth: 2, title: "A" }).setData(points(data.a.equity));
  chart.addSeries(LC.LineSeries, { color: "#f28e2b", lineWidth: 2, title: "B" }).setData(points(data.b.equity));
  chart.addSeries(LC.LineSeries, { color: "#9e9e9e", lineWidth: 1, title: "A buy & hold" }).setData(points(data.a.benchmark));
  chart.addSeries(LC.LineSeries, { color: "#2962ff", lineWidth: 1, title: "A drawdown %" }, 1).setData(points(data.a.drawdown));
  chart.addSeries(LC.LineSeries, { color: "#f28e2b", lineWidth: 1, title: "B drawdown %" }, 1).setData(points(data.b.drawdown));
  var panes = chart.panes();
  if (panes[1]) panes[1].setHeight(120);
  chart.timeScale().fitContent();
  document.body.setAttribute("data-charts", "1");
})();`;
