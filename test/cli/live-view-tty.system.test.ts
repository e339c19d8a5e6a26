import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BIN, DATA, tempDir } from "../helpers/cli.js";
import { sliceCsv } from "../helpers/llm-run.js";
import { captureUntilExit, TmuxPane } from "../helpers/tmux.js";

const panes: TmuxPane[] = [];
afterAll(() => {
  for (const pane of panes) pane.kill();
});

/** A code strategy slow enough (5 ms a bar) for frames to be captured mid-run. */
const SLOW_STRATEGY = `
export default {
  name: "slow-buyer",
  async onBar(ctx) {
    await new Promise((r) => setTimeout(r, 5));
    if (ctx.position() === 0) ctx.buy({ qty: 3 });
  },
};
`;

interface ViewProcess {
  argv: string[];
  /** The nice value of each of its threads. */
  threadNice: number[];
}

/** The live view processes whose working directory is `cwd` (the run's), from /proc. */
function viewProcesses(cwd: string): ViewProcess[] {
  const out: ViewProcess[] = [];
  for (const pid of fs.readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      const argv = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
      if (!argv.some((a) => a.endsWith("live-view.bundle.js"))) continue;
      if (fs.realpathSync(`/proc/${pid}/cwd`) !== fs.realpathSync(cwd)) continue;
      const threadNice = fs.readdirSync(`/proc/${pid}/task`).map((tid) => {
        const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
        // Fields after the command's closing parenthesis; nice is field 19 (the 17th after it).
        return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16]);
      });
      out.push({ argv, threadNice });
    } catch {
      // Gone meanwhile.
    }
  }
  return out;
}

const midRun = (frame: string) => /\b([1-9]|[1-9]\d)% \d{4}-\d\d-\d\d/.test(frame);

