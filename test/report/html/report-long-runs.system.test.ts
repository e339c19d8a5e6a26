import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import Papa from "papaparse";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomWalk, writeCsv } from "../../../bench/generate-series.js";
import { parseTimestamp } from "../../../src/data/parse-timestamp.js";
import { floorIndex } from "../../../src/report/html/downsample.js";
import { artifactPath, sharedChromium } from "../../helpers/chromium.js";
import { cli, DATA, readJson, runArgs, runDirs, tempDir } from "../../helpers/cli.js";

// The README's long examples and a million-bar minute walk, opened in headless Chromium: at the
// default zoom every chart must show the whole run (the library's 0.5 px minimum bar spacing once
// cut a 20-year run to its last 9 years).

const work = tempDir();
const chromium = sharedChromium();

interface Example {
  name: string;
  args: (runs: string) => string[];
}

const MINUTE_BARS = 1_000_000;
const EXAMPLES: Example[] = [
  {
    name: "spy-20-years",
    args: (runs) =>
      runArgs(
        "strategies/sma-crossover.ts",
        path.join(DATA, "SPY_D.csv"),
        runs,
        "--param",
        "longShort=true",
        "--allow-short",
      ),
  },
  {
    name: "four-symbols",
    args: (runs) =>
      runArgs(
        "strategies/buy-and-hold.ts",
        ["orcl-1995-2014.txt", "yhoo-1996-2014.txt", "nvda-1999-2014.txt", "SPY_D.csv"].map((f) =>
          path.join(DATA, f),
        ),
        runs,
      ),
  },
  {
    // The benchmark's minute workload: reversing SMA crossover, 0.1% commission.
    name: "minute-walk",
    args: (runs) =>
      runArgs(
        "strategies/sma-crossover.ts",
        path.join(work, "MINUTE.csv"),
        runs,
        "--param",
        "longShort=true",
        "--allow-short",
        "--commission",
        "0.001",
      ),
  },
];

interface Opened {
  page: Page;
  errors: string[];
  dir: string;
}
const opened = new Map<string, Opened>();

beforeAll(async () => {
  await chromium.start();
  writeCsv(path.join(work, "MINUTE.csv"), randomWalk(MINUTE_BARS, 7, 60_000, Date.UTC(2020, 0, 1)));
  for (const ex of EXAMPLES) {
    const runs = path.join(work, ex.name);
    const r = cli([...ex.args(runs), "-q"], work);
    expect(r.status, r.stderr).toBe(0);
    const dir = runDirs(runs)[0] as string;
    const page = await chromium.get().newPage({ viewport: { width: 1280, height: 800 } });
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    page.on("console", (m) => {
      if (m.type() === "error") errors.push(m.text());
    });
    await page.goto(pathToFileURL(path.join(dir, "report.html")).href);
    await page.waitForSelector("body[data-charts]", { timeout: 30_000 });
    const shot = artifactPath(`report-${ex.name}.png`);
    await page.screenshot({ path: shot });
    console.log(`${ex.name} screenshot: ${shot}`);
    opened.set(ex.name, { page, errors, dir });
  }
}, 240_000);

afterAll(async () => {
  await chromium.close();
  fs.rmSync(work, { recursive: true, force: true });
});

interface Span {
  /** The visible range's first and last times, seconds. */
  from: number;
  to: number;
  /** The logical range, in the chart's points. */
  logicalFrom: number;
  logicalTo: number;
  /** The chart's own first and last data times, seconds. */
  first: number;
  last: number;
}

/** A chart's visible range read through the library's API, beside its data's first and last time. */
function spans(page: Page): Promise<{ equity: Span; prices: Span[] }> {
  return page.evaluate(`(() => {
    const c = window.__charts;
    const span = (chart) => {
      const ts = chart.timeScale();
      const r = ts.getVisibleRange();
      const l = ts.getVisibleLogicalRange();
      const times = chart.panes().flatMap((p) => p.getSeries()).flatMap((s) => s.data().map((d) => d.time));
      return { from: r.from, to: r.to, logicalFrom: l.from, logicalTo: l.to,
        first: Math.min(...times), last: Math.max(...times) };
    };
    return { equity: span(c.equity), prices: c.prices.map(span) };
  })()`) as Promise<{ equity: Span; prices: Span[] }>;
}

const DAY = 86_400;

