import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DiffOutput, diffOutputSchema } from "../../../src/rundir/schemas.js";
import { runStrategy } from "../../cli/commands/report-cli.js";
import {
  artifactPath,
  rowKeys,
  sharedChromium,
  tableHeader,
  tableRows,
} from "../../helpers/chromium.js";
import { cli, ROOT, tempDir } from "../../helpers/cli.js";

// `diff --html` as a reader sees it in headless Chromium, checked against the text `diff` of the
// same two runs: the page must hold everything the text holds.

const work = tempDir();
const runs = path.join(work, "runs");
const chromium = sharedChromium();
const SMA = ["strategies/sma-crossover.ts", "--data", "data/GOOG.csv"];

let fast5 = "";
let plain = "";
let commission = "";

beforeAll(async () => {
  await chromium.start();
  // fast5 and commission differ in config (params.fast, commissionRate), trades and decisions;
  // plain and commission make the same decisions, so every trade is resized, none diverges.
  fast5 = runStrategy([...SMA, "--param", "fast=5"], ROOT, runs);
  plain = runStrategy(SMA, ROOT, runs);
  commission = runStrategy([...SMA, "--commission", "0.001"], ROOT, runs);
}, 180_000);

afterAll(async () => {
  await chromium.close();
  fs.rmSync(work, { recursive: true, force: true });
});

interface Compared {
  json: DiffOutput;
  text: string[];
  page: Page;
  errors: string[];
}

/** The text diff, the JSON diff and the page of the same two runs; the page opened offline. */
async function compare(a: string, b: string, name: string): Promise<Compared> {
  const out = path.join(work, `${name}.html`);
  const t = cli(["diff", a, b, "--html", out], work);
  expect(t.status, t.stderr).toBe(0);
  const j = cli(["diff", a, b, "--json"], work);
  expect(j.status, j.stderr).toBe(0);
  const page = await chromium.get().newPage({ viewport: { width: 1280, height: 900 } });
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  const url = pathToFileURL(out).href;
  await page.route("**/*", (r) => (r.request().url() === url ? r.continue() : r.abort()));
  await page.goto(url);
  await page.waitForSelector("body[data-charts]", { timeout: 15_000 });
  return {
    json: diffOutputSchema.parse(JSON.parse(j.stdout)),
    text: t.stdout.split("\n"),
    page,
    errors,
  };
}

/** A sentence of the text that starts with `prefix`, its wrapped continuation lines joined. */
function sentence(text: string[], prefix: string): string {
  const at = text.findIndex((l) => l.startsWith(prefix));
  expect(at, `no line starts with ${prefix}`).toBeGreaterThanOrEqual(0);
  const parts = [text[at] as string];
  for (const l of text.slice(at + 1)) {
    if (!l.startsWith("  ") || /^ {2}[AB]: /.test(l)) break;
    parts.push(l.trim());
  }
  return parts.join(" ");
}

const textOf = (page: Page, selector: string) =>
  page.textContent(selector).then((t) => (t ?? "").trim());