describe("the live view in a pseudo-terminal", () => {
  it("shows progress, the simulated date, equity and positions mid-run, then the summary", async () => {
    const work = tempDir();
    const strategy = path.join(work, "slow.mjs");
    fs.writeFileSync(strategy, SLOW_STRATEGY);
    const csv = sliceCsv(path.join(DATA, "GOOG.csv"), 300, work);
    const pane = new TmuxPane(
      [
        process.execPath,
        BIN,
        "run",
        strategy,
        "--data",
        csv,
        "--runs-dir",
        path.join(work, "runs"),
      ],
      { cwd: work },
    );
    panes.push(pane);
    const { frames, exitCode } = await captureUntilExit(pane);
    expect(exitCode).toBe(0);
    const mid = frames.find(midRun);
    expect(mid, frames.join("\n----\n")).toBeDefined();
    const m = mid as string;
    expect(m).toContain("slow-buyer on GOOG");
    // GOOG.csv's first 300 bars: 2004-08-19 → 2005-10-25.
    expect(m).toMatch(/% 200[45]-\d\d-\d\d · bar \d+\/300 · ETA \d+:\d\d/);
    // The bar is 30 cells, filled in proportion to the bars done (none yet at 1%).
    const done = Number(/ · bar (\d+)\/300/.exec(m)?.[1]);
    const filled = Math.round((done / 300) * 30);
    expect(m).toContain(`[${"█".repeat(filled)}${"░".repeat(30 - filled)}]`);
    expect(m).toMatch(
      /Equity \d[\d,]*\.\d\d {2}Return [+-]\d+\.\d\d% {2}Buy & hold [+-]\d+\.\d\d% {2}Drawdown now -?\d+\.\d\d% {2}Max drawdown -?\d+\.\d\d%/,
    );
    expect(m).toContain("Positions GOOG 3");
    // Never drawn as escape codes: capture-pane shows what the terminal shows.
    expect(m).not.toContain("␛");
    const last = frames.at(-1) as string;
    expect(last).toContain("100% 2005-10-25 · bar 300/300");
    expect(last).toContain("· completed");
    // The summary table follows the final frame.
    expect(last.indexOf("Return %")).toBeGreaterThan(last.indexOf("· completed"));
    fs.rmSync(work, { recursive: true, force: true });
  });

  it("prints bad input's error alone, and its view process (started with the CLI) goes", async () => {
    const work = tempDir();
    const pane = new TmuxPane(
      [process.execPath, BIN, "run", "no-such-strategy.ts", "--data", path.join(DATA, "GOOG.csv")],
      { cwd: work },
    );
    panes.push(pane);
    const { frames, exitCode } = await captureUntilExit(pane);
    expect(exitCode).toBe(2);
    const last = (frames.at(-1) as string).trim();
    expect(last).toMatch(/^error: Strategy file not found: no-such-strategy\.ts\./);
    expect(last).not.toContain("░");
    const end = Date.now() + 5000;
    while (viewProcesses(work).length > 0 && Date.now() < end) {
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(viewProcesses(work)).toEqual([]);
    fs.rmSync(work, { recursive: true, force: true });
  });

  it("prints plain lines, no live view, with --no-ui", async () => {
    const work = tempDir();
    const csv = sliceCsv(path.join(DATA, "GOOG.csv"), 100, work);
    const pane = new TmuxPane(
      [
        process.execPath,
        BIN,
        "run",
        path.join(path.dirname(BIN), "..", "strategies", "buy-and-hold.ts"),
        "--data",
        csv,
        "--runs-dir",
        path.join(work, "runs"),
        "--no-ui",
      ],
      { cwd: work },
    );
    panes.push(pane);
    const { frames, exitCode } = await captureUntilExit(pane);
    expect(exitCode).toBe(0);
    const last = frames.at(-1) as string;
    // The plain renderer's start and end lines (on stderr, which is the pane too).
    expect(last).toMatch(/run \S+: buy-and-hold on GOOG, 100 bars \(2004-08-19 → 2005-01-10\)/);
    expect(last).toMatch(/run \S+: completed in \d+\.\d\d s/);
    expect(last).not.toContain("█");
    fs.rmSync(work, { recursive: true, force: true });
  });
});

describe("a terminal that cannot draw the live view", () => {
  for (const [what, env, width] of [
    ["TERM=dumb", { TERM: "dumb" }, 120],
    ["a terminal 30 columns wide", {}, 30],
  ] as const) {
    it(`gets plain lines on ${what}`, async () => {
      const work = tempDir();
      const csv = sliceCsv(path.join(DATA, "GOOG.csv"), 100, work);
      const pane = new TmuxPane(
        [
          process.execPath,
          BIN,
          "run",
          path.join(path.dirname(BIN), "..", "strategies", "buy-and-hold.ts"),
          "--data",
          csv,
          "--runs-dir",
          path.join(work, "runs"),
        ],
        // Tall enough that the summary, wrapped at 30 columns, leaves the end line on screen.
        { cwd: work, env, width, height: 150 },
      );
      panes.push(pane);
      const { frames, exitCode } = await captureUntilExit(pane);
      expect(exitCode).toBe(0);
      // Unwrapped: the plain lines may wrap at 30 columns, the words stay.
      const all = frames.map((f) => f.replaceAll("\n", "")).join("\n");
      expect(all).toMatch(/run \S+: buy-and-hold on GOOG, 100 bars/);
      expect(all).toMatch(/run \S+: completed in \d+\.\d\d s/);
      for (const frame of frames) {
        expect(frame).not.toContain("░");
        expect(frame).not.toContain("ETA");
      }
      fs.rmSync(work, { recursive: true, force: true });
    });
  }
});

describe("Ctrl-C on the live view", () => {
  it("reaches the run's handler: the run ends interrupted, the notice is in the frame", async () => {
    const work = tempDir();
    const strategy = path.join(work, "slow.mjs");
    fs.writeFileSync(strategy, SLOW_STRATEGY);
    const csv = sliceCsv(path.join(DATA, "GOOG.csv"), 1000, work);
    const runs = path.join(work, "runs");
    const pane = new TmuxPane(
      [process.execPath, BIN, "run", strategy, "--data", csv, "--runs-dir", runs],
      { cwd: work },
    );
    panes.push(pane);
    const end = Date.now() + 30_000;
    while (!midRun(pane.capture()) && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
    // The view draws from a process of its own, every thread of it at nice 10 or lower, its
    // JavaScript never optimized: it yields the CPU to the run.
    const views = viewProcesses(work);
    expect(views).toHaveLength(1);
    const view = views[0] as ViewProcess;
    expect(view.argv).toContain("--max-opt=1");
    expect(view.threadNice.length).toBeGreaterThan(1);
    for (const nice of view.threadNice) expect(nice).toBeGreaterThanOrEqual(10);
    pane.sendKeys("C-c");
    const { frames, exitCode } = await captureUntilExit(pane);
    expect(exitCode).toBe(1);
    const last = frames.at(-1) as string;
    expect(last).toContain("Interrupted: finishing the current bar");
    expect(last).toContain("· interrupted");
    const [dir] = fs.readdirSync(runs);
    const result = JSON.parse(
      fs.readFileSync(path.join(runs, dir as string, "result.json"), "utf8"),
    );
    expect(result.status).toBe("interrupted");
    fs.rmSync(work, { recursive: true, force: true });
  });
});
