import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "..");

/**
 * The experiment benches' LLM experiment, as `agenticbt sweep`'s arguments: the bundled RSI
 * trader on GOOG without memory and with the files memory, every call sent to the server (a
 * cache would answer the runs measured after the first).
 */
export function memoryExperimentArgs(o: {
  windows: string;
  repeats: number;
  every: number;
}): string[] {
  return [
    path.join(ROOT, "strategies", "rsi-mean-reversion.md"),
    "--data",
    path.join(ROOT, "data", "GOOG.csv"),
    "--grid",
    "memory=none,files",
    "--windows",
    o.windows,
    "--repeats",
    String(o.repeats),
    "--every",
    String(o.every),
    "--yes",
    "--no-cache",
  ];
}