describe.each(EXAMPLES.map((e) => e.name))("report.html of the %s example", (name) => {
  const get = () => opened.get(name) as Opened;

  it("shows equity and drawdown from the run's first bar to its last at the default zoom", async () => {
    const { page, errors, dir } = get();
    const result = readJson<{ period: { start: string; end: string; bars: number } }>(
      path.join(dir, "result.json"),
    );
    const { equity } = await spans(page);
    // The chart's data is the run's: its first and last points are the first and last bars.
    expect(new Date(equity.first * 1000).toISOString().slice(0, 10)).toBe(
      result.period.start.slice(0, 10),
    );
    expect(new Date(equity.last * 1000).toISOString().slice(0, 10)).toBe(
      result.period.end.slice(0, 10),
    );
    expect(equity.from).toBe(equity.first);
    expect(equity.to).toBe(equity.last);
    expect(equity.logicalFrom).toBeLessThanOrEqual(0);
    expect(errors).toEqual([]);
    // And the page itself fits its width: no horizontal scrollbar.
    const widths = (await page.evaluate(
      "[document.documentElement.scrollWidth, document.documentElement.clientWidth]",
    )) as [number, number];
    expect(widths[0]).toBeLessThanOrEqual(widths[1]);
  });

  it("shows every symbol's candles over the whole run", async () => {
    const { page } = get();
    const { prices } = await spans(page);
    expect(prices.length).toBeGreaterThan(0);
    for (const p of prices) {
      expect(p.from).toBe(p.first);
      expect(p.to).toBe(p.last);
      expect(p.last - p.first).toBeGreaterThan(DAY);
    }
  });

  it("marks every entry, exit and rejection, with markers spread over the whole run", async () => {
    const { page, dir } = get();
    const result = readJson<{ data: { symbol: string }[] }>(path.join(dir, "result.json"));
    const drawn = (await page.evaluate(`window.__charts.markers.map((m, k) => ({
      groups: m.groups,
      candles: window.__charts.prices[k].panes()[0].getSeries()[0].data().map((d) => d.time),
      drawn: m.plugin.markers().length,
      // How many candles one merged marker may hold at this zoom.
      reach: Math.ceil(window.__charts.markerPx / window.__charts.prices[k].timeScale().options().barSpacing),
    }))`)) as {
      groups: { time: number; n: number }[];
      candles: number[];
      drawn: number;
      reach: number;
    }[];
    expect(drawn.length).toBe(result.data.length);
    const events = runEvents(dir);
    for (const [k, { symbol }] of result.data.entries()) {
      const { groups, candles, drawn: count, reach } = drawn[k] as (typeof drawn)[number];
      const mine = events.filter((e) => e.symbol === symbol).map((e) => e.time);
      expect(mine.length).toBeGreaterThan(0);
      // Each marker's count adds up to every event: none dropped, however many there are.
      expect(groups.reduce((n, g) => n + g.n, 0)).toBe(mine.length);
      expect(count).toBe(groups.length);
      // Every event lies on or shortly after the marker its count is in: fewer candles after it
      // than one merged marker holds, itself a small part of the run.
      expect(reach).toBeLessThan(candles.length * 0.06);
      const times = groups.map((g) => g.time);
      for (const e of mine) {
        const i = floorIndex(candles, e);
        const at = floorIndex(candles, times[floorIndex(times, candles[i] as number)] as number);
        expect(at).toBeLessThanOrEqual(i);
        expect(i - at).toBeLessThan(reach);
      }
      const first = candles[floorIndex(candles, Math.min(...mine))];
      expect(times[0]).toBe(first);
    }
  });
});

