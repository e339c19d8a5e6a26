import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DISTILL_TRANSCRIPT_FILE } from "../../src/config/memory-command-settings.js";
import { distillOutputSchema } from "../../src/rundir/memory-command-schemas.js";
import { cli, cliRun, DATA, readJson, runArgs, runDirs, tempDir } from "../helpers/cli.js";
import { finishedRunDir } from "../helpers/finished-run.js";
import {
  type ScriptedServer,
  type Step,
  startScriptedServer,
} from "../helpers/scripted-openai-server.js";

const work = tempDir();
const runs = path.join(work, ".agenticbt", "runs");
const memory = path.join(work, ".agenticbt", "memory");
finishedRunDir(runs, "run-a", { start: "2020-01-02", end: "2020-03-31" }, [
  "Cut losses at 2 percent.",
]);
finishedRunDir(runs, "run-b", { start: "2020-04-01", end: "2020-06-30" }, [
  "Stops at two percent saved the quarter.",
]);
const ANSWER = JSON.stringify({
  entries: [
    { title: "Stop at 2%", text: "Both runs cut losses at 2%.", runs: ["run-a", "run-b"] },
    { title: "Q1 stops", text: "The first quarter's stops held.", runs: ["run-a"] },
  ],
});

let steps: Step[] = [];
let offset = 0;
let server: ScriptedServer;
beforeAll(async () => {
  server = await startScriptedServer((_req, i) => steps[i - offset] ?? { status: 500 });
});
/** The next requests are answered by `next`, in order. */
function script(...next: Step[]): void {
  offset = server.requests.length;
  steps = next;
}
afterAll(async () => {
  await server.close();
  fs.rmSync(work, { recursive: true, force: true });
});

const distill = (into: string, ...more: string[]) =>
  cliRun(
    ["memory", "distill", "run-a", "run-b", "--into", into, "--runs-dir", runs]
      .concat(["--cache-dir", path.join(work, "cache")])
      .concat(more),
    work,
  );

describe("agenticbt memory distill --model", () => {
  it("writes the scripted model's entry; --replay of the store asks nothing and writes the same", async () => {
    script({ content: ANSWER });
    const out = await distill("cli", "--model", "m", "--base-url", server.url, "--json");
    expect(out.status, out.stderr).toBe(0);
    const r = distillOutputSchema.parse(JSON.parse(out.stdout));
    expect(r.entries).toEqual([
      {
        file: "lesson_stop_at_2.md",
        title: "Stop at 2%",
        kind: "lesson",
        runs: ["run-a", "run-b"],
        period: "2020-01-02 00:00 .. 2020-03-31 00:00 + 2020-04-01 00:00 .. 2020-06-30 00:00",
      },
      {
        file: "lesson_q1_stops.md",
        title: "Q1 stops",
        kind: "lesson",
        runs: ["run-a"],
        period: "2020-01-02 00:00 .. 2020-03-31 00:00",
      },
    ]);
    expect(r.model).toMatchObject({ name: "m", fallback: null, calls: { network: 1 } });
    const file = fs.readFileSync(path.join(memory, "cli", "lesson_stop_at_2.md"), "utf8");
    expect(file).toContain("run: run-a+run-b\nperiod: 2020-01-02 00:00 .. 2020-06-30 00:00\n");
    expect(server.requests).toHaveLength(1);

    const again = await distill("cli2", "--replay", path.join(memory, "cli"));
    expect(again.status, again.stderr).toBe(0);
    expect(server.requests).toHaveLength(1);
    expect(again.stdout).toContain("with m (1 call(s): 0 network, 0 cache, 1 replay):");
    expect(again.stdout).toContain(
      `Model calls recorded in ${path.join(memory, "cli2", DISTILL_TRANSCRIPT_FILE)}`,
    );
    for (const name of ["lesson_stop_at_2.md", "lesson_q1_stops.md", "MEMORY.md"]) {
      expect(fs.readFileSync(path.join(memory, "cli2", name), "utf8")).toBe(
        fs.readFileSync(path.join(memory, "cli", name), "utf8"),
      );
    }
  });

  it("hides an entry from a persistent run that starts before its last source run ends", () => {
    // April 2020 starts before run-b ends (June 30): the entry drawing on run-b is hidden, the
    // one drawing on run-a alone (ended March 31) is in the index. July sees both.
    const persistent = (from: string, to: string) =>
      cli(
        runArgs(
          "test/fixtures/strategies/journal-and-recall.ts",
          path.join(DATA, "SPY_D.csv"),
          runs,
        )
          .concat(["--from", from, "--to", to, "--name", `p-${from}`])
          .concat(["--memory", "persistent", "--memory-namespace", "cli"]),
        work,
      );
    const april = persistent("2020-04-01", "2020-04-30");
    expect(april.status, april.stderr).toBe(0);
    const july = persistent("2020-07-01", "2020-07-31");
    expect(july.status, july.stderr).toBe(0);
    const memoryOf = (name: string) => {
      const dir = runDirs(runs).find((d) => path.basename(d).includes(name))!;
      return readJson<{ memory: Record<string, number> }>(path.join(dir, "result.json")).memory;
    };
    expect(memoryOf("p-2020-04-01")).toMatchObject({
      persistentLookAheadFlagged: 1,
      persistentIndexLines: 1,
    });
    expect(memoryOf("p-2020-07-01")).toMatchObject({
      persistentLookAheadFlagged: 0,
      persistentIndexLines: 2,
    });
  });

  it("says on stderr when it falls back to the rules, and exits 0", async () => {
    script({ content: "no" }, { content: "{}" });
    const out = await distill("fb", "--model", "m", "--base-url", server.url, "--no-cache");
    expect(out.status, out.stderr).toBe(0);
    expect(out.stderr).toContain(
      "warning: The deterministic distillation was written instead: the model's answer could not be used after 2 attempt(s): it does not have the asked form at entries",
    );
    expect(out.stdout).toContain("by the rules (m not used: see the warning):");
    expect(out.stdout).toContain("2 lesson entries, 0 review entries");
  });

  it("refuses a model's setting without --model, and a replay of nothing", () => {
    const bad = cli(
      ["memory", "distill", "run-a", "--into", "x", "--temperature", "0", "--runs-dir", runs],
      work,
    );
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain("--temperature applies to a model's distillation");
    const dated = cli(
      ["memory", "distill", "run-a", "--into", "x", "--date-by", "all", "--runs-dir", runs],
      work,
    );
    expect(dated.status).toBe(2);
    expect(dated.stderr).toContain("--date-by applies to a model's distillation");
    const none = cli(
      [
        "memory",
        "distill",
        "run-a",
        "--into",
        "x",
        "--replay",
        path.join(work, "nope"),
        "--runs-dir",
        runs,
      ],
      work,
    );
    expect(none.status).toBe(2);
    expect(none.stderr).toContain("it does not exist");
    expect(fs.existsSync(path.join(memory, "x"))).toBe(false);
    const help = cli(["memory", "distill", "--help"], work);
    for (const flag of [
      "--model <name>",
      "--replay <file|store>",
      "--answer-retries <n>",
      "--max-cost <usd>",
      "--no-cache",
    ]) {
      expect(help.stdout).toContain(flag);
    }
  });
});
