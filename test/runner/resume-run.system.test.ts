import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { brokerConfig } from "../../src/engine/broker-config.js";
import { resolveLayeredParams } from "../../src/memory/layered/layered-config.js";
import { RUN_FILE, SIMULATION_OUTPUTS } from "../../src/rundir/layout.js";
import type { RunResult } from "../../src/rundir/run-result.js";
import { planResume } from "../../src/runner/resume-run.js";
import { type RunHandle, runBacktest } from "../../src/runner/run-backtest.js";
import { DEFAULT_RECALL_OPTIONS, type RunConfig } from "../../src/runner/run-config.js";
import { cli, DATA, ROOT, readJson, runArgs, tempDir } from "../helpers/cli.js";
import { sliceCsv } from "../helpers/llm-run.js";

const work = tempDir();
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));
const FIXTURES = path.join(ROOT, "test/fixtures/strategies");
const goog = sliceCsv(path.join(DATA, "GOOG.csv"), 80, work, "GOOG.csv");

function config(strategyPath: string, runsRoot: string, data = goog): RunConfig {
  return {
    strategyPath,
    data: [{ file: data }],
    broker: brokerConfig({}),
    params: {},
    from: null,
    to: null,
    name: null,
    runsRoot,
    strict: false,
    tz: null,
    agent: null,
    presets: [],
    memoryFrom: null,
    recall: DEFAULT_RECALL_OPTIONS,
    checkpointEvery: 5,
  };
}

/** Runs in process and interrupts it once `bars` bars are done (status interrupted). */
async function interruptedRun(
  c: RunConfig,
  bars: number,
): Promise<{ dir: string; result: RunResult }> {
  let handle: RunHandle | null = null;
  const result = await runBacktest(c, {
    onStart: (h) => {
      handle = h;
    },
    onEvent: (e) => {
      if (e.type === "progress" && e.done >= bars) (handle as RunHandle | null)?.interrupt();
    },
  });
  expect(result.status).toBe("interrupted");
  return { dir: path.join(c.runsRoot, result.id), result };
}

const read = (dir: string, f: string) => fs.readFileSync(path.join(dir, f), "utf8");

