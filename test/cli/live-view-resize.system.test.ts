import fs from "node:fs";
import path from "node:path";
import stringWidth from "string-width";
import { afterAll, describe, expect, it } from "vitest";
import { BIN, DATA, ROOT, tempDir } from "../helpers/cli.js";
import { sliceCsv } from "../helpers/llm-run.js";
import { captureUntilExit, TmuxPane } from "../helpers/tmux.js";

const panes: TmuxPane[] = [];
afterAll(() => {
  for (const pane of panes) pane.kill();
});

const SLOW = path.join(ROOT, "test", "fixtures", "strategies", "slow.ts");

/** What one figure of the view reads; a line of figures is several of them, two spaces apart. */
const CELLS = [
  /Equity \d[\d,]*\.\d\d/,
  /Return ([+-]\d+\.\d\d%|—)/,
  /Buy & hold ([+-]\d+\.\d\d%|—)/,
  /Drawdown now (-?\d+\.\d\d%|—)/,
  /Max drawdown (-?\d+\.\d\d%|—)/,
  /Fills \d[\d,]*/,
  /trades (closed \d[\d,]*|\d[\d,]*( \(\d[\d,]* open at end\))?)/,
  /rejected \d[\d,]*/,
  /failed decisions \d[\d,]*/,
  /retries \d[\d,]*/,
  /Positions (none|GOOG \d+)/,
];
const CELL_LINE = new RegExp(
  `^(${CELLS.map((c) => c.source).join("|")})( {2}(${CELLS.map((c) => c.source).join("|")}))*$`,
);
const TITLE = /^slow on GOOG · run \S+$/;
const PROGRESS =
  /^\[[█░]{10,30}\] +\d+% \d{4}-\d\d-\d\d · bar [\d,]+\/[\d,]+ · ETA (\d+:\d\d|—)( · completed)?$/;
/** Code runs show their last orders (the fixture buys once, at its fourth bar). */
const LAST_ORDERS = /^Last orders 200\d-\d\d-\d\d: BUY 100% GOOG market$/;

/** Lines of a frame that are not any line the view draws now (a stale or reflowed one). */
function foreignLines(frame: string): string[] {
  return frame
    .split("\n")
    .filter((l) => l.trim() !== "")
    .filter(
      (l) => !(TITLE.test(l) || PROGRESS.test(l) || LAST_ORDERS.test(l) || CELL_LINE.test(l)),
    );
}

/** Each label the view draws once: twice means an older frame's line stayed on screen. */
function repeatedLabels(frame: string): string[] {
  const labels = [
    "slow on GOOG",
    "ETA",
    "Equity",
    "Drawdown now",
    "Max drawdown",
    "Positions",
    "Fills",
    "Last orders",
  ];
  return labels.filter((label) => frame.split(label).length > 2);
}

interface Shot {
  frame: string;
  width: number;
  /** Since the last resize, ms. */
  settledMs: number;
}

describe("the live view when the terminal is resized mid-run", () => {
  it("120 → 70 → 120 leaves no stale or wrapped line, every line fits the width", async () => {
    const work = tempDir();
    const csv = sliceCsv(path.join(DATA, "GOOG.csv"), 1500, work);
    const pane = new TmuxPane(
      [
        process.execPath,
        BIN,
        "run",
        SLOW,
        "--data",
        csv,
        "--param",
        "ms=6",
        "--runs-dir",
        path.join(work, "runs"),
      ],
      { cwd: work, width: 120 },
    );
    panes.push(pane);
    const shots: Shot[] = [];
    let width = 120;
    let resizedAt = Date.now();
    const sample = async (ms: number) => {
      const end = Date.now() + ms;
      while (Date.now() < end && pane.exitCode() === null) {
        shots.push({ frame: pane.capture(), width, settledMs: Date.now() - resizedAt });
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    // Until the view draws (the run has started), then a phase at each width.
    const started = Date.now() + 30_000;
    while (!/ETA/.test(pane.capture()) && Date.now() < started)
      await new Promise((r) => setTimeout(r, 50));
    await sample(1500);
    for (const w of [70, 120]) {
      pane.resize(w);
      width = w;
      resizedAt = Date.now();
      await sample(2500);
    }
    expect(await pane.waitForExit(60_000)).toBe(0);
    // The run was still going through the three phases: each has frames drawn after the resize.
    // The view redraws when its process gets SIGWINCH: a quarter of a second is left for that
    // (every frame passed here too, under load; the margin is for a slower machine).
    const settled = shots.filter(
      (s) => s.settledMs >= 250 && /ETA/.test(s.frame) && !/completed/.test(s.frame),
    );
    for (const w of [70, 120]) {
      expect(settled.filter((s) => s.width === w).length, `frames at ${w}`).toBeGreaterThan(3);
    }
    // A code run shows its last orders (the README's "last decision" line).
    for (const w of [70, 120]) {
      const at = settled.filter((s) => s.width === w).at(-1)?.frame ?? "";
      expect(
        at.split("\n").some((l) => LAST_ORDERS.test(l)),
        at,
      ).toBe(true);
    }
    for (const s of settled) {
      const context = `at ${s.width} columns:\n${s.frame}`;
      expect(foreignLines(s.frame), context).toEqual([]);
      expect(repeatedLabels(s.frame), context).toEqual([]);
      for (const line of s.frame.split("\n")) {
        expect(stringWidth(line), context).toBeLessThanOrEqual(s.width);
        // Fits whole: nothing of it was cut to make it fit.
        expect(line, context).not.toContain("…");
      }
    }
    fs.rmSync(work, { recursive: true, force: true });
  }, 90_000);

  it("at 80 columns, every line of every frame fits whole", async () => {
    const work = tempDir();
    const csv = sliceCsv(path.join(DATA, "GOOG.csv"), 400, work);
    const pane = new TmuxPane(
      [process.execPath, BIN, "run", SLOW, "--data", csv, "--runs-dir", path.join(work, "runs")],
      { cwd: work, width: 80 },
    );
    panes.push(pane);
    const { frames, exitCode } = await captureUntilExit(pane);
    expect(exitCode).toBe(0);
    const views = frames.filter((f) => /ETA/.test(f) && !/Return %/.test(f));
    expect(views.length).toBeGreaterThan(3);
    for (const frame of views) {
      expect(foreignLines(frame), frame).toEqual([]);
      expect(repeatedLabels(frame), frame).toEqual([]);
      expect(frame, frame).not.toContain("…");
      for (const line of frame.split("\n"))
        expect(stringWidth(line), frame).toBeLessThanOrEqual(80);
    }
    fs.rmSync(work, { recursive: true, force: true });
  }, 60_000);
});
