import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { distillOutputSchema } from "../../src/rundir/memory-command-schemas.js";
import { cli, DATA, readJson, runArgs, runDirs, tempDir } from "../helpers/cli.js";

const work = tempDir();
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));
const runs = path.join(work, ".agenticbt", "runs");
const spy = path.join(DATA, "SPY_D.csv");

type Memory = { persistentLookAheadFlagged: number; persistentIndexLines: number };
const memoryOf = (dir: string) =>
  readJson<{ memory: Memory }>(path.join(dir, "result.json")).memory;

describe("agenticbt memory distill, then a persistent run reads the store", () => {
  // November 1999: 21 bars (index 0..20). memory-history appends a lesson at bars 0 and 17,
  // reviews each ISO week (W44..W47) and the month (1999-11).
  const source = cli(
    runArgs("test/fixtures/strategies/memory-history.ts", spy, runs, "--to", "1999-11-30"),
    work,
  );
  const [dir] = runDirs(runs);
  const id = path.basename(dir!);

  it("writes one entry per lesson and the monthly review, dated by the run's period", () => {
    expect(source.status, source.stderr).toBe(0);
    const out = cli(["memory", "distill", id, "--into", "nov", "--runs-dir", runs, "--json"], work);
    expect(out.status, out.stderr).toBe(0);
    const r = distillOutputSchema.parse(JSON.parse(out.stdout));
    expect(r.runs).toEqual([
      { id, period: "1999-11-01 00:00 .. 1999-11-30 00:00", lessons: 2, reviews: 5 },
    ]);
    expect(r.entries.map((e) => e.kind)).toEqual(["lesson", "lesson", "review"]);
    const store = path.join(work, ".agenticbt", "memory", "nov");
    const text = fs.readFileSync(path.join(store, r.entries[0]!.file), "utf8");
    expect(text).toContain(`run: ${id}\nperiod: 1999-11-01 00:00 .. 1999-11-30 00:00\n`);
    expect(text).toContain("lesson 0: stop discipline, risk 0");
    expect(fs.readFileSync(path.join(store, "MEMORY.md"), "utf8").trim().split("\n")).toHaveLength(
      3,
    );
  });

  it("--reviews all adds the 4 weekly reviews; --min-runs 2 over one run keeps no lesson", () => {
    const all = cli(
      [
        "memory",
        "distill",
        id,
        "--into",
        "every",
        "--reviews",
        "all",
        "--runs-dir",
        runs,
        "--json",
      ],
      work,
    );
    expect(JSON.parse(all.stdout).entries).toHaveLength(2 + 5);
    const shared = cli(
      ["memory", "distill", id, "--into", "shared", "--min-runs", "2", "--reviews", "none"].concat([
        "--runs-dir",
        runs,
        "--json",
      ]),
      work,
    );
    expect(JSON.parse(shared.stdout)).toMatchObject({ entries: [], lessonsBelowMinRuns: 2 });
    const bad = cli(
      ["memory", "distill", id, "--into", "x", "--min-runs", "0", "--runs-dir", runs],
      work,
    );
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain("--min-runs");
  });

  it("hides the entries from a run that starts before 1999-11-30, shows them after", () => {
    const overlap = cli(
      runArgs(
        "test/fixtures/strategies/journal-and-recall.ts",
        spy,
        runs,
        "--to",
        "1999-11-30",
      ).concat(["--memory", "persistent", "--memory-namespace", "nov"]),
      work,
    );
    expect(overlap.status, overlap.stderr).toBe(0);
    expect(overlap.stderr).toContain("3 entries were written by runs whose simulated period ends");
    const later = cli(
      runArgs("test/fixtures/strategies/journal-and-recall.ts", spy, runs)
        .concat(["--from", "1999-12-01", "--to", "1999-12-31"])
        .concat(["--memory", "persistent", "--memory-namespace", "nov"]),
      work,
    );
    expect(later.status, later.stderr).toBe(0);
    const [, first, second] = runDirs(runs);
    expect(memoryOf(first!)).toMatchObject({
      persistentLookAheadFlagged: 3,
      persistentIndexLines: 0,
    });
    expect(memoryOf(second!)).toMatchObject({
      persistentLookAheadFlagged: 0,
      persistentIndexLines: 3,
    });
  });
});