describe("agenticbt resume", () => {
  it("continues an interrupted run to the uninterrupted run's outputs, removing killed writes' temp files and rolling back memory written after the checkpoint", async () => {
    const strategy = path.join(FIXTURES, "crash-test.ts");
    const ref = await runBacktest(config(strategy, path.join(work, "ref")));
    expect(ref.status).toBe("completed");
    const refDir = path.join(work, "ref", ref.id);
    const { dir } = await interruptedRun(config(strategy, path.join(work, "int")), 40);
    const checkpoint = readJson<{ bar: number; time: string }>(path.join(dir, "checkpoint.json"));
    // 5 bars between checkpoints from the first (bar 0): the last one before bar 40 is bar 35.
    expect(checkpoint.bar).toBe(35);
    // What a kill leaves: a temp file of an atomic write, and memory written after the checkpoint.
    fs.writeFileSync(path.join(dir, "journal", ".2004-10-20.md.4242.7.tmp"), "half a jour");
    // equity.csv's worker thread (a long run) writes during the run: its temp name has the thread.
    fs.writeFileSync(path.join(dir, ".equity.csv.4242-1.1.tmp"), "time,equity,cash,drawdo");
    fs.writeFileSync(path.join(dir, "notes", "tally.md"), "written after the checkpoint\n");
    fs.writeFileSync(
      path.join(dir, "journal", "2099-01-01.md"),
      "# Journal 2099-01-01\n\n[00:00] x\n",
    );

    const r = cli(["resume", dir, "--json", "-q"], work);
    expect(r.status, r.stderr).toBe(0);
    const resumed = JSON.parse(r.stdout) as RunResult;
    expect(resumed.status).toBe("completed");
    // It writes memory on every bar, which a checkpoint does not save: the whole run again.
    expect(resumed.resumed).toEqual([
      {
        at: expect.any(String),
        fromBar: checkpoint.time,
        bar: 35,
        continued: false,
        simulatedBars: ref.period.bars,
      },
    ]);
    // Every output, indicators.json too: its list was made before the checkpoint.
    for (const f of SIMULATION_OUTPUTS.map((role) => RUN_FILE[role])) {
      expect(read(dir, f), f).toBe(read(refDir, f));
    }
    expect(resumed.metrics).toEqual(ref.metrics);
    // 80 journal days, one entry each, as in the uninterrupted run; the planted day is gone.
    expect(resumed.memory).toEqual(ref.memory);
    expect(resumed.memory?.journalEntries).toBe(80);
    expect(fs.existsSync(path.join(dir, "journal", "2099-01-01.md"))).toBe(false);
    expect(fs.existsSync(path.join(dir, "journal", ".2004-10-20.md.4242.7.tmp"))).toBe(false);
    expect(fs.existsSync(path.join(dir, ".equity.csv.4242-1.1.tmp"))).toBe(false);
    expect(read(dir, "notes/tally.md").replaceAll(resumed.id, "")).toBe(
      read(refDir, "notes/tally.md").replaceAll(ref.id, ""),
    );
    // The recall index answers as the uninterrupted run's did (decisions.jsonl holds each
    // recall's citations and sequence, compared above); its health matches too.
    expect(resumed.index?.chunks).toBe(ref.index?.chunks);
    expect(resumed.index?.files).toBe(ref.index?.files);
    // And the index as the run left it answers as the uninterrupted run's does, now and as of a
    // bar before the checkpoint (the sequence of every write is the same).
    for (const extra of [[], ["--as-of", "2004-10-01", "--seq", "30"]]) {
      const recall = (d: string, id: string) => {
        const out = cli(["recall", d, "marker cross", "--json", "-n", "8", ...extra], work);
        expect(out.status, out.stderr).toBe(0);
        const answer = JSON.parse(
          out.stdout.replaceAll(id, "<run>").replaceAll(path.dirname(d), "<runs>"),
        );
        // When the index was last synced is a wall-clock time.
        delete answer.index?.lastSync;
        return answer;
      };
      const answer = recall(dir, resumed.id);
      expect(answer.citations.length).toBeGreaterThan(0);
      expect(answer).toEqual(recall(refDir, ref.id));
    }
  }, 60_000);

  it("rolls back a layered memory's own log (layered.jsonl) with the files, so the resumed run's log equals the uninterrupted run's", async () => {
    const strategy = path.join(FIXTURES, "layered-writer.ts");
    const layered = (runsRoot: string): RunConfig => ({
      ...config(strategy, runsRoot),
      memory: { system: "layered", config: resolveLayeredParams(undefined) },
    });
    const ref = await runBacktest(layered(path.join(work, "layered-ref")));
    expect(ref.status).toBe("completed");
    const refDir = path.join(work, "layered-ref", ref.id);
    const { dir } = await interruptedRun(layered(path.join(work, "layered-int")), 42);
    // The killed run's log holds memories of bars after its checkpoint (bar 40).
    expect(read(dir, "layered.jsonl").length).toBeGreaterThan(0);
    const r = cli(["resume", dir, "--json", "-q"], work);
    expect(r.status, r.stderr).toBe(0);
    const resumed = JSON.parse(r.stdout) as RunResult;
    expect(resumed.status).toBe("completed");
    expect(resumed.memorySystem).toBe("layered");
    // Every operation once, in the same order, with the same scores: not the first 42 bars twice.
    expect(read(dir, "layered.jsonl").replaceAll(resumed.id, "")).toBe(
      read(refDir, "layered.jsonl").replaceAll(ref.id, ""),
    );
    expect(resumed.memory).toEqual(ref.memory);
    for (const f of ["trades.csv", "equity.csv", "orders.jsonl", "decisions.jsonl"]) {
      expect(read(dir, f), f).toBe(read(refDir, f));
    }
  }, 60_000);

  it("refuses a run with persistent memory (its store outside the run already holds the run's later writes), exit 2, changing nothing", async () => {
    const strategy = path.join(FIXTURES, "crash-test.ts");
    const { dir } = await interruptedRun(config(strategy, path.join(work, "persistent")), 20);
    const stored = readJson<Record<string, unknown>>(path.join(dir, "config.json"));
    stored.memory = { system: "persistent", config: { namespace: "default" } };
    fs.writeFileSync(path.join(dir, "config.json"), JSON.stringify(stored));
    const before = read(dir, "result.json");
    const r = cli(["resume", dir, "--json", "-q"], work);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("used --memory persistent");
    expect(read(dir, "result.json")).toBe(before);
  }, 60_000);

  it("a resume interrupted before it reaches the checkpoint stays interrupted and resumes again", async () => {
    const strategy = path.join(FIXTURES, "crash-test.ts");
    const { dir } = await interruptedRun(config(strategy, path.join(work, "twice")), 50);
    const plan = planResume(dir, path.dirname(dir));
    expect(plan.checkpoint?.bar).toBe(45);
    // Interrupted again at bar 10, while re-executing towards the checkpoint's bar 45.
    let handle: RunHandle | null = null;
    const again = await runBacktest(plan.config, {
      resume: plan,
      onStart: (h) => {
        handle = h;
      },
      onEvent: (e) => {
        if (e.type === "progress" && e.done >= 10) (handle as RunHandle | null)?.interrupt();
      },
    });
    expect(again.status).toBe("interrupted");
    expect(again.error).toBeNull();
    expect(readJson<{ bar: number }>(path.join(dir, "checkpoint.json")).bar).toBe(45);
    const r = cli(["resume", dir, "--json", "-q"], work);
    expect(r.status, r.stderr).toBe(0);
    const done = JSON.parse(r.stdout) as RunResult;
    expect(done.status).toBe("completed");
    expect(done.resumed?.map((x) => x.bar)).toEqual([45, 45]);
    expect(done.period.bars).toBe(80);
  }, 60_000);

  it("--checkpoint-every takes a whole number of bars >= 1 (exit code 2 otherwise, no run directory)", () => {
    for (const bad of ["0", "2.5", "-3"]) {
      const runs = path.join(work, `bad-every-${bad}`);
      const r = cli(
        runArgs(path.join(FIXTURES, "crash-test.ts"), goog, runs, "--checkpoint-every", bad),
        work,
      );
      expect(r.status, bad).toBe(2);
      expect(r.stderr).toMatch(/--checkpoint-every/);
      expect(fs.existsSync(runs)).toBe(false);
    }
  });

  it("refuses a completed run with exit code 2 and changes nothing", () => {
    const runs = path.join(work, "done");
    const r0 = cli(runArgs(path.join(FIXTURES, "crash-test.ts"), goog, runs, "--json", "-q"), work);
    expect(r0.status, r0.stderr).toBe(0);
    const id = JSON.parse(r0.stdout).id as string;
    const before = read(path.join(runs, id), "result.json");
    const r = cli(["resume", id, "--runs-dir", runs], work);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/is completed: .*It is finished already/);
    expect(read(path.join(runs, id), "result.json")).toBe(before);
  }, 30_000);

  it("refuses a run whose strategy file changed since it started (exit code 2), leaving it resumable", async () => {
    const copy = path.join(work, "editable.ts");
    fs.copyFileSync(path.join(FIXTURES, "crash-test.ts"), copy);
    const { dir } = await interruptedRun(config(copy, path.join(work, "edited")), 20);
    fs.appendFileSync(copy, "\n// an edit\n");
    const r = cli(["resume", dir], work);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/the strategy .*editable\.ts changed since the run started/);
    expect(readJson<RunResult>(path.join(dir, "result.json")).status).toBe("interrupted");
  }, 30_000);

  it("refuses a run whose data file changed since it started (exit code 2)", async () => {
    const data = sliceCsv(path.join(DATA, "GOOG.csv"), 60, work, "GOOG-edit.csv");
    const c = config(path.join(FIXTURES, "crash-test.ts"), path.join(work, "data-edit"), data);
    const { dir } = await interruptedRun(c, 20);
    fs.writeFileSync(data, fs.readFileSync(data, "utf8").replace(/\n[^\n]+\n$/, "\n"));
    const r = cli(["resume", dir], work);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(
      /the data file .*GOOG-edit\.csv .* is not the one the run started with/,
    );
  }, 30_000);

  it("goes on from the state saved with a code run's checkpoint: it simulates only the bars after it, and the outputs equal an uninterrupted run's", async () => {
    const sma = (runsRoot: string): RunConfig => ({
      ...config(
        path.join(ROOT, "strategies/sma-crossover.ts"),
        runsRoot,
        path.join(DATA, "SPY_D.csv"),
      ),
      params: { longShort: true },
      broker: brokerConfig({ allowShort: true, commissionRate: 0.001 }),
      checkpointEvery: 500,
    });
    const ref = await runBacktest(sma(path.join(work, "sma-ref")));
    expect(ref.status).toBe("completed");
    const refDir = path.join(work, "sma-ref", ref.id);
    const { dir } = await interruptedRun(sma(path.join(work, "sma-int")), 3200);
    const checkpoint = readJson<{ bar: number; time: string; state: unknown }>(
      path.join(dir, "checkpoint.json"),
    );
    expect(checkpoint.bar).toBeGreaterThanOrEqual(2500);
    expect(checkpoint.state).not.toBeNull();

    const r = cli(["resume", dir, "--json"], work);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/re-executes/);
    const resumed = JSON.parse(r.stdout) as RunResult;
    expect(resumed.status).toBe("completed");
    // It says where it goes on from.
    expect(r.stderr).toContain(
      `run ${resumed.id}: continues from its checkpoint at ${checkpoint.time} (${checkpoint.bar + 1} of ${ref.period.bars} bars done)`,
    );
    // Bars 0..checkpoint.bar are restored, not simulated again.
    expect(resumed.resumed).toEqual([
      {
        at: expect.any(String),
        fromBar: expect.any(String),
        bar: checkpoint.bar,
        continued: true,
        simulatedBars: ref.period.bars - (checkpoint.bar + 1),
      },
    ]);
    // Every output, indicators.json too: its list was made before the checkpoint.
    for (const f of SIMULATION_OUTPUTS.map((role) => RUN_FILE[role])) {
      expect(read(dir, f), f).toBe(read(refDir, f));
    }
    expect(resumed.metrics).toEqual(ref.metrics);
    expect(resumed.orders).toEqual(ref.orders);
    expect(resumed.period).toEqual(ref.period);
    // A completed run is not resumed again: its saved state is gone.
    expect(fs.readdirSync(path.join(dir, ".resume")).sort()).toEqual(["memory-start"]);
  }, 60_000);

  it("restores orders still working at the checkpoint (a bracket entry filling a bit a bar, its legs), saving each settled order once", async () => {
    // A volume cap of 1e-7 of SPY's daily volume fills ~10 units a bar: an entry works for bars
    // with its stop and target already attached, so checkpoints fall inside brackets.
    const bracket = (runsRoot: string): RunConfig => ({
      ...config(path.join(FIXTURES, "sma-bracket.ts"), runsRoot, path.join(DATA, "SPY_D.csv")),
      broker: brokerConfig({ commissionRate: 0.001, volumeCap: 1e-7 }),
      checkpointEvery: 3,
    });
    const ref = await runBacktest(bracket(path.join(work, "bracket-ref")));
    expect(ref.status).toBe("completed");
    const refDir = path.join(work, "bracket-ref", ref.id);
    let unsettledSeen = 0;
    for (const bars of [1203, 2808, 4417]) {
      const { dir } = await interruptedRun(bracket(path.join(work, `bracket-int-${bars}`)), bars);
      const checkpoint = readJson<{ bar: number; orders: number; settled: { orders: number } }>(
        path.join(dir, "checkpoint.json"),
      );
      if (checkpoint.settled.orders < checkpoint.orders) unsettledSeen += 1;
      // The settled orders are appended once each: the state holds only the others.
      const stateBytes = fs
        .readdirSync(path.join(dir, ".resume"))
        .filter((f) => f.startsWith("state-"))
        .map((f) => fs.statSync(path.join(dir, ".resume", f)).size);
      expect(Math.max(...stateBytes)).toBeLessThan(8_000);
      const r = cli(["resume", dir, "--json"], work);
      expect(r.status, r.stderr).toBe(0);
      expect(r.stderr).not.toMatch(/re-executes/);
      const resumed = JSON.parse(r.stdout) as RunResult;
      expect(resumed.resumed?.[0]?.continued).toBe(true);
      for (const f of SIMULATION_OUTPUTS.map((role) => RUN_FILE[role])) {
        expect(read(dir, f), `${f} after a kill at bar ${bars}`).toBe(read(refDir, f));
      }
      expect(resumed.metrics).toEqual(ref.metrics);
    }
    expect(ref.orders.filled).toBeGreaterThan(50);
    expect(unsettledSeen).toBeGreaterThan(0);
  }, 60_000);

  it("re-executes from the first bar, and says so, when the strategy's state cannot be saved as JSON", async () => {
    const strategy = path.join(FIXTURES, "map-state.ts");
    const ref = await runBacktest(config(strategy, path.join(work, "map-ref")));
    expect(ref.status).toBe("completed");
    const refDir = path.join(work, "map-ref", ref.id);
    const { dir } = await interruptedRun(config(strategy, path.join(work, "map-int")), 50);
    const checkpoint = readJson<{ bar: number; state: unknown; stateSkipped: string }>(
      path.join(dir, "checkpoint.json"),
    );
    expect(checkpoint.state).toBeNull();
    expect(checkpoint.stateSkipped).toMatch(/state is a Map/);

    const r = cli(["resume", dir, "--json"], work);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /resume re-executes from the first bar \([0-9.]+ s of work up to the checkpoint at .*\): state is a Map/,
    );
    const resumed = JSON.parse(r.stdout) as RunResult;
    expect(resumed.resumed?.[0]).toMatchObject({
      continued: false,
      simulatedBars: ref.period.bars,
    });
    for (const f of ["trades.csv", "equity.csv", "orders.jsonl", "decisions.jsonl"]) {
      expect(read(dir, f), f).toBe(read(refDir, f));
    }
  }, 60_000);

  it("refuses to continue a strategy that is not deterministic: the re-derived state differs from the checkpoint (exit code 2)", async () => {
    const c = config(path.join(FIXTURES, "coin-flip.ts"), path.join(work, "coin"));
    const { dir } = await interruptedRun(c, 60);
    const r = cli(["resume", dir, "--json", "-q"], work);
    expect(r.status).toBe(2);
    const result = JSON.parse(r.stdout) as RunResult;
    expect(result.error?.type).toBe("resume_divergence");
    expect(result.error?.message).toMatch(
      /does not re-derive the state its checkpoint saved at bar 55 .*not deterministic/,
    );
  }, 30_000);
});
