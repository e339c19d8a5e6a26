import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { WalkForwardResult } from "../../src/sweep/walk-forward.js";
import { launchChromium } from "../helpers/chromium.js";
import { cli, DATA, readJson } from "../helpers/cli.js";
import { LONG_SHORT as BASE, SMA_STRATEGY as STRATEGY, workWithGoog } from "./sweep-kit.js";

// Walk-forward on the bundled GOOG (train 500 bars, test 100): every window's out-of-sample
// figures must be those of a separate `agenticbt run --from <first test bar> --to <last test
// bar>` with the settings chosen in sample. `run --from` keeps every earlier bar of the file as
// indicator history and `--to` cuts the data after the window, so the walk-forward must do both.

const GRID = ["--grid", "fast=5,10,20", "--grid", "slow=20,50,100", "--constraint", "fast < slow"];

const work = workWithGoog("agenticbt-walk-forward-");
let wf: WalkForwardResult;
let dir: string;

const run = (from: string, to: string, settings: Record<string, unknown>) => {
  const r = cli(
    [
      "run",
      STRATEGY,
      "--data",
      "GOOG.csv",
      ...BASE,
      ...Object.entries(settings).flatMap(([k, v]) => ["--param", `${k}=${String(v)}`]),
      "--from",
      from,
      "--to",
      to,
      "--runs-dir",
      path.join(work, "single"),
      "--json",
    ],
    work,
  );
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as {
    metrics: Record<string, unknown>;
    period: { start: string; end: string; bars: number; warmupBars: number };
  };
};

beforeAll(() => {
  const r = cli(
    [
      "sweep",
      STRATEGY,
      "--data",
      "GOOG.csv",
      ...BASE,
      ...GRID,
      "--walk-forward",
      "train=500,test=100",
      "--runs-dir",
      path.join(work, "runs"),
      "--json",
    ],
    work,
  );
  expect(r.status, r.stderr).toBe(0);
  const summary = JSON.parse(r.stdout) as { id: string; walkForward: WalkForwardResult };
  wf = summary.walkForward;
  dir = path.join(work, "sweeps", summary.id);
}, 120_000);

afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

