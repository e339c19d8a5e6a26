import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cli, DATA, ROOT, readJson, runArgs, runDirs, tempDir } from "../helpers/cli.js";

const work = tempDir();
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

/** A working directory with its own agenticbt.config.json (or none). */
function project(name: string, config?: unknown): string {
  const dir = path.join(work, name);
  fs.mkdirSync(dir);
  if (config !== undefined)
    fs.writeFileSync(path.join(dir, "agenticbt.config.json"), JSON.stringify(config));
  return dir;
}

const run = (cwd: string, ...extra: string[]) =>
  cli(
    runArgs("strategies/buy-and-hold.ts", path.join(DATA, "GOOG.csv"), "runs", "--json", ...extra),
    cwd,
  );

describe("memory policy options", () => {
  it("--memory files,persistent --memory-namespace x: the persistent run of the series uses namespace x", () => {
    const cwd = project("series-namespace");
    const r = run(cwd, "--memory", "files,persistent", "--memory-namespace", "desk_a");
    expect(r.status, r.stderr).toBe(0);
    const persistent = runDirs(path.join(cwd, "runs"))
      .map((d) =>
        readJson<{ memory: { system: string; config: unknown } }>(path.join(d, "config.json")),
      )
      .find((c) => c.memory.system === "persistent");
    expect(persistent?.memory.config).toEqual({ namespace: "desk_a" });
  });

  it("config block, then --policy-overrides: the later source wins, and both are recorded", () => {
    const cwd = project("precedence", { memory: { retrieve_limit: 7, recent_days: 2 } });
    fs.writeFileSync(path.join(cwd, "over.json"), JSON.stringify({ retrieve_limit: 3 }));
    const r = run(cwd, "--policy-overrides", "over.json");
    expect(r.status, r.stderr).toBe(0);
    const [dir] = runDirs(path.join(cwd, "runs"));
    const recorded = readJson<{ memoryPolicy: Record<string, unknown> }>(
      path.join(dir as string, "config.json"),
    );
    expect(recorded.memoryPolicy).toMatchObject({
      policy: { retrieve_limit: 3, recent_days: 2, evolution_enabled: false },
      config: { retrieve_limit: 7, recent_days: 2 },
      overrides: { retrieve_limit: 3 },
    });
    expect(readJson(path.join(dir as string, "policy_overrides.json"))).toEqual({
      retrieve_limit: 3,
    });
  });

  it.each([
    [
      { memory: { retrieve_limit: 0 } },
      [],
      /agenticbt\.config\.json: memory\.retrieve_limit must be from 1 to 20.*got 0/,
    ],
    [
      { memory: { retreive_limit: 5 } },
      [],
      /memory\.retreive_limit is not a memory policy key \(did you mean retrieve_limit\?\)/,
    ],
    [
      { memory: { evolution_enabled: "yes" } },
      [],
      /memory\.evolution_enabled must be true or false/,
    ],
    [undefined, ["--policy-overrides", "missing.json"], /missing\.json: it does not exist/],
    [
      undefined,
      ["--memory", "persistent", "--memory-namespace", "../evil"],
      /Invalid --memory-namespace "\.\.\/evil"/,
    ],
  ])("bad input %# exits 2 before a run directory exists", (config, extra, message) => {
    const cwd = project(`bad-${Math.random().toString(36).slice(2)}`, config);
    const r = run(cwd, ...(extra as string[]));
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(fs.existsSync(path.join(cwd, "runs"))).toBe(false);
  });

  it("a persistent entry from a run whose period reaches past this run's start is warned about on stderr and counted", () => {
    const cwd = project("lookahead");
    const store = path.join(cwd, ".agenticbt", "memory", "default");
    fs.mkdirSync(store, { recursive: true });
    // GOOG.csv starts on 2004-08-19; this entry's run covered 2004-01-02 … 2005-12-30.
    fs.writeFileSync(
      path.join(store, "lesson_future.md"),
      "---\nname: future\ndescription: future\ntype: lesson\nrun: old-run\nperiod: 2004-01-02 00:00 .. 2005-12-30 00:00\nwritten: 2005-12-30 00:00\n---\n\nGOOG doubles by 2005.\n",
    );
    fs.writeFileSync(path.join(store, "MEMORY.md"), "- [future](lesson_future.md)\n");
    const r = cli(
      [
        "run",
        path.join(ROOT, "strategies/buy-and-hold.ts"),
        "--data",
        path.join(DATA, "GOOG.csv"),
        "--memory",
        "persistent",
        "--runs-dir",
        ".agenticbt/runs",
        "--json",
      ],
      cwd,
    );
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      'warning: persistent memory "default": 1 entry was written by runs whose simulated period ends after this run starts, and is hidden from the agent to avoid look-ahead: lesson_future.md.',
    );
    expect(JSON.parse(r.stdout).memory).toMatchObject({
      persistentEntriesAtStart: 1,
      persistentLookAheadFlagged: 1,
      persistentIndexLines: 0,
    });
  });
});