describe("the price charts' volume and trade lines, and the drawdown annotations", () => {
  it("draws each candle's summed volume in a pane below the candles", async () => {
    const { page } = opened.get("spy-20-years") as Opened;
    const panes = (await page.evaluate(`window.__charts.prices[0].panes().map((p) =>
      p.getSeries().map((s) => ({ type: s.seriesType(), values: s.data().map((d) => d.value ?? d.close) })))`)) as {
      type: string;
      values: number[];
    }[][];
    // The candles with the strategy's two SMAs, then the volume.
    expect(panes.map((p) => p.map((s) => s.type))).toEqual([
      ["Candlestick", "Line", "Line"],
      ["Histogram"],
    ]);
    const csv = fs.readFileSync(path.join(DATA, "SPY_D.csv"), "utf8").trim().split("\n");
    const at = (csv[0] as string).toLowerCase().split(",").indexOf("volume");
    const total = csv.slice(1).reduce((n, l) => n + Number(l.split(",")[at]), 0);
    const drawn = (panes[1]?.[0]?.values ?? []).reduce((n, v) => n + v, 0);
    expect(drawn / total).toBeCloseTo(1, 6);
  });

  it("joins every trade's entry to its exit, coloured by its P/L", async () => {
    const { page, dir } = opened.get("spy-20-years") as Opened;
    const lines = (await page.evaluate(
      `JSON.parse(document.getElementById("report-data").textContent).prices[0].lines`,
    )) as { a: number[]; b: number[]; ap: number[]; bp: number[]; win: number[]; total: number };
    const trades = Papa.parse<Record<string, string>>(
      fs.readFileSync(path.join(dir, "trades.csv"), "utf8").trim(),
      { header: true },
    ).data;
    expect(lines.total).toBe(trades.length);
    expect(lines.win).toEqual(trades.map((t) => (Number(t.pnl) > 0 ? 1 : 0)));
    expect(lines.ap.map((p) => p.toFixed(2))).toEqual(
      trades.map((t) => Number(t.entry_price).toFixed(2)),
    );
    for (const [j, a] of lines.a.entries()) expect(a).toBeLessThanOrEqual(lines.b[j] as number);
  });

  it("marks the peak and trough of the deepest drawdown and shades the longest one", async () => {
    const { page, dir } = opened.get("spy-20-years") as Opened;
    const metrics = readJson<{ metrics: Record<string, number> }>(
      path.join(dir, "result.json"),
    ).metrics;
    const d = (await page.evaluate(`(() => {
      const d = window.__charts.drawdowns;
      return { peak: d.peak.markers()[0].time, trough: d.trough.markers()[0].time,
        deepest: d.deepest, longest: d.longest };
    })()`)) as {
      peak: number;
      trough: number;
      deepest: string;
      longest: { from: number; to: number; label: string };
    };
    expect(d.peak).toBeLessThan(d.trough);
    expect(d.deepest).toBe(`max drawdown ${metrics.maxDrawdownPct?.toFixed(2)}%`);
    const days = Math.round(metrics.maxDrawdownDurationDays as number).toLocaleString("en-US");
    expect(d.longest.label).toMatch(new RegExp(`^longest drawdown: ${days} days`));
    // Snapped to the drawn points: within a few bars of the metric's length.
    const length = (d.longest.to - d.longest.from) / DAY;
    expect(Math.abs(length - (metrics.maxDrawdownDurationDays as number))).toBeLessThan(10);
  });

  it("draws the strategy's two SMAs over the candles, each shown or hidden by its checkbox", async () => {
    const { page, dir } = opened.get("spy-20-years") as Opened;
    const uses = readJson<{ name: string; params: { period: number } }[]>(
      path.join(dir, "indicators.json"),
    );
    expect(uses.map((u) => `${u.name} period=${u.params.period}`)).toEqual([
      "sma period=10",
      "sma period=30",
    ]);
    const lines = `window.__charts.prices[0].panes()[0].getSeries().slice(1).map((s) =>
      ({ title: s.options().title, visible: s.options().visible, points: s.data().filter((d) => d.value !== undefined).length }))`;
    const before = (await page.evaluate(lines)) as {
      title: string;
      visible: boolean;
      points: number;
    }[];
    expect(before.map((l) => [l.title, l.visible])).toEqual([
      ["sma period=10", true],
      ["sma period=30", true],
    ]);
    for (const l of before) expect(l.points).toBeGreaterThan(1700);
    await page.locator('#overlays-0 input[data-line="1"]').uncheck();
    const after = (await page.evaluate(lines)) as { visible: boolean }[];
    expect(after.map((l) => l.visible)).toEqual([true, false]);
    await page.locator('#overlays-0 input[data-line="1"]').check();
    expect(((await page.evaluate(lines)) as { visible: boolean }[])[1]?.visible).toBe(true);
  });

  it("zooms the other charts and moves their crosshair with the chart under the mouse", async () => {
    const { page } = opened.get("four-symbols") as Opened;
    const box = await page.locator("#chart-price-1").boundingBox();
    if (box === null) throw new Error("#chart-price-1 is not on the page");
    await page.evaluate(`(() => {
      window.__seen = [];
      window.__charts.equity.subscribeCrosshairMove((p) => window.__seen.push(p.time));
    })()`);
    await page.locator("#chart-price-1").scrollIntoViewIfNeeded();
    const inView = (await page.locator("#chart-price-1").boundingBox()) ?? box;
    await page.mouse.move(inView.x + inView.width / 2, inView.y + inView.height / 3);
    for (let i = 0; i < 12; i++) await page.mouse.wheel(0, -400);
    await page.mouse.move(inView.x + inView.width / 3, inView.y + inView.height / 3);
    await page.waitForTimeout(300);
    const r = (await page.evaluate(`(() => {
      const c = window.__charts;
      return { lead: c.prices[1].timeScale().getVisibleRange(), equity: c.equity.timeScale().getVisibleRange(),
        other: c.prices[2].timeScale().getVisibleRange(), seen: window.__seen.filter((t) => typeof t === "number") };
    })()`)) as {
      lead: { from: number; to: number };
      equity: { from: number; to: number };
      other: { from: number; to: number };
      seen: number[];
    };
    // Zoomed in: the leader shows less of its run, and the others show the same dates.
    const whole = (await spans(page)).prices[1] as Span;
    expect(r.lead.to - r.lead.from).toBeLessThan((whole.last - whole.first) * 0.8);
    for (const o of [r.equity, r.other]) {
      expect(Math.abs(o.from - r.lead.from)).toBeLessThan(10 * DAY);
      expect(Math.abs(o.to - r.lead.to)).toBeLessThan(10 * DAY);
    }
    // The equity chart's crosshair followed the mouse into the leader's range.
    const last = r.seen.at(-1) as number;
    expect(last).toBeGreaterThanOrEqual(r.lead.from - 10 * DAY);
    expect(last).toBeLessThanOrEqual(r.lead.to);
  });
});

