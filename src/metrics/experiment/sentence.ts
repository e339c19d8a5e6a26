import { EXPERIMENT_METRICS } from "./metrics.js";
import type { CellComparison } from "./paired.js";

/** The figures the sentence is made from: a comparison without its sentence. */
export type SentenceFigures = Omit<CellComparison, "sentence">;

/** The interval's bounds carry no unit: the difference before them shows it. */
const PLAIN = { prefix: "", suffix: "" };

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** Decimals that show the largest of `xs` to two significant digits (0 … 6). */
export function decimalsFor(xs: readonly number[]): number {
  const largest = Math.max(...xs.map(Math.abs));
  if (!(largest > 0) || !Number.isFinite(largest)) return 1;
  return Math.min(6, Math.max(0, 1 - Math.floor(Math.log10(largest))));
}

/** "+1.2%", "-$0.013", "0.0" (a value that rounds to zero has no sign). */
export function formatAmount(
  x: number,
  decimals: number,
  unit: { prefix: string; suffix: string },
  signed: boolean,
): string {
  const digits = Math.abs(x).toFixed(decimals);
  const zero = Number(digits) === 0;
  const sign = zero ? "" : x < 0 ? "-" : signed ? "+" : "";
  return `${sign}${unit.prefix}${digits}${unit.suffix}`;
}

/** "p=0.19", "p=0.031", "p=1", "p<0.001": two significant digits. */
export function formatP(p: number): string {
  if (p < 0.001) return "p<0.001";
  return `p=${Number(p.toPrecision(2))}`;
}

/** "6 windows", or "6 pairs (2 windows × 3 repeats)" when there are repeats. */
function pairsNoun(f: SentenceFigures): string {
  if (f.repeats <= 1 && f.windows === f.pairs) return f.pairs === 1 ? "window" : "windows";
  const over =
    f.windows * f.repeats === f.pairs
      ? `${plural(f.windows, "window", "windows")} × ${plural(f.repeats, "repeat", "repeats")}`
      : `over ${plural(f.windows, "window", "windows")}`;
  return `${f.pairs === 1 ? "pair" : "pairs"} (${over})`;
}

/**
 * The comparison in words, e.g. "layered beat none on 5 of 6 windows; difference +1.2% (CI
 * -0.4..2.9), p=0.19 after correction: not significant". Says what cannot be concluded: no
 * pairs, one pair, no difference at all, the same difference on every pair (no interval), and
 * too few pairs for any p to reach the level.
 */
export function comparisonSentence(f: SentenceFigures): string {
  const spec = EXPERIMENT_METRICS[f.metric];
  const { cell, baseline } = f;
  if (f.pairs === 0)
    return (
      `${cell} and ${baseline} have no window and repeat with a ${spec.label} figure on both: ` +
      "nothing can be compared"
    );
  const noun = pairsNoun(f);
  if (f.equal === f.pairs)
    return `${cell} and ${baseline} had the same ${spec.label} on ${f.pairs === 1 ? "the one" : `all ${f.pairs}`} ${noun}: no difference`;
  const ties = f.equal > 0 ? `, tied on ${f.equal}` : "";
  const count = `${cell} ${spec.higher} ${baseline} on ${f.higher} of ${f.pairs} ${noun}${ties}`;
  const mean = f.difference.mean.value;
  if (mean === null) return `${count}; no mean difference: ${f.difference.mean.reason}`;
  const { interval } = f.difference.ci;
  const shown = interval.reason === null ? [mean, interval.low, interval.high] : [mean];
  const d = decimalsFor(shown);
  let text = `${count}; difference ${formatAmount(mean, d, spec, true)}`;
  if (f.pairs === 1)
    return `${text}: one pair cannot tell a difference from chance, so nothing can be concluded`;
  if (interval.reason !== null) text += ` (no interval: ${interval.reason})`;
  else if (f.difference.sd.value === 0)
    text += " on every pair (no spread, so the interval is that one value)";
  else
    text += ` (CI ${formatAmount(interval.low, d, PLAIN, false)}..${formatAmount(interval.high, d, PLAIN, false)})`;
  const p = f.pAdjusted.value;
  if (p === null) return `${text}; no p-value: ${f.pAdjusted.reason}`;
  text += `, ${formatP(p)}${f.comparisons > 1 ? " after correction" : ""}`;
  if (f.significant) return `${text}: significant at ${Number((f.alpha * 100).toPrecision(3))}%`;
  const floor = f.test.smallestP;
  if (floor !== null && floor > f.alpha)
    return (
      `${text}: not significant, and cannot be: with ${plural(f.pairs, "pair", "pairs")} ` +
      `the smallest possible p is ${Number(floor.toPrecision(2))}`
    );
  return `${text}: not significant`;
}
