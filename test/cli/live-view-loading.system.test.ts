import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { randomWalk, writeCsv } from "../../bench/generate-series.js";
import { BIN, ROOT, tempDir } from "../helpers/cli.js";
import { TmuxPane } from "../helpers/tmux.js";

const panes: TmuxPane[] = [];
afterAll(() => {
  for (const pane of panes) pane.kill();
});

const LOADING = /^Loading data (\d+\.\d) of (\d+\.\d) MB \((\d+)%\) · (\d+\.\d) s$/m;

describe("the live view while a big CSV loads", () => {
  it("shows a loading line with the bytes read from the load's first 200 ms", async () => {
    const work = tempDir();
    const csv = path.join(work, "MINUTE.csv");
    writeCsv(csv, randomWalk(1_000_000, 7, 60_000, Date.UTC(2020, 0, 1)));
    const size = fs.statSync(csv).size;
    const launched = Date.now();
    const pane = new TmuxPane(
      [
        process.execPath,
        BIN,
        "run",
        path.join(ROOT, "strategies", "buy-and-hold.ts"),
        "--data",
        csv,
        "--runs-dir",
        path.join(work, "runs"),
      ],
      { cwd: work, width: 100 },
    );
    panes.push(pane);
    const shots: { at: number; frame: string }[] = [];
    const end = Date.now() + 120_000;
    while (pane.exitCode() === null && Date.now() < end) {
      shots.push({ at: Date.now() - launched, frame: pane.capture() });
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(pane.exitCode()).toBe(0);
    const firstLoading = shots.find((s) => LOADING.test(s.frame));
    const firstRun = shots.findIndex((s) => /buy-and-hold on MINUTE/.test(s.frame));
    expect(firstLoading, shots.map((s) => s.frame).join("\n----\n")).toBeDefined();
    const first = firstLoading as { at: number; frame: string };
    // Drawn before the run's first frame, from the load's first 200 ms, with the file's size.
    expect(shots.indexOf(first)).toBeLessThan(firstRun);
    const [, , total, , seconds] = LOADING.exec(first.frame) ?? [];
    expect(Number(seconds)).toBeLessThanOrEqual(0.2);
    expect(Number(total)).toBeCloseTo(size / 1e6, 1);
    // The bytes read never go back. (On a quiet machine the whole load can fit between two
    // lines, 100 ms apart, so that they go up is left to data-preload's own test.)
    const read = shots
      .map((s) => LOADING.exec(s.frame))
      .filter((m) => m !== null)
      .map((m) => Number(m[1]));
    for (let k = 1; k < read.length; k++) {
      expect(read[k]).toBeGreaterThanOrEqual(read[k - 1] as number);
    }
    // The run's view replaces the line: none of it stays above the view.
    for (const s of shots.slice(firstRun)) expect(s.frame).not.toContain("Loading data");
    console.log(`loading line on screen ${first.at} ms after launch (load ${seconds} s in)`);
    fs.rmSync(work, { recursive: true, force: true });
  }, 180_000);

  it("Ctrl-C while the data loads ends the run on a clean line", async () => {
    const work = tempDir();
    const csv = path.join(work, "MINUTE.csv");
    writeCsv(csv, randomWalk(1_000_000, 7, 60_000, Date.UTC(2020, 0, 1)));
    const pane = new TmuxPane(
      [
        process.execPath,
        BIN,
        "run",
        path.join(ROOT, "strategies", "buy-and-hold.ts"),
        "--data",
        csv,
        "--runs-dir",
        path.join(work, "runs"),
      ],
      { cwd: work, width: 100, prompt: "PROMPT>" },
    );
    panes.push(pane);
    const end = Date.now() + 60_000;
    while (!LOADING.test(pane.capture()) && pane.exitCode() === null && Date.now() < end) {
      await new Promise((r) => setTimeout(r, 10));
    }
    pane.sendKeys("C-c");
    const code = await pane.waitForExit(60_000);
    // 130 when the signal came before the run began; 1 (interrupted) if the load had just ended.
    expect([130, 1]).toContain(code);
    // The prompt that follows starts a line of its own, and stays the last thing on the screen:
    // the loading line was cleared and the view's process draws nothing after the exit. (A frame
    // the view drew before the signal may stay above it, as any view's last frame does.)
    await new Promise((r) => setTimeout(r, 500));
    const lines = pane
      .capture()
      .split("\n")
      .filter((l) => l.trim() !== "");
    expect(lines.at(-1), lines.join("\n")).toBe("PROMPT>");
    fs.rmSync(work, { recursive: true, force: true });
  }, 180_000);
});
