import { type Figure, figure, noFigure } from "../figure.js";
import {
  type BootstrapInterval,
  type BootstrapOptions,
  bootstrapMeanInterval,
} from "./bootstrap.js";

/** n, mean, sample SD, min, max and the bootstrap interval of the mean of some values. */
export interface Summary {
  n: number;
  mean: Figure;
  /** Sample standard deviation, √(Σ(x − mean)² / (n − 1)); null below 2 values. */
  sd: Figure;
  min: Figure;
  max: Figure;
  ci: BootstrapInterval;
}

export function summarize(values: readonly number[], options?: BootstrapOptions): Summary {
  const n = values.length;
  const ci = bootstrapMeanInterval(values, options);
  if (n === 0) {
    const none = noFigure("no values");
    return { n, mean: none, sd: none, min: none, max: none, ci };
  }
  if (!values.every(Number.isFinite)) {
    const none = noFigure("a value is not a finite number");
    return { n, mean: none, sd: none, min: none, max: none, ci };
  }
  let sum = 0;
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (const v of values) {
    sum += v;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  const mean = sum / n;
  let ss = 0;
  for (const v of values) ss += (v - mean) ** 2;
  return {
    n,
    mean: figure(mean),
    sd:
      n < 2
        ? noFigure("one value: a sample standard deviation needs at least 2")
        : figure(Math.sqrt(ss / (n - 1))),
    min: figure(min),
    max: figure(max),
    ci,
  };
}
