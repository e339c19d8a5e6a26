import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { cli, readJson } from "../helpers/cli.js";
import { resultLines, SMA_STRATEGY as STRATEGY, workWithGoog } from "./sweep-kit.js";

// list, show, rm and prune know sweeps (.agenticbt/sweeps beside the runs root).
const work = workWithGoog("agenticbt-sweep-cmds-");
const runs = path.join(work, "runs");
const sweeps = path.join(work, "sweeps");
let done: string;
let killed: string;

beforeAll(() => {
  const r = cli(
    [
      "sweep",
      STRATEGY,
      "--data",
      "GOOG.csv",
      "--grid",
      "fast=5,10",
      "--grid",
      "slow=20,30",
      "--name",
      "small",
      "--runs-dir",
      runs,
      "-q",
    ],
    work,
  );
  expect(r.status, r.stderr).toBe(0);
  done = fs.readdirSync(sweeps)[0] as string;
  // A sweep killed before its end: no summary.json, no live lock.
  killed = `${done.slice(0, -4)}zzzz`;
  fs.cpSync(path.join(sweeps, done), path.join(sweeps, killed), { recursive: true });
  fs.rmSync(path.join(sweeps, killed, "summary.json"));
  const config = readJson(path.join(sweeps, killed, "config.json"));
  fs.writeFileSync(
    path.join(sweeps, killed, "config.json"),
    JSON.stringify({ ...config, id: killed }),
  );
  const lines = fs.readFileSync(path.join(sweeps, killed, "results.jsonl"), "utf8").split("\n");
  fs.writeFileSync(
    path.join(sweeps, killed, "results.jsonl"),
    `${lines.slice(0, 2).join("\n")}\n{"index":`,
  );
}, 60_000);
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

it("list shows the sweeps after the runs, with status, progress and best", () => {
  const r = cli(["list", "--runs-dir", runs], work);
  expect(r.status, r.stderr).toBe(0);
  expect(r.stdout).toMatch(new RegExp(`${done}\\s+small\\s+completed\\s+4/4\\s+maximize sharpe`));
  expect(r.stdout).toMatch(
    new RegExp(`${killed}\\s+small\\s+interrupted \\(process gone\\)\\s+2/4`),
  );
  const j = JSON.parse(cli(["list", "--runs-dir", runs, "--json"], work).stdout) as {
    sweeps: { id: string; status: string; done: number }[];
  };
  expect(j.sweeps.map((s) => [s.id, s.status, s.done]).sort()).toEqual(
    [
      [done, "completed", 4],
      [killed, "interrupted (process gone)", 2],
    ].sort(),
  );
});

it("show prints a sweep's summary (its JSON with --json)", () => {
  const r = cli(["show", done, "--runs-dir", runs], work);
  expect(r.status, r.stderr).toBe(0);
  expect(r.stdout).toMatch(/completed\): 4 of 4 combinations, 0 failed/);
  const j = JSON.parse(cli(["show", done, "--runs-dir", runs, "--json"], work).stdout);
  expect(j).toEqual(readJson(path.join(sweeps, done, "summary.json")));
  expect(cli(["show", killed, "--runs-dir", runs], work).stdout).toMatch(
    /2 of 4 combinations; agenticbt resume/,
  );
});

it("resume completes the killed sweep, prune --interrupted then has nothing to delete, rm deletes", () => {
  const r = cli(["resume", killed, "--runs-dir", runs, "-q"], work);
  expect(r.status, r.stderr).toBe(0);
  const whole = (d: string) =>
    resultLines<{ index: number }>(path.join(sweeps, d)).sort((a, b) => a.index - b.index);
  expect(whole(killed)).toEqual(whole(done));
  const again = cli(["resume", killed, "--runs-dir", runs], work);
  expect(again.status).toBe(2);
  expect(again.stderr).toMatch(
    /is complete already \(summary.json says so\): there is nothing to resume/,
  );
  // Interrupted again by hand: prune finds it.
  fs.rmSync(path.join(sweeps, killed, "summary.json"));
  const dry = cli(["prune", "--interrupted", "--runs-dir", runs, "--dry-run"], work);
  expect(dry.stdout).toMatch(
    new RegExp(`Would delete 1 run\\(s\\) in ${sweeps.replace(/[/\\]/g, ".")}:\\n  ${killed}`),
  );
  const pruned = cli(["prune", "--interrupted", "--runs-dir", runs, "--yes"], work);
  expect(pruned.status, pruned.stderr).toBe(0);
  expect(fs.readdirSync(sweeps)).toEqual([done]);
  const rm = cli(["rm", done.slice(0, 18), "--runs-dir", runs, "--yes"], work);
  expect(rm.status, rm.stderr).toBe(0);
  expect(fs.readdirSync(sweeps)).toEqual([]);
}, 60_000);
