import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { artifactPath, canvasColours, sharedChromium } from "../../helpers/chromium.js";
import { DATA, tempDir } from "../../helpers/cli.js";
import {
  barOf,
  isMoment,
  readJsonl,
  runLlm,
  sliceCsv,
  turnMessages,
} from "../../helpers/llm-run.js";
import {
  type RecordedRequest,
  type Step,
  startScriptedServer,
} from "../../helpers/scripted-openai-server.js";

// The LLM part of report.html: the decision timeline (rationale, tool calls, recall citations)
// and tokens and cost over time, in headless Chromium.

const work = tempDir();
const RATIONALE = `Bought the dip <b id="bold">not bold</b> & logged it.`;

/** At bar 3: journal, recall it, buy; at bar 8: sell. Moments journal one line. */
function trader(req: RecordedRequest): Step {
  const done = turnMessages(req).filter((m) => m.role === "tool").length;
  const usage = { prompt: 1000, completion: 20, cached: 800 };
  if (isMoment(req)) {
    return done > 0
      ? { content: "Noted.", usage }
      : {
          toolCalls: [
            { name: "memory_log", arguments: JSON.stringify({ content: "Day review: calm." }) },
          ],
          usage,
        };
  }
  const script: Record<number, { name: string; arguments: string }[]> = {
    3: [
      { name: "memory_log", arguments: JSON.stringify({ content: "Bought SPY on an RSI dip." }) },
      { name: "memory_recall", arguments: JSON.stringify({ query: "RSI dip", limit: 3 }) },
      {
        name: "place_order",
        arguments: JSON.stringify({ symbol: "SPY", side: "buy", fraction_of_equity: 0.5 }),
      },
    ],
    8: [
      {
        name: "place_order",
        arguments: JSON.stringify({ symbol: "SPY", side: "sell", target_weight: 0 }),
      },
    ],
  };
  const calls = script[barOf(req)];
  if (calls && done < calls.length) {
    return { toolCalls: [calls[done] as { name: string; arguments: string }], usage };
  }
  return { content: calls ? RATIONALE : "Hold: no setup.", usage: { ...usage, prompt: 900 } };
}

const chromium = sharedChromium();
beforeAll(() => chromium.start());
afterAll(async () => {
  await chromium.close();
  fs.rmSync(work, { recursive: true, force: true });
});

it("has a Chromium to run the report in", () => {
  expect(chromium.get().isConnected()).toBe(true);
});

