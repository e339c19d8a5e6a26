import type { RunResult } from "../runner/run-result.js";

type Row = [
  label: string,
  strategy: number | null | undefined,
  benchmark: number | null | undefined,
  digits: number,
];

const fmt = (v: number | null | undefined, digits: number): string =>
  v === null || v === undefined
    ? "n/a"
    : v.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });

/** The short strategy-vs-buy-and-hold table printed at the end of a run. */
export function formatSummary(r: RunResult): string {
  const m = r.metrics;
  const b = r.benchmark.metrics;
  const symbols = r.data.map((d) => d.symbol).join(", ");
  const head = `${r.strategy.name} on ${symbols}, ${r.period.start} → ${r.period.end} (${r.period.bars} bars)`;
  const rows: Row[] = [
    ["Return %", m?.returnPct, b?.returnPct, 2],
    ["Return (ann.) %", m?.returnAnnPct, b?.returnAnnPct, 2],
    ["Volatility (ann.) %", m?.volatilityAnnPct, b?.volatilityAnnPct, 2],
    ["Sharpe", m?.sharpe, b?.sharpe, 2],
    ["Sortino", m?.sortino, b?.sortino, 2],
    ["Max drawdown %", m?.maxDrawdownPct, b?.maxDrawdownPct, 2],
    ["Exposure %", m?.exposurePct, 100, 1],
    ["Trades", m?.trades, null, 0],
    ["Win rate %", m?.winRatePct, null, 1],
    ["Profit factor", m?.profitFactor, null, 2],
    ["Commissions", m?.commissions, 0, 2],
    ["Final equity", m?.equityFinal, null, 2],
  ];
  const lines = [
    head,
    "",
    `${"".padEnd(22)}${"Strategy".padStart(14)}${"Buy & hold".padStart(14)}`,
  ];
  for (const [label, s, bench, digits] of rows) {
    lines.push(
      `${label.padEnd(22)}${fmt(s, digits).padStart(14)}${(bench === null ? "" : fmt(bench, digits)).padStart(14)}`,
    );
  }
  if (m && m.trades < 30)
    lines.push(
      "",
      `Small sample: ${m.trades} closed trade(s); treat trade statistics with caution.`,
    );
  if (r.status !== "completed")
    lines.push("", `Status: ${r.status}${r.error ? ` (${r.error.type}: ${r.error.message})` : ""}`);
  return lines.join("\n");
}
