import type { SweepMethod } from "../config/sweep-settings.js";
import { UsageError } from "../errors/usage-error.js";
import { mulberry32 } from "../util/prng.js";
import type { Axis, Combination } from "./axes.js";
import type { Constraint } from "./constraint.js";

/** Most combinations one sweep may hold in memory. */
export const MAX_COMBINATIONS = 5_000_000;

/**
 * The sweep's combinations, in a fixed order (a resume makes the same list again): the grid's
 * product, the first axis varying slowest, filtered by the constraint; with `random`, `maxTries`
 * of those drawn without repeats by `seed`, in the order drawn.
 */
export function combinations(
  axes: readonly Axis[],
  constraint: Constraint | null,
  method: { method: SweepMethod; maxTries: number | null; seed: number },
): Combination[] {
  let size = 1;
  for (const a of axes) size *= a.values.length;
  if (size > MAX_COMBINATIONS)
    throw new UsageError(
      `The grid has ${size} combinations, more than ${MAX_COMBINATIONS}: use fewer values, or --method random.`,
    );
  const all: Combination[] = [];
  const counter = axes.map(() => 0);
  for (let k = 0; k < size; k++) {
    const combo: Combination = {};
    axes.forEach((a, j) => {
      combo[a.name] = a.values[counter[j] as number] as Combination[string];
    });
    if (constraint === null || constraint(combo)) all.push(combo);
    for (let j = axes.length - 1; j >= 0; j--) {
      const next = (counter[j] as number) + 1;
      if (next < (axes[j] as Axis).values.length) {
        counter[j] = next;
        break;
      }
      counter[j] = 0;
    }
  }
  if (all.length === 0)
    throw new UsageError(
      "No combination is left: the constraint rejects every one of the grid. Check --constraint against the --grid values.",
    );
  if (method.method === "grid") return all;
  if (method.maxTries === null)
    throw new UsageError("--method random needs --max-tries <n>: how many combinations to draw.");
  const n = Math.min(method.maxTries, all.length);
  const rnd = mulberry32(method.seed);
  // A partial Fisher-Yates shuffle: the first n places hold the draw.
  for (let i = 0; i < n; i++) {
    const j = i + Math.floor(rnd() * (all.length - i));
    const t = all[i] as Combination;
    all[i] = all[j] as Combination;
    all[j] = t;
  }
  return all.slice(0, n);
}