describe("report.html of an LLM run, in headless Chromium", async () => {
  const server = await startScriptedServer((req) => trader(req));
  afterAll(() => server.close());
  const spy = sliceCsv(path.join(DATA, "SPY_D.csv"), 15, work, "SPY.csv");
  const { result, dir } = await runLlm({
    baseURL: server.url,
    data: [spy],
    runsRoot: path.join(work, "runs"),
  });
  const file = path.join(dir, "report.html");
  const url = pathToFileURL(file).href;
  const errors: string[] = [];
  const requests: string[] = [];
  let page: import("playwright-core").Page;

  beforeAll(async () => {
    page = await chromium.get().newPage({ viewport: { width: 1280, height: 900 } });
    page.on("console", (m) => {
      if (m.type() === "error") errors.push(m.text());
    });
    page.on("pageerror", (e) => errors.push(e.message));
    page.on("request", (r) => requests.push(r.url()));
    await page.route("**/*", (route) =>
      route.request().url() === url ? route.continue() : route.abort(),
    );
    await page.goto(url);
    await page.waitForSelector("body[data-charts]", { timeout: 15_000 });
    await page.click("#timeline details:nth-of-type(4) summary");
    const shot = artifactPath("report-llm-run.png");
    await page.screenshot({ path: shot, fullPage: true });
    console.log(`LLM report screenshot: ${shot}`);
  }, 60_000);

  it("completes and draws equity, candles and the tokens-and-cost chart", async () => {
    expect(result.status).toBe("completed");
    expect(await page.getAttribute("body", "data-charts")).toBe("3");
    const colours = await canvasColours(page, "#chart-usage");
    expect(colours).toBeGreaterThan(5);
    // Tokens are counted in whole numbers, cost in dollars.
    const axes = await page.evaluate(`window.__charts.usage.panes().flatMap((p) => p.getSeries())
      .map((s) => s.priceFormatter().format(12345.678))`);
    expect(axes).toEqual(["12,346", "12,346", "12,346", "$12,345.6780"]);
    expect(errors).toEqual([]);
    expect(requests).toEqual([url]);
  });

  it("has one timeline entry per decisions.jsonl line, with rationale, tool calls and citations", async () => {
    const lines = readJsonl(path.join(dir, "decisions.jsonl"));
    expect(await page.$$eval("#timeline details", (d) => d.length)).toBe(lines.length);
    const k = lines.findIndex((l) => l.type === "decision" && l.bar === 2); // "Bar 3 of 15"
    const bar3 = page.locator("#timeline details").nth(k);
    const day = lines[k]?.time as string;
    expect(await bar3.locator("summary b").first().textContent()).toBe(day);
    expect(await bar3.locator("pre.rationale").textContent()).toBe(RATIONALE);
    expect(await page.$("#bold")).toBeNull();
    const tools = await bar3.locator("li > b").allTextContents();
    expect(tools).toEqual(["memory_log", "memory_recall", "place_order"]);
    const citation = await bar3.locator("li.citation code").first().textContent();
    expect(citation).toMatch(new RegExp(`^journal/${day}\\.md:\\d+-\\d+$`));
  });

  it("ends the running totals at result.json's tokens and cost", async () => {
    const data = JSON.parse((await page.textContent("#report-data")) ?? "null") as {
      usage: { prompt: number; completion: number; cached: number; usd: number }[];
    };
    const last = data.usage.at(-1);
    const usage = (
      result.llm as { usage: { tokens: Record<string, number>; cost: { usd: number } } }
    ).usage;
    expect(last?.prompt).toBe(usage.tokens.prompt);
    expect(last?.completion).toBe(usage.tokens.completion);
    expect(last?.cached).toBe(usage.tokens.cached);
    expect(last?.usd).toBeCloseTo(usage.cost.usd, 10);
    // Non-decreasing: running totals.
    for (let i = 1; i < data.usage.length; i++) {
      expect((data.usage[i]?.prompt ?? 0) >= (data.usage[i - 1]?.prompt ?? 0)).toBe(true);
    }
  });
});

describe("report.html of an LLM run with a model that has no price", async () => {
  const server = await startScriptedServer((req) => trader(req));
  afterAll(() => server.close());
  const spy = sliceCsv(path.join(DATA, "SPY_D.csv"), 15, work, "SPY-local.csv");
  const { result, dir } = await runLlm({
    baseURL: server.url,
    data: [spy],
    runsRoot: path.join(work, "runs-local"),
    agent: { model: "a-local-model-with-no-price" },
  });
  const reason = (result.llm as { usage: { cost: { reason: string | null } } }).usage.cost.reason;

  it("fits the page's width: the long cost reason wraps, the values stay in view", async () => {
    // The reason is one long unbroken-by-markup sentence (114 characters when first seen).
    expect(reason?.length).toBeGreaterThan(80);
    const page = await chromium.get().newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(pathToFileURL(path.join(dir, "report.html")).href);
    await page.waitForSelector("body[data-charts]", { timeout: 15_000 });
    const fit = (await page.evaluate(`(() => {
      const doc = document.documentElement;
      const row = (key) => Array.from(document.querySelectorAll("#facts-table tbody tr"))
        .find((tr) => tr.cells[0].textContent === key);
      const right = (key) => row(key).cells[1].getBoundingClientRect().right;
      return { scroll: doc.scrollWidth, client: doc.clientWidth,
        reason: row("llm.usage.cost.reason").cells[1].textContent,
        reasonRight: right("llm.usage.cost.reason"), submittedRight: right("orders.submitted"),
        tradesRight: right("trades.closed") };
    })()`)) as Record<string, number | string>;
    const shot = artifactPath("report-llm-unpriced.png");
    await page.screenshot({ path: shot, fullPage: true });
    console.log(`unpriced LLM report screenshot: ${shot}`);
    await page.close();
    expect(fit.reason).toBe(reason);
    expect(fit.scroll).toBeLessThanOrEqual(fit.client as number);
    for (const key of ["reasonRight", "submittedRight", "tradesRight"]) {
      expect(fit[key]).toBeLessThanOrEqual(fit.client as number);
    }
  });
});
