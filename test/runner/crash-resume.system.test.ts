import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
// mulberry32, seeded: a failing set of kill points can be run again.
import { prng } from "../../bench/generate-series.js";
import { MEMORY_DIRS, PLAYBOOK_FILE } from "../../src/memory/memory-layout.js";
import { RUN_FILE, SIMULATION_OUTPUTS } from "../../src/rundir/layout.js";
import { BIN, cliRun, comparableResult, DATA, ROOT, tempDir } from "../helpers/cli.js";
import { barOf, isMoment, sliceCsv, turnMessages } from "../helpers/llm-run.js";
import {
  type RecordedRequest,
  type Step,
  startScriptedServer,
} from "../helpers/scripted-openai-server.js";

/**
 * The crash test (issue 10 item 3): runs are killed with SIGKILL at random points, each killed
 * run's leftovers are checked (no half-written file), and `agenticbt resume` must end with the
 * same trades.csv, equity.csv, orders.jsonl, decisions.jsonl and result.json (timings and resume
 * records aside) as an uninterrupted run, byte for byte.
 *
 * AGENTICBT_CRASH_KILLS=code,llm sets the number of kill points (`npm test`: 3,2;
 * `npm run test:crash`: 20,10); AGENTICBT_CRASH_SEED reproduces a set of kill points.
 */
const [CODE_KILLS, LLM_KILLS] = (process.env.AGENTICBT_CRASH_KILLS ?? "3,2")
  .split(",")
  .map((n) => Number(n));
const SEED = Number(process.env.AGENTICBT_CRASH_SEED ?? 20261123);
console.log(
  `crash test: seed ${SEED}, ${CODE_KILLS} code and ${LLM_KILLS} LLM kill points ` +
    `(reproduce with AGENTICBT_CRASH_SEED=${SEED} AGENTICBT_CRASH_KILLS=${CODE_KILLS},${LLM_KILLS})`,
);

const work = tempDir("agenticbt-crash-");
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

const random = prng(SEED);

// Every output the end of a run writes: a new one is compared here without a change.
const COMPARED = SIMULATION_OUTPUTS.map((role) => RUN_FILE[role]);

/** result.json without what legitimately differs between two runs (comparableResult), as text:
 * compared with its key order. */
const resultText = (dir: string) => JSON.stringify(comparableResult(dir), null, 2);

/** Every memory file, with the run id of its attribution lines made neutral. */
function memoryOf(dir: string): Record<string, string> {
  const id = path.basename(dir);
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    const abs = path.join(dir, rel);
    if (!fs.existsSync(abs)) return;
    if (fs.lstatSync(abs).isDirectory()) {
      for (const name of fs.readdirSync(abs).sort()) walk(path.join(rel, name));
    } else {
      out[rel] = fs.readFileSync(abs, "utf8").replaceAll(id, "<run>");
    }
  };
  for (const entry of [PLAYBOOK_FILE, ...MEMORY_DIRS]) walk(entry);
  return out;
}

function expectSameRun(ref: string, got: string): void {
  for (const f of COMPARED) {
    const a = fs.readFileSync(path.join(ref, f));
    const b = fs.readFileSync(path.join(got, f));
    expect(b.equals(a), `${f} differs from the uninterrupted run's (${got})`).toBe(true);
  }
  expect(resultText(got)).toBe(resultText(ref));
  expect(memoryOf(got)).toEqual(memoryOf(ref));
}

/**
 * Logs appended line by line (appendLines). A kill -9 in the middle of a long line's write can
 * cut it: Linux stops a write to a file between pages when the process gets SIGKILL. The design
 * repairs that on resume (the transcript's partial line is cut; ops.jsonl is removed with the
 * other memory files and the memory's snapshot from before the first bar copied back), so the
 * leftovers may end in one cut line, never the resumed run.
 */
const APPEND_LOGS = new Set([RUN_FILE.transcript, path.join("persistent", "ops.jsonl")]);

/**
 * The leftovers of a kill (or, `strict`, of a resume): every file whole, except that an append
 * log may end in a cut line when not strict. Returns the temp files left behind and the logs
 * that ended in a cut line.
 */
function checkLeftovers(dir: string, strict = false): { temps: string[]; cut: string[] } {
  JSON.parse(fs.readFileSync(path.join(dir, RUN_FILE.config), "utf8"));
  const temps: string[] = [];
  const cut: string[] = [];
  const walk = (rel: string) => {
    for (const e of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const r = path.join(rel, e.name);
      if (e.isDirectory()) walk(r);
      else if (/\.tmp$/.test(e.name)) temps.push(r);
      else if (e.name.endsWith(".json")) JSON.parse(fs.readFileSync(path.join(dir, r), "utf8"));
      else if (e.name.endsWith(".jsonl")) {
        const text = fs.readFileSync(path.join(dir, r), "utf8");
        const whole = text === "" || text.endsWith("\n");
        if (!whole) {
          expect(!strict && APPEND_LOGS.has(r), `${r} ends in a partial line`).toBe(true);
          cut.push(r);
        }
        // Every line but a cut last one is JSON.
        const lines = text.split("\n");
        lines.pop();
        for (const line of lines) JSON.parse(line);
      }
    }
  };
  walk("");
  return { temps, cut };
}