describe("the charts' axes", () => {
  it("separate thousands, show a percent drawdown, and name the year when a view needs it", async () => {
    const { page } = opened.get("minute-walk") as Opened;
    // Each view is applied on the next frame.
    const view = (from: number, to: number) =>
      page.evaluate(`(async () => {
        window.__charts.equity.timeScale().setVisibleRange({ from: ${from / 1000}, to: ${to / 1000} });
        for (let i = 0; i < 3; i++) await new Promise((r) => requestAnimationFrame(r));
      })()`);
    const label = (ms: number, type: number) =>
      page.evaluate(
        `window.__charts.equity.options().timeScale.tickMarkFormatter(${ms / 1000}, ${type}, "en-US")`,
      ) as Promise<string | null>;
    const apr = Date.UTC(2020, 3, 1);
    const whole = await label(apr, 1);
    // Zoomed into spring 2020: no year boundary in view, so the month ticks carry the year.
    await view(Date.UTC(2020, 2, 1), Date.UTC(2020, 8, 1));
    const spring = await label(apr, 1);
    await view(Date.UTC(2020, 3, 3), Date.UTC(2020, 3, 20));
    const days = await label(Date.UTC(2020, 3, 6), 2);
    await page.evaluate("window.__charts.equity.timeScale().fitContent()");
    const labels = {
      ...((await page.evaluate(`(() => {
        const c = window.__charts;
        const [strategy, , drawdown] = c.equity.panes().flatMap((p) => p.getSeries());
        const candles = c.prices[0].panes()[0].getSeries()[0];
        return { equity: strategy.priceFormatter().format(100000),
          drawdown: drawdown.priceFormatter().format(-46.291),
          price: candles.priceFormatter().format(1234.5) };
      })()`)) as Record<string, string>),
      whole,
      spring,
      days,
    };
    expect(labels).toEqual({
      equity: "100,000.00",
      drawdown: "-46.29%",
      price: "1,234.50",
      // The whole run crosses a year, whose tick names it: the library's own month label stays.
      whole: null,
      spring: "Apr 2020",
      days: "6 Apr 2020",
    });
  });
});

/** Every entry, exit and rejected order of a run (time in seconds), from its files. */
function runEvents(dir: string): { symbol: string; time: number }[] {
  const out: { symbol: string; time: number }[] = [];
  const seconds = (label: string) => parseTimestamp(label) / 1000;
  const trades = Papa.parse<Record<string, string>>(
    fs.readFileSync(path.join(dir, "trades.csv"), "utf8").trim(),
    { header: true },
  ).data;
  for (const t of trades) {
    out.push({ symbol: t.symbol as string, time: seconds(t.entry_time as string) });
    if (t.open_at_end !== "true") {
      out.push({ symbol: t.symbol as string, time: seconds(t.exit_time as string) });
    }
  }
  for (const line of fs.readFileSync(path.join(dir, "orders.jsonl"), "utf8").trim().split("\n")) {
    const o = JSON.parse(line) as { event: string; symbol: string; time: string };
    if (o.event === "rejected") out.push({ symbol: o.symbol, time: seconds(o.time) });
  }
  return out;
}
