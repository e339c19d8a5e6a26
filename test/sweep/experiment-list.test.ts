import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ExperimentResultLine } from "../../src/sweep/experiment/experiment-dir.js";
import {
  findSweepDir,
  listSweeps,
  sweepsToPrune,
  sweepsToRemove,
} from "../../src/sweep/sweep-list.js";
import { thisProcess } from "../../src/util/lock-file.js";

// How list, rm and prune see LLM experiments' directories (real files; no process is run).

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) fs.rmSync(r, { recursive: true, force: true });
});

function root(): string {
  const r = fs.mkdtempSync(path.join(os.tmpdir(), "agenticbt-exp-list-"));
  roots.push(r);
  return r;
}

function line(key: string, costUsd: number | null, status = "completed"): ExperimentResultLine {
  return {
    key,
    cell: 0,
    window: 0,
    repeat: 1,
    seed: 1,
    runId: `run-${key}`,
    status,
    error: null,
    metrics: {
      returnPct: 1,
      sharpe: null,
      maxDrawdownPct: null,
      trades: 0,
      turnover: null,
      tokens: 100,
      costUsd,
    },
    buyHoldReturnPct: 0,
    calls: { network: 3, cache: 0, replay: 0 },
  };
}

/** An experiment's directory: config.json, results.jsonl and, when given, summary.json. */
function experiment(
  sweeps: string,
  id: string,
  lines: ExperimentResultLine[],
  summary: Record<string, unknown> | null,
  tail = "",
): string {
  const dir = path.join(sweeps, id);
  fs.mkdirSync(dir, { recursive: true });
  const config = {
    kind: "experiment",
    id,
    name: "exp",
    createdAt: "2026-01-01T00:00:00.000Z",
    axes: [],
    cells: [{ settings: {}, run: {} }],
    windows: [{ from: "2012-01-01", to: "2012-06-30" }],
    repeats: 3,
    seed: 1,
    jobs: 1,
    replayOf: null,
    total: 3,
  };
  fs.writeFileSync(path.join(dir, "config.json"), JSON.stringify(config));
  fs.writeFileSync(
    path.join(dir, "results.jsonl"),
    lines.map((l) => `${JSON.stringify(l)}\n`).join("") + tail,
  );
  if (summary) fs.writeFileSync(path.join(dir, "summary.json"), JSON.stringify(summary));
  return dir;
}

describe("LLM experiments among the sweeps", () => {
  it("lists the spend from summary.json, or from results.jsonl as it is, unknown as null", () => {
    const sweeps = root();
    experiment(sweeps, "a-done", [line("c0-w0-r1", 0.25)], {
      status: "completed",
      done: 3,
      failed: 0,
      budget: { spentUsd: 0.75 },
      finishedAt: "2026-01-01T01:00:00.000Z",
    });
    const partial = '{"key":"c0-w0-r3","cost';
    const killed = experiment(
      sweeps,
      "b-killed",
      [line("c0-w0-r1", 0.25), line("c0-w0-r2", 0.5)],
      null,
      partial,
    );
    experiment(sweeps, "c-unpriced", [line("c0-w0-r1", 0.25), line("c0-w0-r2", null)], null);
    const listed = Object.fromEntries(listSweeps(sweeps).map((s) => [s.id, s]));
    expect(listed["a-done"]).toMatchObject({ status: "completed", done: 3, spentUsd: 0.75 });
    expect(listed["b-killed"]).toMatchObject({
      status: "interrupted (process gone)",
      done: 2,
      spentUsd: 0.75,
    });
    expect(listed["c-unpriced"]?.spentUsd).toBeNull();
    // Listing never cuts the line a running experiment may be writing.
    expect(fs.readFileSync(path.join(killed, "results.jsonl"), "utf8").endsWith(partial)).toBe(
      true,
    );
  });

  it("finds an experiment by id, prefix or path; refuses a link to one", () => {
    const sweeps = root();
    const dir = experiment(sweeps, "20260101-000000-exp-abcd", [], null);
    expect(findSweepDir("20260101-000000-exp-abcd", sweeps)).toBe(dir);
    expect(findSweepDir("20260101-0000", sweeps)).toBe(dir);
    expect(findSweepDir(dir, sweeps)).toBe(dir);
    const link = path.join(sweeps, "link");
    fs.symlinkSync(dir, link);
    expect(() => findSweepDir(link, sweeps)).toThrow(/link/);
  });

  it("prune takes failed and interrupted ones, never a running one", () => {
    const sweeps = root();
    const failed = experiment(sweeps, "a-failed", [line("c0-w0-r1", null, "failed")], {
      status: "completed",
      done: 3,
      failed: 3,
      budget: { spentUsd: 0 },
      finishedAt: "2026-01-01T01:00:00.000Z",
    });
    const killed = experiment(sweeps, "b-killed", [line("c0-w0-r1", 0.1)], null);
    const running = experiment(sweeps, "c-running", [], null);
    fs.writeFileSync(path.join(running, "sweep.lock"), JSON.stringify(thisProcess()));
    const ids = (statuses: string[]) =>
      sweepsToPrune(sweeps, { statuses, olderThanMs: null, now: Date.now() }).map((s) => s.id);
    expect(ids(["failed"])).toEqual(["a-failed"]);
    expect(ids(["interrupted"])).toEqual(["b-killed"]);
    expect(ids([]).sort()).toEqual(["a-failed", "b-killed"]);
    expect(listSweeps(sweeps).find((s) => s.id === "c-running")?.status).toBe("running");
    const rm = sweepsToRemove(["c-running", "b-killed", "no-such"], sweeps);
    expect(rm.refused).toEqual([
      expect.stringMatching(/^c-running is running \(its sweep\.lock names a live process\)/),
    ]);
    expect(rm.sweeps.map((s) => s.dir)).toEqual([killed]);
    expect(rm.rest).toEqual(["no-such"]);
    expect(fs.existsSync(failed)).toBe(true);
  });
});
