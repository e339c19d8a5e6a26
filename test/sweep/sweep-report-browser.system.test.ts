import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { artifactPath, sharedChromium } from "../helpers/chromium.js";
import { cli, readJson } from "../helpers/cli.js";
import { resultLines, SMA_STRATEGY as STRATEGY, workWithGoog } from "./sweep-kit.js";

// A sweep's report.html in headless Chromium: one heatmap cell per combination over fast × slow,
// its value in the tooltip, the best cell marked, a sortable table, no console error, offline.
const work = workWithGoog("agenticbt-sweep-report-");
const chromium = sharedChromium();
let dir: string;
let page: Page;
const errors: string[] = [];
const requests: string[] = [];

interface Line {
  index: number;
  settings: { fast: number; slow: number; commission: number };
  metrics: { sharpe: number | null } | null;
}

beforeAll(async () => {
  await chromium.start();
  const r = cli(
    [
      "sweep",
      STRATEGY,
      "--data",
      "GOOG.csv",
      "--param",
      "longShort=true",
      "--allow-short",
      "--grid",
      "fast=5:50:5",
      "--grid",
      "slow=10:200:10",
      "--grid",
      "commission=0.001,0.002",
      "--constraint",
      "fast < slow",
      "--runs-dir",
      path.join(work, "runs"),
      "-q",
    ],
    work,
  );
  expect(r.status, r.stderr).toBe(0);
  const root = path.join(work, "sweeps");
  dir = path.join(root, fs.readdirSync(root)[0] as string);
  page = await chromium.get().newPage({ viewport: { width: 1400, height: 1000 } });
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("request", (req) => requests.push(req.url()));
  const url = pathToFileURL(path.join(dir, "report.html")).href;
  await page.route("**/*", (route) =>
    route.request().url() === url ? route.continue() : route.abort(),
  );
  await page.goto(url);
  await page.waitForSelector("body[data-drawn]", { timeout: 15_000 });
  const shot = artifactPath("sweep-report.png");
  await page.screenshot({ path: shot, fullPage: true });
  console.log(`sweep report screenshot: ${shot}`);
}, 120_000);

afterAll(async () => {
  await chromium.close();
  fs.rmSync(work, { recursive: true, force: true });
});

const lines = (): Line[] => resultLines<Line>(dir);

/** The heatmap's cells: tooltip, value, whether marked best. */
const cells = () =>
  page.$$eval("#heatmap td.cell", (tds) =>
    tds.map((td) => ({
      title: td.getAttribute("title") ?? "",
      value: td.getAttribute("data-value") ?? "",
      best: td.classList.contains("best"),
    })),
  );

it("draws one heatmap cell per combination over two axes, each value in its tooltip", async () => {
  // Three axes (350 combinations): x fast, y commission, slow aggregated; then x fast, y slow
  // with commission aggregated; then the two axes that make one cell per combination pair.
  await page.selectOption("#x-axis", "fast");
  await page.selectOption("#y-axis", "slow");
  const all = lines();
  expect(all).toHaveLength(350);
  const pairs = new Set(all.map((l) => `${l.settings.fast}|${l.settings.slow}`));
  const got = await cells();
  expect(got).toHaveLength(pairs.size);
  expect(pairs.size).toBe(175);
  for (const c of got) {
    const m = /^fast=(\d+) slow=(\d+): Sharpe (\S+) \(max of 2\)/.exec(c.title);
    expect(m, c.title).not.toBeNull();
    const [, f, s] = m as RegExpExecArray;
    const vals = all
      .filter((l) => l.settings.fast === Number(f) && l.settings.slow === Number(s))
      .map((l) => l.metrics?.sharpe as number);
    expect(Number(c.value)).toBe(Math.max(...vals));
  }
});

it("marks the best combination's cell, and only it", async () => {
  const summary = readJson(path.join(dir, "summary.json")) as {
    best: { settings: { fast: number; slow: number; commission: number } };
  };
  const best = (await cells()).filter((c) => c.best);
  expect(best).toHaveLength(1);
  const { fast, slow } = summary.best.settings;
  expect(best[0]?.title).toMatch(new RegExp(`^fast=${fast} slow=${slow}: .*\\(best\\)$`));
});

it("aggregates the other axes by mean when asked", async () => {
  await page.selectOption("#aggregate", "mean");
  const got = await cells();
  expect(got).toHaveLength(175);
  const c = got[0] as { title: string; value: string };
  const [, f, s] = /^fast=(\d+) slow=(\d+)/.exec(c.title) as RegExpExecArray;
  const vals = lines()
    .filter((l) => l.settings.fast === Number(f) && l.settings.slow === Number(s))
    .map((l) => l.metrics?.sharpe as number);
  expect(Number(c.value)).toBeCloseTo((vals[0]! + vals[1]!) / 2, 12);
  expect(c.title).toMatch(/\(mean of 2\)/);
  // x fast, y commission: 10 × 2 cells, the slows aggregated.
  await page.selectOption("#y-axis", "commission");
  expect(await cells()).toHaveLength(20);
});

it("sorts the table by a column when its header is clicked", async () => {
  const rows = () =>
    page.$$eval("#table tr", (trs) =>
      trs.slice(1).map((tr) => [...tr.children].map((td) => td.textContent ?? "")),
    );
  expect(await rows()).toHaveLength(350);
  await page.click("#table th:nth-child(2)");
  const byFast = (await rows()).map((r) => Number(r[1]));
  expect(byFast[0]).toBe(50);
  await page.click("#table th:nth-child(2)");
  const up = (await rows()).map((r) => Number(r[1]));
  expect(up[0]).toBe(5);
  expect([...up].sort((a, b) => a - b)).toEqual(up);
});

it("draws the best equity against buy-and-hold, with no console error and no request", async () => {
  expect(
    await page.$$eval("#equity polyline", (ps) => ps.map((p) => p.getAttribute("data-series"))),
  ).toEqual(["buy-and-hold", "equity"]);
  expect(errors).toEqual([]);
  expect(requests).toEqual([pathToFileURL(path.join(dir, "report.html")).href]);
});