function tempFiles(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".tmp"));
}

const RUN_DIR_NAME = /^\d{8}-/;

/** Starts the CLI, waits until its run directory has a result.json, and returns both. */
async function startRun(args: string[], runsRoot: string): Promise<{ child: ChildProcess }> {
  const child = spawn(process.execPath, [BIN, ...args, "--runs-dir", runsRoot, "-q", "--json"], {
    cwd: ROOT,
    stdio: ["ignore", "ignore", "pipe"],
  });
  child.stderr?.resume();
  for (;;) {
    const dirs = fs.existsSync(runsRoot)
      ? fs.readdirSync(runsRoot).filter((d) => RUN_DIR_NAME.test(d))
      : [];
    const dir = dirs[0];
    if (dir !== undefined && fs.existsSync(path.join(runsRoot, dir, RUN_FILE.result))) break;
    if (child.exitCode !== null)
      throw new Error(`the run exited (${child.exitCode}) before it started`);
    await sleep(5);
  }
  return { child };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const exited = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once("exit", () => resolve());
  });

/** An uninterrupted run, and how long it ran after its result.json appeared. */
async function reference(args: string[], runsRoot: string): Promise<{ dir: string; ms: number }> {
  const { child } = await startRun(args, runsRoot);
  const t0 = performance.now();
  await exited(child);
  expect(child.exitCode).toBe(0);
  return { dir: onlyRun(runsRoot), ms: performance.now() - t0 };
}

function onlyRun(runsRoot: string): string {
  const dirs = fs.readdirSync(runsRoot).filter((d) => RUN_DIR_NAME.test(d));
  expect(dirs).toHaveLength(1);
  return path.join(runsRoot, dirs[0] as string);
}

interface KillStats {
  landed: number;
  missed: number;
  tempLeft: number;
  cutLine: number;
  checkpointed: number;
  /** Resumes that went on from the checkpoint's saved state (the rest re-executed). */
  continued: number;
  resumeMs: number[];
}

/**
 * Kills `args` at `kills` random points of its run (a point after the run ended is drawn again),
 * resumes each and compares it with the reference.
 */
async function killAndResume(
  label: string,
  args: string[],
  ref: { dir: string; ms: number },
  kills: number,
): Promise<KillStats> {
  const stats: KillStats = {
    landed: 0,
    missed: 0,
    tempLeft: 0,
    cutLine: 0,
    checkpointed: 0,
    continued: 0,
    resumeMs: [],
  };
  let attempt = 0;
  // Kill points are drawn within the run's length, which the reference measured once; a run that
  // ends before its kill point shortens it, so a slow reference (a loaded machine) cannot make
  // every later draw fall after the end.
  let length = ref.ms;
  while (stats.landed < kills) {
    attempt += 1;
    expect(attempt, "too many kill points fell after the run's end").toBeLessThan(kills * 4);
    const delay = Math.floor(random() * length * 0.9);
    const runsRoot = path.join(work, `${label}-kill-${attempt}`);
    const { child } = await startRun(args, runsRoot);
    const started = performance.now();
    let ranMs = Number.POSITIVE_INFINITY;
    child.once("exit", () => {
      ranMs = performance.now() - started;
    });
    await sleep(delay);
    const alive = child.exitCode === null;
    if (!alive) length = Math.min(length, ranMs);
    child.kill("SIGKILL");
    await exited(child);
    const dir = onlyRun(runsRoot);
    if (!alive || child.signalCode !== "SIGKILL") {
      stats.missed += 1;
      continue;
    }
    const { temps, cut } = checkLeftovers(dir);
    const status = JSON.parse(fs.readFileSync(path.join(dir, RUN_FILE.result), "utf8")).status;
    if (status === "completed") {
      // Killed while writing report.html, after result.json was final: nothing to resume, and
      // the outputs are already whole.
      expectSameRun(ref.dir, dir);
      stats.missed += 1;
      continue;
    }
    expect(status).toBe("running");
    stats.landed += 1;
    if (temps.length > 0) stats.tempLeft += 1;
    if (cut.length > 0) stats.cutLine += 1;
    if (fs.existsSync(path.join(dir, RUN_FILE.checkpoint))) stats.checkpointed += 1;
    const t0 = performance.now();
    const resumed = await cliRun(["resume", dir, "--json", "-q"], ROOT);
    stats.resumeMs.push(performance.now() - t0);
    expect(resumed.status, `${label} kill at ${delay} ms: ${resumed.stderr}`).toBe(0);
    expectSameRun(ref.dir, dir);
    const result = JSON.parse(fs.readFileSync(path.join(dir, RUN_FILE.result), "utf8"));
    expect(result.resumed).toHaveLength(1);
    const record = result.resumed[0];
    if (record.continued) {
      stats.continued += 1;
      // Only the bars after the checkpoint were simulated (the window starts at bar 0).
      expect(record.simulatedBars).toBe(result.period.bars - (record.bar + 1));
    } else {
      expect(record.simulatedBars).toBe(result.period.bars);
    }
    expect(tempFiles(dir), "temp files after the resume").toEqual([]);
    checkLeftovers(dir, true);
    fs.rmSync(runsRoot, { recursive: true, force: true });
  }
  console.log(
    `crash test ${label}: ${stats.landed} kills survived (${stats.missed} drawn after the run was final), ` +
      `${stats.tempLeft} left a temp file, ${stats.cutLine} a cut log line, ${stats.checkpointed} had a checkpoint, ${stats.continued} continued from it; run ${Math.round(ref.ms)} ms, ` +
      `resume ${Math.round(Math.min(...stats.resumeMs))}–${Math.round(Math.max(...stats.resumeMs))} ms`,
  );
  return stats;
}

