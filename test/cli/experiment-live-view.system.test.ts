import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BIN, cli, DATA, ROOT, readJson, tempDir } from "../helpers/cli.js";
import { type ScriptedServer, startScriptedServer } from "../helpers/scripted-openai-server.js";
import { seededTrader } from "../helpers/seeded-trader.js";
import { TmuxPane } from "../helpers/tmux.js";

// The live view of an LLM experiment in a real pseudo-terminal (tmux), against the scripted
// server answering every call 250 ms late, so calls are in flight while frames are captured.

const work = tempDir("agenticbt-experiment-view-");
const DELAY_MS = 250;
const server: ScriptedServer = await startScriptedServer((req) => ({
  delayMs: DELAY_MS,
  answer: seededTrader(req),
}));
const panes: TmuxPane[] = [];
afterAll(async () => {
  for (const p of panes) p.kill();
  await server.close();
  fs.rmSync(work, { recursive: true, force: true });
});
fs.copyFileSync(path.join(DATA, "GOOG.csv"), path.join(work, "GOOG.csv"));
const STRATEGY = path.join(ROOT, "strategies", "rsi-mean-reversion.md");

interface Line {
  key: string;
  status: string;
  metrics: Record<string, number | null>;
}

interface Summary {
  done: number;
  total: number;
  budget: { usd: number | null; spentUsd: number | null };
}

