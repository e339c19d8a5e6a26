// An LLM experiment's runs in flight: the same experiment (memory=none,files × 1 window × 4
// repeats: 8 runs) against the scripted server answering every call in 200 ms, with
// `--concurrency 1` and `--concurrency 4` (4 runs in flight, 4 calls in flight at the provider).
// The goal: --concurrency 4 takes at most 0.35 × the time of --concurrency 1, the whole command
// (spawn to exit) each time. `tsx bench/experiment-concurrency-bench.ts [runs]` (default 1 of
// each, the median when more); needs `npm run build`; writes bench/results/experiment-concurrency.json.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { startScriptedServer } from "../test/helpers/scripted-openai-server.js";
import { seededTrader } from "../test/helpers/seeded-trader.js";
import { memoryExperimentArgs } from "./llm-experiment.js";
import { median } from "./median.js";

const ROOT = path.resolve(import.meta.dirname, "..");
const runs = Number(process.argv[2] ?? 1);
const GOAL = 0.35;
const CALL_MS = 200;
const LEVELS = [1, 4] as const;
const work = fs.mkdtempSync(path.join(os.tmpdir(), "agenticbt-experiment-bench-"));

const server = await startScriptedServer((req) => ({
  delayMs: CALL_MS,
  answer: seededTrader(req),
}));

/** One `agenticbt sweep` in a fresh process: its wall time and the calls it made. */
async function experiment(concurrency: number, k: number): Promise<{ ms: number; calls: number }> {
  const before = server.requests.length;
  const args = [
    path.join(ROOT, "bin", "agenticbt"),
    "sweep",
    ...memoryExperimentArgs({ windows: "2012-01-01:2012-03-31", repeats: 4, every: 10 }),
    "--concurrency",
    String(concurrency),
    "--runs-dir",
    path.join(work, `c${concurrency}-${k}`, "runs"),
    "--json",
  ];
  const t0 = performance.now();
  const child = spawn(process.execPath, args, {
    cwd: work,
    env: { ...process.env, OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "bench" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (d) => {
    stderr += d;
  });
  child.stdout.resume();
  const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
  const ms = performance.now() - t0;
  if (code !== 0)
    throw new Error(`agenticbt sweep --concurrency ${concurrency} exited ${code}: ${stderr}`);
  return { ms, calls: server.requests.length - before };
}

const measured: Record<number, { ms: number; calls: number }[]> = { 1: [], 4: [] };
const load0 = os.loadavg()[0] as number;
try {
  for (let k = 0; k < runs; k++)
    for (const c of LEVELS)
      (measured[c] as { ms: number; calls: number }[]).push(await experiment(c, k));
} finally {
  await server.close();
  fs.rmSync(work, { recursive: true, force: true });
}
const ms = (c: number) => Math.round(median((measured[c] ?? []).map((m) => m.ms)));
const calls = (c: number) => measured[c]?.[0]?.calls ?? 0;
const ratio = Math.round((ms(4) / ms(1)) * 1000) / 1000;
console.log(
  `8 runs, ${calls(1)} calls at ${CALL_MS} ms: --concurrency 1 ${ms(1)} ms, --concurrency 4 ${ms(4)} ms (${calls(4)} calls); ratio ${ratio} (≤ ${GOAL}: ${ratio <= GOAL ? "met" : "MISSED"}); load ${load0.toFixed(2)}`,
);
const file = path.join(ROOT, "bench", "results", "experiment-concurrency.json");
fs.mkdirSync(path.dirname(file), { recursive: true });
fs.writeFileSync(
  file,
  `${JSON.stringify(
    {
      at: new Date().toISOString(),
      runs,
      callMs: CALL_MS,
      runsPerExperiment: 8,
      calls: { concurrency1: calls(1), concurrency4: calls(4) },
      wallMs: { concurrency1: ms(1), concurrency4: ms(4) },
      ratio,
      goal: GOAL,
      met: ratio <= GOAL,
      load: load0,
    },
    null,
    2,
  )}\n`,
);
console.log(`wrote ${path.relative(ROOT, file)}`);
