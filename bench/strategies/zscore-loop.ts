import type { Strategy } from "agenticbt";

interface State {
  entries: number;
}

/**
 * A strategy that computes its own statistic every bar, as much user code does: the z-score of the
 * close against the last `window` closes, summed in a loop (no cached indicator). Long below
 * -`entry`, short above it, flat near the mean. Its cost per bar is the loop's, so the simulation
 * dominates a run's time.
 */
const zscoreLoop: Strategy<State> = {
  name: "zscore-loop",
  params: { window: 2000, entry: 2 },
  init() {
    return { entries: 0 };
  },
  onBar(ctx, state) {
    const n = Number(ctx.params.window);
    if (ctx.barCount() < n) return;
    let sum = 0;
    let squares = 0;
    for (let k = 0; k < n; k++) {
      const c = ctx.close(k) as number;
      sum += c;
      squares += c * c;
    }
    const mean = sum / n;
    const sd = Math.sqrt(Math.max(0, squares / n - mean * mean));
    if (sd === 0) return;
    const z = ((ctx.close() as number) - mean) / sd;
    const entry = Number(ctx.params.entry);
    const held = ctx.position();
    if (z < -entry && held <= 0) {
      ctx.targetWeight(1);
      state.entries += 1;
    } else if (z > entry && held >= 0) {
      ctx.targetWeight(-1);
      state.entries += 1;
    } else if (Math.abs(z) < 0.25 && held !== 0) ctx.closePosition();
  },
};

export default zscoreLoop;
