import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cli, DATA, ROOT, runDirs, tempDir } from "../helpers/cli.js";

const work = tempDir();
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

/** The hooks that acted from `since` to the end of a GOOG run ending at `to`, as [time, kind]. */
function hooksSince(since: string, to: string | null): [string, string][] {
  const runs = path.join(work, `runs-${to ?? "all"}`);
  const r = cli(
    [
      "run",
      path.join(ROOT, "test/fixtures/strategies/period-hooks.ts"),
      "--data",
      path.join(DATA, "GOOG.csv"),
      "--from",
      "2013-01-02",
      ...(to ? ["--to", to] : []),
      "--runs-dir",
      runs,
      "-q",
    ],
    work,
  );
  expect(r.status, r.stderr).toBe(0);
  const [dir] = runDirs(runs);
  const lines = fs
    .readFileSync(path.join(dir as string, "decisions.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { time: string; kind: string });
  return lines.filter((l) => l.time >= since).map((l) => [l.time, l.kind]);
}

describe("onRunEnd: the code strategy's hook at the last bar of the window", () => {
  it("a window ending on Wednesday 2013-02-27: run_end only (Friday the 22nd ended its week)", () => {
    expect(hooksSince("2013-02-22", "2013-02-27")).toEqual([
      ["2013-02-22", "week_end"],
      ["2013-02-27", "run_end"],
    ]);
  });

  it("ending on Thursday 2013-02-28: the month ends (March 1 is next month), the week does not", () => {
    expect(hooksSince("2013-02-28", "2013-02-28")).toEqual([
      ["2013-02-28", "month_end"],
      ["2013-02-28", "run_end"],
    ]);
  });

  it("ending on Friday 2013-03-01 (the data's end): the week ends, then run_end", () => {
    expect(hooksSince("2013-03-01", null)).toEqual([
      ["2013-03-01", "week_end"],
      ["2013-03-01", "run_end"],
    ]);
  });
});
