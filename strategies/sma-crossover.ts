import type { IndicatorView, Strategy } from "agenticbt";

interface State {
  fast: IndicatorView;
  slow: IndicatorView;
}

/**
 * Moving-average crossover: long when the fast SMA crosses above the slow one, flat (or short with
 * `--param longShort=true --allow-short`) when it crosses below. Orders fill at the next open.
 */
const smaCrossover: Strategy<State> = {
  name: "sma-crossover",
  description:
    "Go long when the fast simple moving average crosses above the slow one; exit (or reverse to short) when it crosses below.",
  params: { fast: 10, slow: 30, longShort: false },
  init(ctx) {
    const fast = Number(ctx.params.fast);
    const slow = Number(ctx.params.slow);
    if (!(fast >= 1 && slow > fast)) {
      throw new Error(`sma-crossover needs 1 <= fast < slow (got fast=${fast}, slow=${slow}).`);
    }
    // Views are created once; each bar only reads the precomputed series at the current index.
    return {
      fast: ctx.indicator("sma", { period: fast }),
      slow: ctx.indicator("sma", { period: slow }),
    };
  },
  onBar(ctx, { fast, slow }) {
    const f0 = fast.value;
    const s0 = slow.value;
    const f1 = fast.at(1);
    const s1 = slow.at(1);
    if (f0 === null || s0 === null || f1 === null || s1 === null) return;
    const longShort = ctx.params.longShort === true;
    if (f1 <= s1 && f0 > s0) {
      if (longShort) ctx.targetWeight(1);
      else if (ctx.position() <= 0) ctx.buy({ fraction: 1, tag: "fast SMA crossed above slow" });
    } else if (f1 >= s1 && f0 < s0) {
      if (longShort) ctx.targetWeight(-1);
      else if (ctx.position() > 0) ctx.closePosition();
    }
  },
};

export default smaCrossover;