describe("walk-forward on GOOG, train 500 bars, test 100", () => {
  it("tiles the bars after the first 500 with rolling windows, earlier bars as history", () => {
    const bars = fs.readFileSync(path.join(DATA, "GOOG.csv"), "utf8").trim().split("\n").length - 1;
    expect(wf.windows.length).toBe(Math.ceil((bars - 500) / 100));
    wf.windows.forEach((w, k) => {
      expect(w.train.bars).toBe(500);
      expect(w.train.lastBar + 1).toBe(w.test.firstBar);
      expect(w.test.firstBar).toBe(500 + 100 * k);
      expect(w.test.bars).toBe(k === wf.windows.length - 1 ? bars - w.test.firstBar : 100);
      expect(w.train.historyBars).toBe(w.train.firstBar);
      expect(w.test.historyBars).toBe(w.test.firstBar);
      expect(w.completed + w.failed).toBe(8);
    });
    expect(wf.windows.at(-1)?.test.lastBar).toBe(bars - 1);
  });

  it("gives every window's out-of-sample figures of a separate run --from/--to", () => {
    for (const w of wf.windows) {
      expect(w.best, `window ${w.window}`).not.toBeNull();
      const settings = w.best?.settings as Record<string, unknown>;
      const single = run(w.test.from, w.test.to, settings);
      // The same bars, with the same bars before them as history (run's warmupBars).
      expect(single.period).toMatchObject({
        start: w.test.from,
        end: w.test.to,
        bars: w.test.bars,
        warmupBars: w.test.historyBars,
      });
      const keys = Object.keys(single.metrics);
      expect(keys.length).toBeGreaterThan(30);
      expect(Object.keys(w.outOfSample ?? {})).toEqual(keys);
      for (const k of keys)
        expect(w.outOfSample?.[k as keyof typeof w.outOfSample], `window ${w.window} ${k}`).toBe(
          single.metrics[k],
        );
      expect(w.outOfSampleValue.value).toBe(single.metrics.sharpe);
    }
  }, 300_000);

  it("gives the in-sample best's figures of a run of its training span (first, middle, last)", () => {
    const n = wf.windows.length;
    for (const w of [wf.windows[0], wf.windows[n >> 1], wf.windows[n - 1]]) {
      if (w === undefined) throw new Error("no window");
      const single = run(w.train.from, w.train.to, w.best?.settings as Record<string, unknown>);
      expect(single.period).toMatchObject({ bars: 500, warmupBars: w.train.historyBars });
      expect(w.inSample).toEqual(single.metrics);
      expect(w.best?.value).toBe(single.metrics.sharpe);
    }
  }, 120_000);

  it("stitches the out-of-sample equity, compounding each window's return", () => {
    const st = wf.stitched;
    expect(st).not.toBeNull();
    const growth = wf.windows.reduce(
      (g, w) => g * (1 + (w.outOfSample?.returnPct as number) / 100),
      1,
    );
    expect(st?.returnPct as number).toBeCloseTo((growth - 1) * 100, 9);
    expect(st?.bars).toBe(wf.windows.reduce((a, w) => a + w.test.bars, 0));
    expect(st?.trades).toBe(wf.windows.reduce((a, w) => a + (w.outOfSample?.trades ?? 0), 0));
    expect(st?.start).toBe(wf.windows[0]?.test.from);
    expect(st?.end).toBe(wf.windows.at(-1)?.test.to);
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const ins = mean(wf.windows.map((w) => w.best?.value as number));
    const oos = mean(wf.windows.map((w) => w.outOfSampleValue.value as number));
    expect(wf.inSampleMean.value).toBe(ins);
    expect(wf.outOfSampleMean.value).toBe(oos);
    expect(wf.ratio.value).toBe(oos / ins);
  });

  it("writes the walk-forward into summary.json and report.html", () => {
    const summary = readJson(path.join(dir, "summary.json")) as { walkForward: unknown };
    expect(summary.walkForward).toEqual(wf);
    const html = fs.readFileSync(path.join(dir, "report.html"), "utf8");
    expect(html).toContain('<table id="walk-forward"');
    expect(html.match(/<tr><td>\d+<\/td><td>/g)?.length).toBe(wf.windows.length);
  });

  it("draws the stitched out-of-sample equity in report.html, with no console error", async () => {
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on("console", (m) => {
        if (m.type() === "error") errors.push(m.text());
      });
      page.on("pageerror", (e) => errors.push(e.message));
      await page.goto(pathToFileURL(path.join(dir, "report.html")).href);
      await page.waitForSelector("body[data-drawn]", { timeout: 15_000 });
      const lines = page.locator("#wf-equity polyline");
      expect(await lines.count()).toBe(2);
      const series = [
        await lines.nth(0).getAttribute("data-series"),
        await lines.nth(1).getAttribute("data-series"),
      ];
      expect(series).toEqual(["buy-and-hold", "equity"]);
      expect(await page.locator("#wf-ratio").textContent()).toBe(
        (wf.ratio.value as number).toFixed(3),
      );
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 60_000);

  it("prints the statistics and the walk-forward in `show <sweep>`, in 80 columns", () => {
    const r = cli(["show", path.basename(dir), "--runs-dir", path.join(work, "runs")], work);
    expect(r.status, r.stderr).toBe(0);
    const lines = r.stdout.split("\n");
    const at = lines.findIndex((l) => l.startsWith("Walk-forward train=500,test=100: 17 windows"));
    expect(at).toBeGreaterThan(0);
    expect(
      lines.some((l) =>
        /^Trials 8 {2}PSR [01]\.\d{3} {2}DSR [01]\.\d{3} {2}PBO \(16 blocks\) [01]\.\d{3}$/.test(l),
      ),
    ).toBe(true);
    const table = lines.slice(at, at + 2 + wf.windows.length + 3);
    for (const [k, w] of wf.windows.entries()) {
      const line = table[k + 2] as string;
      expect(line).toContain(`test ${w.test.from} → ${w.test.to}`);
      expect(line).toContain(
        Object.entries(w.best?.settings ?? {})
          .map(([a, b]) => `${a}=${b}`)
          .join(" "),
      );
    }
    expect(r.stdout).toMatch(/Stitched out of sample .* 1648 bars, \d+ trades:/);
    expect(r.stdout).toContain(`= ${(wf.ratio.value as number).toFixed(2)}`);
    for (const line of table) expect(line.length, line).toBeLessThanOrEqual(80);
  });

  it("anchored windows all train from the first bar", () => {
    const r = cli(
      [
        "sweep",
        STRATEGY,
        "--data",
        "GOOG.csv",
        "--grid",
        "fast=5,10",
        "--grid",
        "slow=50",
        "--walk-forward",
        "train=1000,test=500,anchored",
        "--runs-dir",
        path.join(work, "anchored", "runs"),
        "--json",
      ],
      work,
    );
    expect(r.status, r.stderr).toBe(0);
    const a = (JSON.parse(r.stdout) as { walkForward: WalkForwardResult }).walkForward;
    expect(a.anchored).toBe(true);
    expect(a.windows.length).toBeGreaterThan(1);
    a.windows.forEach((w, k) => {
      expect(w.train.firstBar).toBe(0);
      expect(w.train.bars).toBe(1000 + 500 * k);
    });
  }, 60_000);

  it("refuses a bad --walk-forward or --cscv-blocks with exit 2, before any sweep directory", () => {
    const root = path.join(work, "bad", "runs");
    for (const [flag, value, message] of [
      ["--walk-forward", "train=500", /test is missing/],
      ["--walk-forward", "train=5000,test=100", /no test bar/],
      ["--cscv-blocks", "15", /even/],
      ["--cscv-blocks", "40", /--cscv-blocks/],
    ] as const) {
      const r = cli(
        ["sweep", STRATEGY, "--data", "GOOG.csv", "--grid", "fast=5,10", "--runs-dir", root].concat(
          [flag, value],
        ),
        work,
      );
      expect(r.status, `${flag} ${value}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(message);
    }
    expect(fs.existsSync(path.join(work, "bad", "sweeps"))).toBe(false);
  }, 60_000);
});
