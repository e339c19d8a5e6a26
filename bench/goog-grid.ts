import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "..");

/** The issue's GOOG grid (backtesting.py's SmaCross optimize): `agenticbt sweep`'s arguments. */
export const GOOG_GRID_ARGS: readonly string[] = [
  path.join(ROOT, "strategies", "sma-crossover.ts"),
  "--data",
  path.join(ROOT, "data", "GOOG.csv"),
  "--param",
  "longShort=true",
  "--allow-short",
  "--commission",
  "0.002",
  "--grid",
  "fast=5:50:5",
  "--grid",
  "slow=10:200:10",
  "--constraint",
  "fast < slow",
  "--maximize",
  "sharpe",
];
