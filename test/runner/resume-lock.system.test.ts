import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { RunLockedError } from "../../src/errors/run-errors.js";
import { RUN_FILE } from "../../src/rundir/layout.js";
import { RunLock } from "../../src/rundir/run-lock.js";
import { planResume } from "../../src/runner/resume-run.js";
import { runBacktest } from "../../src/runner/run-backtest.js";
import {
  BIN,
  cliRun,
  comparableResult,
  DATA,
  ROOT,
  readJson,
  runDirs,
  tempDir,
} from "../helpers/cli.js";
import { sliceCsv } from "../helpers/llm-run.js";
import { barReached } from "../helpers/wait.js";

const work = tempDir();
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));
const goog = sliceCsv(path.join(DATA, "GOOG.csv"), 60, work, "GOOG.csv");
// One mark file for every run: the params (and so result.json) of the runs compared are the same.
const MARK = path.join(work, "bar.mark");
const args = [
  "run",
  path.join(ROOT, "test/fixtures/strategies/slow-journal.ts"),
  "--data",
  goog,
  "--param",
  // 60 bars of 25 ms: each resume runs long enough for the two to overlap on a loaded machine.
  "ms=25",
  "--param",
  `mark=${MARK}`,
  "--checkpoint-every",
  "5",
  "--no-ui",
  "-q",
];

/** Every file of a run directory with its bytes, the run's id made neutral (for byte compares). */
function filesOf(dir: string, skip: readonly string[] = []): Record<string, string> {
  const id = path.basename(dir);
  const out: Record<string, string> = {};
  for (const rel of fs.readdirSync(dir, { recursive: true, encoding: "utf8" }).sort()) {
    const abs = path.join(dir, rel);
    if (skip.includes(rel) || !fs.lstatSync(abs).isFile()) continue;
    out[rel] = fs.readFileSync(abs, "utf8").replaceAll(id, "<run>");
  }
  return out;
}

/** A run killed with SIGKILL once it is past bar 30 (result.json still says running). */
async function killedRun(runsDir: string): Promise<string> {
  fs.rmSync(MARK, { force: true });
  const child = spawn(process.execPath, [BIN, ...args, "--runs-dir", runsDir], {
    cwd: work,
    stdio: "ignore",
  });
  await barReached(MARK, 30);
  child.kill("SIGKILL");
  await new Promise((resolve) => child.once("exit", resolve));
  const [dir] = runDirs(runsDir);
  const result = readJson(path.join(dir as string, "result.json"));
  expect(result.status).toBe("running");
  return dir as string;
}

describe("the run lock covers resume", () => {
  it("two resumes of one killed run at once: one is refused (exit 2, another process is resuming it), the other gives the uninterrupted run's outputs byte for byte", async () => {
    const refRuns = path.join(work, "ref");
    const ref = await cliRun([...args, "--runs-dir", refRuns], work);
    expect(ref.status, ref.stderr).toBe(0);
    const refDir = runDirs(refRuns)[0] as string;
    const dir = await killedRun(path.join(work, "killed"));

    const both = await Promise.all([
      cliRun(["resume", dir, "-q", "--no-ui"], work),
      cliRun(["resume", dir, "-q", "--no-ui"], work),
    ]);
    const statuses = both.map((r) => r.status).sort();
    expect(statuses, both.map((r) => r.stderr).join("\n")).toEqual([0, 2]);
    const refused = both.find((r) => r.status === 2);
    expect(refused?.stderr).toContain("is being resumed by another process");

    for (const f of ["trades.csv", "equity.csv", "orders.jsonl", "decisions.jsonl"]) {
      const same = fs.readFileSync(path.join(dir, f)).equals(fs.readFileSync(path.join(refDir, f)));
      expect(same, `${f} differs from the uninterrupted run's`).toBe(true);
    }
    expect(comparableResult(dir)).toEqual(comparableResult(refDir));
    const result = readJson(path.join(dir, "result.json"));
    expect(result.resumed).toHaveLength(1);
    // The journal and every other memory file, as the uninterrupted run wrote them (one line a bar).
    const memory = (d: string) =>
      Object.fromEntries(
        Object.entries(filesOf(d)).filter(([rel]) => /^(journal|notes|playbook)/.test(rel)),
      );
    expect(memory(dir)).toEqual(memory(refDir));
    expect(fs.existsSync(path.join(dir, RUN_FILE.lock))).toBe(false);
  }, 120_000);

  it("a resume that finds the lock taken after its checks is refused before it changes a file", async () => {
    const dir = await killedRun(path.join(work, "taken"));
    const plan = planResume(dir, path.dirname(dir));
    const before = filesOf(dir, [RUN_FILE.lock]);
    // Another resume takes the lock between this one's checks and its start.
    const other = new RunLock(dir, "resume");
    try {
      await expect(runBacktest(plan.config, { resume: plan })).rejects.toThrow(RunLockedError);
      expect(filesOf(dir, [RUN_FILE.lock])).toEqual(before);
      const late = await cliRun(["resume", dir, "-q", "--no-ui"], work);
      expect(late.status).toBe(2);
      expect(late.stderr).toContain(`is being resumed by another process (pid ${process.pid}`);
      expect(filesOf(dir, [RUN_FILE.lock])).toEqual(before);
    } finally {
      other.release();
    }
    // Once that one is gone, the run resumes.
    const r = await cliRun(["resume", dir, "-q", "--no-ui"], work);
    expect(r.status, r.stderr).toBe(0);
  }, 120_000);
});