/** Swings long and flat every 3 bars, journals and keeps a note in moments. */
function swing(req: RecordedRequest): Step {
  const usage = { prompt: 400, completion: 40, cached: 100 };
  if (turnMessages(req).some((m) => m.role === "tool")) return { content: "done", usage };
  if (isMoment(req)) {
    return {
      toolCalls: [
        { name: "memory_log", arguments: '{"content":"moment noted"}' },
        { name: "memory_note", arguments: '{"key":"tally","content":"still swinging"}' },
      ],
      usage,
    };
  }
  const bar = barOf(req);
  const order =
    bar % 6 === 1
      ? '{"symbol":"SPY","side":"buy","fraction_of_equity":1}'
      : bar % 6 === 4
        ? '{"symbol":"SPY","side":"sell","target_weight":0}'
        : null;
  if (order === null) return { content: "hold", usage };
  return { toolCalls: [{ name: "place_order", arguments: order }], usage };
}

describe("kill -9 and resume", () => {
  it(`a code run killed at ${CODE_KILLS} random points resumes to the uninterrupted run's files, byte for byte`, async () => {
    const goog = sliceCsv(path.join(DATA, "GOOG.csv"), 150, work, "GOOG.csv");
    const args = [
      "run",
      path.join(ROOT, "test/fixtures/strategies/crash-test.ts"),
      "--data",
      goog,
      "--checkpoint-every",
      "5",
    ];
    const ref = await reference(args, path.join(work, "code-ref"));
    const stats = await killAndResume("code", args, ref, CODE_KILLS as number);
    expect(stats.landed).toBe(CODE_KILLS);
  }, 600_000);

  it(`a code run whose state a checkpoint saves, killed at ${CODE_KILLS} random points, resumes to the uninterrupted run's files, byte for byte`, async () => {
    // sma-crossover keeps only indicator views in its state and writes no memory: a resume goes
    // on from the checkpoint. A checkpoint every 20 bars (each appends and writes a state file)
    // makes the kills land among those writes.
    const args = [
      "run",
      path.join(ROOT, "strategies/sma-crossover.ts"),
      "--data",
      path.join(DATA, "SPY_D.csv"),
      "--param",
      "longShort=true",
      "--allow-short",
      "--commission",
      "0.001",
      "--checkpoint-every",
      "20",
    ];
    const ref = await reference(args, path.join(work, "state-ref"));
    const stats = await killAndResume("state", args, ref, CODE_KILLS as number);
    expect(stats.landed).toBe(CODE_KILLS);
  }, 600_000);

  it(`an LLM run (replayed from a recording) killed at ${LLM_KILLS} random points resumes to the uninterrupted run's files, byte for byte`, async () => {
    const server = await startScriptedServer(swing);
    try {
      const spy = sliceCsv(path.join(DATA, "SPY_D.csv"), 60, work, "SPY.csv");
      const recRoot = path.join(work, "llm-rec");
      const rec = await cliRun(
        [
          "run",
          "--prompt",
          "swing trade",
          "--data",
          spy,
          "--base-url",
          server.url,
          "--model",
          "gpt-4o-mini",
          "--no-cache",
          "--runs-dir",
          recRoot,
          "--json",
          "-q",
        ],
        ROOT,
      );
      expect(rec.status, rec.stderr).toBe(0);
      const recorded = onlyRun(recRoot);
      const args = ["run", "--replay", recorded];
      const ref = await reference(args, path.join(work, "llm-ref"));
      const stats = await killAndResume("llm", args, ref, LLM_KILLS as number);
      expect(stats.landed).toBe(LLM_KILLS);
    } finally {
      await server.close();
    }
  }, 600_000);
});
