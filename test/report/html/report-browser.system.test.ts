import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import Papa from "papaparse";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { metricFormat } from "../../../src/metrics/metric-labels.js";
import {
  artifactPath,
  canvasColours,
  rowKeys,
  sharedChromium,
  tableHeader,
  tableRows,
} from "../../helpers/chromium.js";
import { cli, DATA, readJson, runArgs, runDirs, tempDir } from "../../helpers/cli.js";

// The report as a user sees it: a real headless Chromium opens report.html from the file system.

const work = tempDir();
const runs = path.join(work, "runs");
const HOSTILE = `<img src=x id=pwned onerror="document.title='pwned'"></script><!--`;

// Trades a few times over the data, and once asks for far more shares than it can pay for (the
// broker rejects it). Its name and tags are markup, which the page must show as text.
const STRATEGY = `export default {
  name: ${JSON.stringify(HOSTILE)},
  onBar(ctx) {
    if (ctx.index === 40) ctx.buy({ qty: 1e9, tag: ${JSON.stringify(HOSTILE)} });
    if (ctx.index % 400 === 100 && ctx.position() === 0) ctx.buy({ fraction: 0.9 });
    if (ctx.index % 400 === 300 && ctx.position() > 0) ctx.closePosition();
  },
};
`;

const chromium = sharedChromium();
let runDir = "";

beforeAll(async () => {
  await chromium.start();
  const strategy = path.join(work, "hostile.mjs");
  fs.writeFileSync(strategy, STRATEGY);
  fs.copyFileSync(path.join(DATA, "GOOG.csv"), path.join(work, "GOOG.csv"));
  const r = cli(runArgs(strategy, "GOOG.csv", runs, "--name", "report-test", "-q"), work);
  expect(r.status, r.stderr).toBe(0);
  runDir = runDirs(runs)[0] as string;
}, 120_000);

afterAll(async () => {
  await chromium.close();
  fs.rmSync(work, { recursive: true, force: true });
});

interface Opened {
  page: Page;
  errors: string[];
  requests: string[];
  dialogs: string[];
}

/** Opens a page from disk with every request other than the page itself recorded and blocked. */
async function open(file: string): Promise<Opened> {
  const page = await chromium.get().newPage({ viewport: { width: 1280, height: 900 } });
  const url = pathToFileURL(file).href;
  const out: Opened = { page, errors: [], requests: [], dialogs: [] };
  page.on("console", (m) => {
    if (m.type() === "error") out.errors.push(m.text());
  });
  page.on("pageerror", (e) => out.errors.push(e.message));
  page.on("request", (req) => out.requests.push(req.url()));
  page.on("dialog", (d) => {
    out.dialogs.push(d.message());
    void d.dismiss();
  });
  await page.route("**/*", (route) =>
    route.request().url() === url ? route.continue() : route.abort(),
  );
  await page.goto(url);
  await page.waitForSelector("body[data-charts]", { timeout: 15_000 });
  return out;
}

it("has a Chromium to run the report in", () => {
  expect(chromium.get().isConnected()).toBe(true);
});

