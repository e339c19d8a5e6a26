import { formatMetric, metricFormat } from "../metrics/metric-labels.js";
import type { DiffOutput, Divergence, MemoryDiff, TradeKey } from "../rundir/schemas.js";

// The sentences of `diff` that both the text (cli) and the `--html` page print, from the same
// `diffRuns` result, so that the two cannot say different things.

/** What a side that had no decision line at the divergence did: nothing. */
const NOTHING = "nothing (no order, no tool call at this bar)";

export interface DivergenceWording {
  /** One sentence: when, at which bar, and who did what. */
  sentence: string;
  /** What each run did at that bar; null when the runs never diverge. */
  a: string | null;
  b: string | null;
}

/**
 * The first divergence in words. A run with no decision line at that time did nothing there
 * (a code run writes a line only when it orders or cancels), so `bar … / -` becomes "run B did
 * nothing at that time".
 */
export function explainDivergence(d: Divergence): DivergenceWording {
  if (!d.diverged || d.time === null) {
    return {
      sentence:
        "First divergence: none. Both runs made the same decisions (orders and tool calls) at every bar.",
      a: null,
      b: null,
    };
  }
  const before = "Until then, both runs made the same decisions.";
  const at = `First divergence at ${d.time}`;
  const { barA, barB } = d;
  const a = barA === null ? NOTHING : (d.a ?? NOTHING);
  const b = barB === null ? NOTHING : (d.b ?? NOTHING);
  if (barA !== null && barB !== null) {
    const bars = barA === barB ? `, bar ${barA}` : ` (bar ${barA} of run A, bar ${barB} of run B)`;
    return { sentence: `${at}${bars}: both runs acted, differently. ${before}`, a, b };
  }
  if (barA !== null) {
    return { sentence: `${at}, bar ${barA}: run A acted and run B did nothing. ${before}`, a, b };
  }
  if (barB !== null) {
    return { sentence: `${at}, bar ${barB}: run B acted and run A did nothing. ${before}`, a, b };
  }
  return { sentence: `${at}. ${before}`, a, b };
}

/** "5 in both, 28 only in A, 28 only in B (28 of them …)": how the trades.csv files compare. */
export function tradeCounts(t: DiffOutput["trades"]): string {
  const resized =
    t.resized > 0 ? ` (${t.resized} of them the same trade in both, with another quantity)` : "";
  return `${t.common} in both, ${t.onlyA.length} only in A, ${t.onlyB.length} only in B${resized}`;
}

/** A trade's return as both list it: "+24.52%", "-0.06%"; "" when trades.csv has none. */
export function tradeReturn(t: TradeKey): string {
  const v = t.returnPct;
  if (v === null || !Number.isFinite(v)) return "";
  const s = v.toFixed(2);
  // A return that rounds to zero prints as zero, not "-0.00".
  if (Number(s) === 0) return "0.00%";
  return v > 0 ? `+${s}%` : `${s}%`;
}

/** "1 added, 0 changed, 0 removed, 3 unchanged (attribution lines ignored)". */
export function memoryCounts(m: MemoryDiff): string {
  return `${m.added.length} added, ${m.changed.length} changed, ${m.removed.length} removed, ${m.unchanged} unchanged (attribution lines ignored)`;
}

/**
 * B − A of the figures as they are shown (each rounded to the metric's decimals), so that the
 * three columns agree; `--json` keeps the exact delta.
 */
export function shownDelta(key: string, a: number | null, b: number | null): string {
  if (a === null || b === null || !Number.isFinite(a) || !Number.isFinite(b)) return "n/a";
  const { digits } = metricFormat(key);
  const round = (x: number) => Number(x.toFixed(digits));
  const delta = round(round(b) - round(a));
  const text = formatMetric(key, delta);
  return delta > 0 ? `+${text}` : text;
}