describe("diff --html of sma-crossover fast=5 vs fast=10 with 0.1% commission (GOOG)", () => {
  let c: Compared;
  beforeAll(async () => {
    c = await compare(fast5, commission, "diverged");
  }, 60_000);
  afterAll(() => c.page.close());

  it("shows the config diff rows the text shows, and the JSON's values", async () => {
    const rows = await tableRows(c.page, "config-table");
    expect(await rowKeys(c.page, "config-table")).toEqual(["broker.commissionRate", "params.fast"]);
    expect(rows).toEqual(c.json.config.changed.map((x) => ["~", x.key, String(x.a), String(x.b)]));
    for (const [mark, key, a, b] of rows)
      expect(c.text).toContain(`  ${mark} ${key}: ${a} -> ${b}`);
  });

  it("lists every trade found in one run only, with the text's counts and first rows", async () => {
    const summary = await textOf(c.page, "#trades-summary");
    expect(`Trades: ${summary}`).toBe(sentence(c.text, "Trades: "));
    const trades = c.json.trades;
    expect(trades.onlyA.length).toBeGreaterThan(10);
    expect(summary).toContain(`${trades.onlyA.length} only in A, ${trades.onlyB.length} only in B`);
    for (const side of ["A", "B"] as const) {
      const list = side === "A" ? trades.onlyA : trades.onlyB;
      const rows = await tableRows(c.page, `trades-only-${side.toLowerCase()}`);
      expect(await tableHeader(c.page, `trades-only-${side.toLowerCase()}`)).toEqual([
        "symbol",
        "side",
        "qty",
        "entry",
        "exit",
        "return",
      ]);
      expect(rows.map((r) => r.slice(0, 5))).toEqual(
        list.map((t) => [t.symbol, t.side, String(t.qty), t.entryTime, t.exitTime || "open"]),
      );
      expect(await c.page.textContent(`#trades h3 >> nth=${side === "A" ? 0 : 1}`)).toBe(
        `Only in ${side} (${list.length})`,
      );
      // The text lists the first ten of the same rows, then says how many more there are.
      const lines = c.text.filter((l) => l.startsWith(`  ${side}: `) && l.includes(" -> "));
      expect(lines).toHaveLength(10);
      lines.forEach((l, i) => {
        const [sym, dir, qty, entry, exit, ret] = rows[i] as string[];
        expect(l).toBe(`  ${side}: ${sym} ${dir} ${qty}  ${entry} -> ${exit}  ${ret}`);
      });
      expect(c.text).toContain(`  ${side}: ... and ${list.length - 10} more`);
      // The return is trades.csv's return_pct, rounded as both print it.
      rows.forEach((r, i) => {
        const pct = Number(r[5]?.replace("%", ""));
        expect(pct).toBeCloseTo(list[i]?.returnPct as number, 2);
      });
    }
    // Each run's trades.csv holds its trades in both and its trades in it only.
    const csvRows = (dir: string) =>
      fs.readFileSync(path.join(dir, "trades.csv"), "utf8").trim().split("\n").length - 1;
    expect(trades.common + trades.onlyA.length).toBe(csvRows(fast5));
    expect(trades.common + trades.onlyB.length).toBe(csvRows(commission));
  });

  it("explains the first divergence in the text's sentence, with what each run did", async () => {
    const dv = c.json.divergence;
    expect(dv.diverged).toBe(true);
    const shown = await textOf(c.page, "#divergence-sentence");
    expect(shown).toBe(sentence(c.text, "First divergence"));
    expect(shown).toContain(`First divergence at ${dv.time}, bar `);
    // The run with a decision line at that time acted; the other did nothing there.
    const [actor, idle] = dv.barB === null ? ["A", "B"] : ["B", "A"];
    expect(dv.barA === null || dv.barB === null).toBe(true);
    expect(shown).toContain(
      `bar ${dv.barA ?? dv.barB}: run ${actor} acted and run ${idle} did nothing.`,
    );
    const rows = await tableRows(c.page, "divergence-table");
    expect(rows.map((r) => r[0])).toEqual(["A", "B"]);
    expect(c.text).toContain(`  A: ${rows[0]?.[2]}`);
    expect(c.text).toContain(`  B: ${rows[1]?.[2]}`);
    const acting = rows[actor === "A" ? 0 : 1] as string[];
    expect(acting[2]).toBe(actor === "A" ? dv.a : dv.b);
    expect(rows[idle === "A" ? 0 : 1]?.[2]).toBe("nothing (no order, no tool call at this bar)");
  });

  it("has the text's metrics with the same figures and B − A, then the rest of result.json", async () => {
    const rows = await tableRows(c.page, "metrics-table");
    const keys = await rowKeys(c.page, "metrics-table");
    expect(keys.slice(0, c.json.metrics.length)).toEqual(c.json.metrics.map((m) => m.key));
    for (const row of rows.slice(0, c.json.metrics.length)) {
      const line = c.text.find((l) => l.startsWith(`  ${row[0]} `));
      expect(line?.trim().split(/\s{2,}/), row[0]).toEqual(row);
    }
    const ra = JSON.parse(fs.readFileSync(path.join(fast5, "result.json"), "utf8"));
    expect(new Set(keys)).toEqual(new Set(Object.keys(ra.metrics)));
  });

  it("shows the playbook diff, memory and journal counts, and the memory policy as the text does", async () => {
    expect(await textOf(c.page, "#playbook-diff")).toBe(c.json.playbookDiff.trim());
    expect(c.json.playbookDiff).toContain("+- fast: 10");
    expect(`Notes: ${await textOf(c.page, "#notes-counts")}`).toBe(sentence(c.text, "Notes: "));
    expect(`Reviews: ${await textOf(c.page, "#reviews-counts")}`).toBe(
      sentence(c.text, "Reviews: "),
    );
    const journal = await tableRows(c.page, "journal-table");
    expect(journal.map((r) => r[0])).toEqual(["days", "entries", "words", "words per day"]);
    expect(c.text).toContain("Memory policy changes: none in either run");
    expect(await textOf(c.page, "#policy p")).toBe("none in either run");
  });

  it("draws without errors, offline, and fits the window's width", async () => {
    const shot = artifactPath("diff-page.png");
    await c.page.screenshot({ path: shot, fullPage: true });
    console.log(`diff page screenshot: ${shot}`);
    const overflow = await c.page.evaluate(
      "document.documentElement.scrollWidth - document.documentElement.clientWidth",
    );
    expect(overflow).toBe(0);
    expect(c.errors).toEqual([]);
  });
});

describe("diff --html of the same decisions with and without commission", () => {
  let c: Compared;
  beforeAll(async () => {
    c = await compare(plain, commission, "resized");
  }, 60_000);
  afterAll(() => c.page.close());

  it("counts the resized trades (same trade, another quantity) as the text does", async () => {
    const t = c.json.trades;
    expect(t.resized).toBeGreaterThan(0);
    expect(t.resized).toBe(t.onlyA.length);
    const summary = await textOf(c.page, "#trades-summary");
    expect(`Trades: ${summary}`).toBe(sentence(c.text, "Trades: "));
    expect(summary).toContain(
      `(${t.resized} of them the same trade in both, with another quantity)`,
    );
    expect(await rowKeys(c.page, "config-table")).toEqual(["broker.commissionRate"]);
  });

  it("says the decisions never diverge, in the text's words", async () => {
    expect(c.json.divergence.diverged).toBe(false);
    const shown = await textOf(c.page, "#divergence-sentence");
    expect(shown).toBe(sentence(c.text, "First divergence"));
    expect(shown).toMatch(/^First divergence: none\. Both runs made the same decisions/);
    expect(await c.page.$("#divergence-table")).toBeNull();
    expect(c.errors).toEqual([]);
  });
});