describe("report.html of a code run, in headless Chromium", () => {
  let opened: Opened;
  beforeAll(async () => {
    opened = await open(path.join(runDir, "report.html"));
    const shot = artifactPath("report-code-run.png");
    await opened.page.screenshot({ path: shot, fullPage: true });
    console.log(`report screenshot: ${shot}`);
  }, 60_000);
  afterAll(() => opened?.page.close());

  it("is written by the run itself, next to result.json", () => {
    expect(fs.existsSync(path.join(runDir, "report.html"))).toBe(true);
  });

  it("draws the equity and price charts: canvases with many colours, not blank", async () => {
    expect(await opened.page.getAttribute("body", "data-charts")).toBe("2");
    expect(await canvasColours(opened.page, "#chart-equity")).toBeGreaterThan(5);
    expect(await canvasColours(opened.page, "#chart-price-0")).toBeGreaterThan(5);
  });

  it("logs no console error and requests nothing but the page itself", async () => {
    expect(opened.errors).toEqual([]);
    expect(
      await opened.page.getAttribute('meta[http-equiv="Content-Security-Policy"]', "content"),
    ).toBe(
      "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:",
    );
    expect(await opened.page.$$("[onload], [onerror], [onclick]")).toEqual([]);
    expect(opened.requests).toEqual([pathToFileURL(path.join(runDir, "report.html")).href]);
  });

  it("lists exactly the trades of trades.csv, in order", async () => {
    const csv = Papa.parse<Record<string, string>>(
      fs.readFileSync(path.join(runDir, "trades.csv"), "utf8").trim(),
      { header: true },
    ).data;
    const rows = await tableRows(opened.page, "trades-table");
    expect(csv.length).toBeGreaterThan(3);
    expect(rows.length).toBe(csv.length);
    const header = await tableHeader(opened.page, "trades-table");
    const at = (name: string) => header.indexOf(name);
    for (const [i, t] of csv.entries()) {
      const row = rows[i] as string[];
      expect(row[at("id")]).toBe(t.id);
      expect(row[at("side")]).toBe(t.side);
      expect(row[at("qty")]).toBe(t.qty);
      expect(row[at("entry_time")]).toBe(t.entry_time);
      expect(row[at("exit_time")]).toBe(t.exit_time);
      expect(Number(row[at("entry_price")])).toBeCloseTo(Number(t.entry_price), 4);
      expect(Number(row[at("pnl")])).toBeCloseTo(Number(t.pnl), 3);
    }
  });

  it("lists the rejected order, and shows hostile names as text without running them", async () => {
    const rejected = await tableRows(opened.page, "rejected-table");
    expect(rejected.length).toBe(1);
    // Placed at the close of index 40 (2004-10-15), rejected when it would fill at the next open.
    expect(rejected[0]?.slice(0, 3)).toEqual(["2004-10-18", "1", "GOOG"]);
    expect(await opened.page.textContent("h1")).toBe(`${HOSTILE} on GOOG`);
    expect(await opened.page.$("#pwned")).toBeNull();
    expect(await opened.page.title()).not.toBe("pwned");
    expect(opened.dialogs).toEqual([]);
  });

  it("shows every metric of result.json, strategy beside buy-and-hold", async () => {
    const result = readJson<{ metrics: Record<string, unknown> }>(path.join(runDir, "result.json"));
    const rows = await tableRows(opened.page, "metrics-table");
    const keys = await rowKeys(opened.page, "metrics-table");
    for (const k of Object.keys(result.metrics)) expect(keys).toContain(k);
    // Each row is named for people; its key is the row's (and the name's title).
    const sharpe = rows[keys.indexOf("sharpe")] as string[];
    expect(sharpe[0]).toBe(metricFormat("sharpe").label);
    expect(sharpe[0]).not.toBe("sharpe");
    expect(Number(sharpe[1])).toBeCloseTo(result.metrics.sharpe as number, 4);
  });
});

describe("agenticbt report", () => {
  it("rewrites a run's page on demand, and without the data file says why the candles are missing", async () => {
    fs.renameSync(path.join(work, "GOOG.csv"), path.join(work, "GOOG-moved.csv"));
    const out = path.join(work, "again.html");
    const r = cli(
      ["report", path.basename(runDir), "--runs-dir", runs, "--out", out, "--json"],
      work,
    );
    fs.renameSync(path.join(work, "GOOG-moved.csv"), path.join(work, "GOOG.csv"));
    expect(r.status, r.stderr).toBe(0);
    const written = JSON.parse(r.stdout) as { file: string; bytes: number; ms: number };
    expect(written.file).toBe(out);
    expect(written.bytes).toBe(fs.statSync(out).size);
    const opened = await open(out);
    expect(await opened.page.textContent("#prices-note")).toBe(
      "No price chart: the data file GOOG.csv no longer exists.",
    );
    expect(await opened.page.getAttribute("body", "data-charts")).toBe("1");
    expect(await canvasColours(opened.page, "#chart-equity")).toBeGreaterThan(5);
    expect(opened.errors).toEqual([]);
    await opened.page.close();
  });

  it("diff --html writes both equity curves and both runs' metrics side by side", async () => {
    const r2 = cli(
      [
        "run",
        path.join(work, "hostile.mjs"),
        "--data",
        "GOOG.csv",
        "--commission",
        "0.01",
        "--name",
        "report-test-b",
        "--runs-dir",
        runs,
        "-q",
      ],
      work,
    );
    expect(r2.status, r2.stderr).toBe(0);
    const [a, b] = runDirs(runs) as [string, string];
    const out = path.join(work, "diff.html");
    const r = cli(["diff", a, b, "--html", out], work);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toContain(`Wrote ${out}`);
    const opened = await open(out);
    expect(await opened.page.textContent("#run-a")).toBe(path.basename(a));
    expect(await opened.page.textContent("#run-b")).toBe(path.basename(b));
    const rows = await tableRows(opened.page, "metrics-table");
    const keys = await rowKeys(opened.page, "metrics-table");
    const ra = readJson<{ metrics: Record<string, number> }>(path.join(a, "result.json"));
    const rb = readJson<{ metrics: Record<string, number> }>(path.join(b, "result.json"));
    const commissions = rows[keys.indexOf("commissions")] as string[];
    expect(commissions[0]).toBe("Commissions");
    expect(Number(commissions[1]?.replace(/,/g, ""))).toBeCloseTo(
      ra.metrics.commissions as number,
      2,
    );
    expect(Number(commissions[2]?.replace(/,/g, ""))).toBeCloseTo(
      rb.metrics.commissions as number,
      2,
    );
    expect(rows.length).toBe(Object.keys(ra.metrics).length);
    expect(await canvasColours(opened.page, "#chart-equity")).toBeGreaterThan(5);
    expect(opened.errors).toEqual([]);
    expect(opened.requests).toEqual([pathToFileURL(out).href]);
    await opened.page.close();
  });
});