async function experiment(
  name: string,
  width: number,
  args: string[],
  resizeTo: number | null = null,
): Promise<{
  frames: string[];
  code: number | null;
  dir: string;
  lines: Line[];
  resizedAt: number | null;
}> {
  const root = path.join(work, name);
  const pane = new TmuxPane(
    [
      process.execPath,
      BIN,
      "sweep",
      STRATEGY,
      "--data",
      "GOOG.csv",
      "--base-url",
      server.url,
      "--no-cache",
      "--yes",
      "--every",
      "5",
      "--runs-dir",
      path.join(root, "runs"),
      ...args,
    ],
    { cwd: work, env: { OPENAI_API_KEY: "test" }, width, height: 30 },
  );
  panes.push(pane);
  const frames: string[] = [];
  let exitCode: number | null = null;
  let resizedAt: number | null = null;
  for (const end = Date.now() + 240_000; Date.now() < end; ) {
    const frame = pane.capture();
    frames.push(frame);
    exitCode = pane.exitCode();
    if (exitCode !== null) {
      frames.push(pane.capture());
      break;
    }
    // Half-way, the terminal is narrowed: the view is drawn again at the new width.
    if (resizeTo !== null && resizedAt === null && (runsOf(frame)?.done ?? 0) >= 3) {
      pane.resize(resizeTo, 30);
      resizedAt = frames.length;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const sweeps = path.join(root, "sweeps");
  const [id] = fs.readdirSync(sweeps);
  const dir = path.join(sweeps, id as string);
  const lines = fs
    .readFileSync(path.join(dir, "results.jsonl"), "utf8")
    .split("\n")
    .filter((l) => l.endsWith("}"))
    .map((l) => JSON.parse(l) as Line);
  return { frames, code: exitCode, dir, lines, resizedAt };
}

/** `runs 3/12 done · 4 running · 5 waiting` of a frame, as numbers. */
function runsOf(frame: string) {
  const m = /runs (\d+)\/(\d+) done · (\d+) running · (\d+) waiting/.exec(frame);
  return m ? { done: +m[1]!, total: +m[2]!, running: +m[3]!, waiting: +m[4]! } : null;
}
const inFlightOf = (frame: string) => {
  const m = /calls in flight (\d+)(?: \(oldest ([\d.]+) s\))?/.exec(frame);
  return m ? { count: +m[1]!, oldestS: m[2] === undefined ? null : +m[2] } : null;
};
const tokensOf = (l: Line) => l.metrics.tokens ?? 0;

for (const [label, width, args, jobs] of [
  [
    "a small experiment at 80 columns",
    80,
    ["--grid", "memory=none,files", "--windows", "2012-01-01:2012-02-29", "--jobs", "2"],
    2,
  ],
  [
    "a long experiment at 120 columns",
    120,
    [
      "--grid",
      "memory=none,files,layered",
      "--windows",
      "2012-01-01:2012-02-29,2012-03-01:2012-04-30",
      "--repeats",
      "2",
      "--jobs",
      "4",
      "--budget-usd",
      "5",
    ],
    4,
  ],
] as const) {
  describe(`the live view of ${label}`, async () => {
    // The long one is narrowed to 80 columns half-way.
    const narrowTo = width === 120 ? 80 : null;
    const { frames, code, dir, lines, resizedAt } = await experiment(
      `w${width}`,
      width,
      args as unknown as string[],
      narrowTo,
    );
    const summary = readJson<Summary>(path.join(dir, "summary.json"));
    const last = frames.at(-1) ?? "";

    it("runs to the end", () => {
      expect(code, last).toBe(0);
      expect(lines.length).toBe(summary.total);
    });

    it("shows runs running and waiting, and calls in flight with the oldest's wait", () => {
      const mid = frames.filter((f) => (runsOf(f)?.running ?? 0) > 0);
      expect(mid.length, frames.join("\n----\n")).toBeGreaterThan(3);
      for (const f of mid) {
        const r = runsOf(f)!;
        expect(r.total).toBe(summary.total);
        expect(r.running).toBeLessThanOrEqual(jobs);
        expect(r.done + r.running + r.waiting).toBe(r.total);
        // Every run under way has its line: key, cell, window, repeat.
        const runLines = f.split("\n").filter((l) => /^ {2}c\d+-w\d+-r\d+ {2}memory=/.test(l));
        expect(runLines.length).toBe(r.running);
        const flight = inFlightOf(f);
        expect(flight).not.toBeNull();
        expect(flight!.count).toBeLessThanOrEqual(r.running);
      }
      // A call takes 250 ms: some frame catches calls in flight and one waiting for a while.
      const waited = mid.map(inFlightOf).filter((x) => x !== null && x.count > 0);
      expect(waited.length).toBeGreaterThan(0);
      expect(Math.max(...waited.map((x) => x!.oldestS ?? 0))).toBeGreaterThan(0.1);
      // With jobs > 1, calls of several runs are in flight at once.
      expect(Math.max(...waited.map((x) => x!.count))).toBeGreaterThan(1);
      // Bars progress on some run's line.
      expect(mid.some((f) => /\d+\/\d+ bars/.test(f))).toBe(true);
    });

    it("never draws a line wider than the terminal", () => {
      for (const f of frames)
        for (const l of f.split("\n")) expect(l.length, l).toBeLessThanOrEqual(width);
    });

    if (narrowTo !== null)
      it("draws itself again, whole and once, when the terminal is narrowed", () => {
        expect(resizedAt).not.toBeNull();
        // A few frames on, once the view has had the new size: one header, its figures, no
        // line of the wider frame left behind.
        const after = frames.slice((resizedAt as number) + 5, -1);
        const running = after.filter((f) => (runsOf(f)?.running ?? 0) > 0);
        expect(running.length).toBeGreaterThan(0);
        for (const f of running) {
          expect(f.match(/^Experiment rsi-mean-reversion/gm)).toHaveLength(1);
          expect(f.match(/^\[[█░]+\] runs \d+\/12 done/gm)).toHaveLength(1);
          expect(f).toMatch(/^calls in flight \d+/m);
          expect(f).toMatch(/^spent \$\d+\.\d{4} of budget \$5$/m);
          for (const l of f.split("\n")) expect(l.length, l).toBeLessThan(narrowTo);
        }
      });

    it("ends on true figures: runs done as results.jsonl, tokens and spend as summary.json", () => {
      const r = runsOf(last);
      expect(r).toEqual({ done: lines.length, total: lines.length, running: 0, waiting: 0 });
      expect(inFlightOf(last)?.count).toBe(0);
      const tokens = lines.reduce((n, l) => n + tokensOf(l), 0);
      expect(tokens).toBeGreaterThan(0);
      expect(last).toContain(`tokens ${tokens.toLocaleString("en-US")}`);
      const spent = summary.budget.spentUsd;
      expect(spent).not.toBeNull();
      expect(spent).toBeGreaterThan(0);
      expect(last).toContain(`spent $${spent!.toFixed(4)}`);
      if (summary.budget.usd !== null) expect(last).toContain(`of budget $${summary.budget.usd}`);
      expect(last).toMatch(/^Experiment rsi-mean-reversion \(completed\)/m);
    });
  });
}

describe("an experiment whose model has no price", async () => {
  const { frames, code, dir } = await experiment("unpriced", 100, [
    "--model",
    "local-model",
    "--grid",
    "memory=none,files",
    "--windows",
    "2012-01-01:2012-01-31",
  ]);
  const runs = path.join(work, "unpriced", "runs");
  const cliOut = (...a: string[]) =>
    cli([...a, "--runs-dir", runs], work, { ...process.env, COLUMNS: "200" });

  it("shows the spend as unknown in the view, never $0.0000", () => {
    expect(code).toBe(0);
    const withCalls = frames.filter((f) => /calls (\d+)/.exec(f.replace(/calls in flight/g, "")));
    expect(withCalls.length).toBeGreaterThan(0);
    for (const f of frames) expect(f).not.toContain("$0.0000");
    expect(frames.at(-1)).toContain("spent unknown (a model's price is unknown)");
  });

  it("shows it unknown in list and show of the experiment", () => {
    const list = cliOut("list");
    expect(list.status, list.stderr).toBe(0);
    expect(list.stdout).not.toContain("$0.0000");
    const [runsTable, sweepsTable] = list.stdout.split("\nSweeps:");
    const row = sweepsTable?.split("\n").find((l) => l.startsWith(path.basename(dir)));
    expect(row).toMatch(/completed\s+2\/2\s+unknown\s+experiment:/);
    // The experiment's run too: an LLM run without a price has cost "unknown", not "-".
    expect(runsTable).toMatch(/local-model\s+completed\s.*\sunknown\s*$/m);
    const show = cliOut("show", path.basename(dir));
    expect(fs.readFileSync(path.join(dir, "report.html"), "utf8")).toContain(
      "Spent unknown (a model&#39;s price is unknown",
    );
    expect(show.status, show.stderr).toBe(0);
    expect(show.stdout).toContain("Spent unknown");
    expect(show.stdout).not.toContain("$0.0000");
  });

  it("shows the runs' cost as unknown in compare", () => {
    const ids = fs.readdirSync(runs).sort();
    expect(ids).toHaveLength(2);
    const r = cliOut("compare", ...ids);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^ {2}cost USD\s+unknown\s+unknown\s*$/m);
    expect(r.stdout).not.toContain("$0.0000");
  });
});
