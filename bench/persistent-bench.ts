// Persistent memory overhead per decision: a store of 200 and of 1,000 entries, and for
// each decision what the persistent system adds to it: the frozen index for the prefix and the
// auto-recall over the decision message (tokenise, score every visible entry, format the block).
// Goal: p50 ≤ 5 ms. Run: npx tsx bench/persistent-bench.ts
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { PersistentSession } from "../src/memory/persistent/persistent-session.js";
import { PersistentStore, storeContentHash } from "../src/memory/persistent/persistent-store.js";
import { prng } from "./generate-series.js";

const DECISIONS = 500;
const GOAL_P50_MS = 5;
const DAY = 86_400_000;
const START = Date.UTC(2022, 0, 3);

const rand = prng(7);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
const WORDS = [
  "stop loss hit at the prior low",
  "earnings gap up on strong guidance",
  "pullback to the 20-day moving average",
  "RSI oversold bounce with rising volume",
  "trimmed to half size before the report",
  "breakout retest held on light volume",
  "sector rotation into semiconductors",
  "跌破止损位，按计划止损出局",
  "仓位降到五成，先保住利润",
  "放量突破前高，继续持有",
];
const SYMBOLS = ["AAPL", "NVDA", "MSFT", "SPY", "600519"];

/** A decision message shaped like the agent's: now, account, orders, events and 20 bars. */
function decisionMessage(i: number): string {
  const bars = Array.from(
    { length: 20 },
    (_, k) =>
      `2023-01-${String((k % 28) + 1).padStart(2, "0")}  ${(100 + rand() * 10).toFixed(2)}  ${(101 + rand() * 10).toFixed(2)}  ${(99 + rand() * 10).toFixed(2)}  ${(100 + rand() * 10).toFixed(2)}  ${Math.floor(rand() * 1e6)}`,
  );
  return [
    "# Now",
    "",
    `Bar ${i + 1} of ${DECISIONS}: 2023-01-${String((i % 28) + 1).padStart(2, "0")}, at the close.`,
    "# Account",
    "",
    "Cash 8,412.10, equity 10,233.55. Position: 12 SPY at 151.20.",
    "# Events since your last decision",
    "",
    `filled buy 12 ${pick(SYMBOLS)} @ 151.20; ${pick(WORDS)}`,
    "# Bars",
    ...bars,
  ].join("\n");
}

function measure(entries: number): { p50: number; p95: number } {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "agenticbt-persistent-bench-"));
  try {
    const root = path.join(work, "memory");
    const dir = path.join(root, "default");
    fs.mkdirSync(dir, { recursive: true });
    const index: string[] = [];
    for (let e = 0; e < entries; e++) {
      const name = `${pick(SYMBOLS)} ${pick(WORDS)} ${e}`;
      const file = `lesson_entry_${e}.md`;
      const written = new Date(START - (entries - e) * DAY).toISOString().slice(0, 10);
      fs.writeFileSync(
        path.join(dir, file),
        `---\nname: ${name}\ndescription: ${pick(WORDS)}\ntype: lesson\nrun: bench\nperiod: 2020-01-01 00:00 .. 2021-12-31 00:00\nwritten: ${written} 00:00\n---\n\n${Array.from({ length: 6 }, () => pick(WORDS)).join(". ")}\n`,
      );
      index.push(`- [${name}](${file})`);
    }
    fs.writeFileSync(path.join(dir, "MEMORY.md"), `${index.join("\n")}\n`);
    const store = PersistentStore.open(root, dir);
    const session = new PersistentSession(
      store,
      { runId: "now", periodStart: START, periodEnd: START + 400 * DAY },
      "default",
      storeContentHash(dir),
    );
    const times: number[] = [];
    for (let i = 0; i < DECISIONS; i++) {
      const message = decisionMessage(i);
      const t0 = performance.now();
      const prefix = session.indexText;
      const block = session.autoRecall(message, 3);
      times.push(performance.now() - t0);
      if (prefix.length + block.length < 0) throw new Error("unreachable");
    }
    times.sort((a, b) => a - b);
    const at = (q: number) =>
      times[Math.min(times.length - 1, Math.floor(q * times.length))] as number;
    return { p50: at(0.5), p95: at(0.95) };
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

let ok = true;
for (const entries of [200, 1000]) {
  const { p50, p95 } = measure(entries);
  const pass = p50 <= GOAL_P50_MS;
  ok &&= pass;
  console.log(
    `persistent, ${entries} entries: per-decision overhead p50 ${p50.toFixed(3)} ms, p95 ${p95.toFixed(3)} ms (goal p50 <= ${GOAL_P50_MS} ms) ${pass ? "ok" : "MISSED"}`,
  );
}
if (!ok) process.exitCode = 1;
