import fs from "node:fs";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { cli, cliAsync, readJson } from "../helpers/cli.js";
import { SMA_STRATEGY as STRATEGY, workWithGoog } from "./sweep-kit.js";

// kill -9 in the middle of a sweep, then `agenticbt resume <sweep>`: results.jsonl ends complete,
// with no combination twice, and equal to an uninterrupted sweep's.
const ARGS = [
  "--data",
  "GOOG.csv",
  "--param",
  "longShort=true",
  "--allow-short",
  "--grid",
  "fast=2:40:1",
  "--grid",
  "slow=10:400:2",
  "--grid",
  "commission=0,0.002",
  "--constraint",
  "fast < slow and (slow - fast) % 4 == 0",
  "--jobs",
  "2",
  "-q",
];

const work = workWithGoog("agenticbt-sweep-resume-");
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

interface Line {
  index: number;
  [key: string]: unknown;
}

function lines(dir: string): Line[] {
  const file = path.join(dir, "results.jsonl");
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.endsWith("}"))
    .map((l) => JSON.parse(l) as Line);
}

const onlyDir = (root: string) => path.join(root, fs.readdirSync(root)[0] as string);

it("resumes a sweep killed at about 50% to the results of an uninterrupted one", async () => {
  const killedRoot = path.join(work, "killed");
  const child = cliAsync(
    ["sweep", STRATEGY, ...ARGS, "--runs-dir", path.join(killedRoot, "runs")],
    work,
  );
  const sweeps = path.join(killedRoot, "sweeps");
  let total = 0;
  let atKill = 0;
  const exited = new Promise<number | null>((resolve) =>
    child.on("exit", (code, signal) => resolve(signal ? -1 : code)),
  );
  for (let waited = 0; waited < 120_000; waited += 10) {
    await new Promise((r) => setTimeout(r, 10));
    if (!fs.existsSync(sweeps) || fs.readdirSync(sweeps).length === 0) continue;
    const dir = onlyDir(sweeps);
    if (total === 0 && fs.existsSync(path.join(dir, "config.json")))
      total = (readJson(path.join(dir, "config.json")) as { total: number }).total;
    if (total > 0 && lines(dir).length >= total / 2) {
      child.kill("SIGKILL");
      atKill = lines(dir).length;
      break;
    }
  }
  expect(await exited).toBe(-1);
  const dir = onlyDir(sweeps);
  expect(total).toBeGreaterThan(1000);
  expect(atKill).toBeGreaterThanOrEqual(total / 2);
  expect(atKill).toBeLessThan(total);
  expect(fs.existsSync(path.join(dir, "summary.json"))).toBe(false);

  const listed = cli(["list", "--runs-dir", path.join(killedRoot, "runs")], work);
  expect(listed.stdout).toMatch(/interrupted \(process gone\)/);

  const resumed = cli(
    ["resume", path.basename(dir), "--runs-dir", path.join(killedRoot, "runs"), "-q"],
    work,
  );
  expect(resumed.status, resumed.stderr).toBe(0);
  const after = lines(dir);
  expect(after).toHaveLength(total);
  expect(new Set(after.map((l) => l.index)).size).toBe(total);

  const whole = cli(
    ["sweep", STRATEGY, ...ARGS, "--runs-dir", path.join(work, "whole", "runs")],
    work,
  );
  expect(whole.status, whole.stderr).toBe(0);
  const wholeDir = onlyDir(path.join(work, "whole", "sweeps"));
  const byIndex = (ls: Line[]) => [...ls].sort((a, b) => a.index - b.index);
  expect(byIndex(after)).toEqual(byIndex(lines(wholeDir)));
  const summary = (d: string) => {
    const s = readJson(path.join(d, "summary.json")) as Record<string, unknown>;
    for (const k of ["id", "timings", "finishedAt"]) delete s[k];
    return s;
  };
  expect(summary(dir)).toEqual(summary(wholeDir));
  expect((readJson(path.join(dir, "summary.json")) as { status: string }).status).toBe("completed");
}, 300_000);
