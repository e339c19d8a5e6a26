import fs from "node:fs";
import path from "node:path";
import { DATA, ROOT, tempDir } from "../helpers/cli.js";

/** The sweep system tests' shared setup. */
export const SMA_STRATEGY = path.join(ROOT, "strategies", "sma-crossover.ts");
/** sma-crossover long/short with a 0.2 % commission. */
export const LONG_SHORT = ["--param", "longShort=true", "--allow-short", "--commission", "0.002"];

/** A fresh temporary directory holding a copy of the bundled GOOG.csv (`--data GOOG.csv`). */
export function workWithGoog(prefix: string): string {
  const work = tempDir(prefix);
  fs.copyFileSync(path.join(DATA, "GOOG.csv"), path.join(work, "GOOG.csv"));
  return work;
}

/** Every line of a finished sweep's results.jsonl. */
export function resultLines<T>(dir: string): T[] {
  return fs
    .readFileSync(path.join(dir, "results.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as T);
}
