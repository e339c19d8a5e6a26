import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cliRun, DATA, readJson, tempDir } from "../helpers/cli.js";
import { chatBody, isMoment, runLlm, systemOf, turnMessages, userOf } from "../helpers/llm-run.js";
import {
  type RecordedRequest,
  type Step,
  startScriptedServer,
} from "../helpers/scripted-openai-server.js";

/**
 * --anonymize (docs/anonymize.md): a two-symbol run (SPY and GOOG, from GOOG's first day) made
 * twice with the same scripted answers, once plain and once anonymized. The script answers by rule,
 * in the names, dates, prices and units it is shown: buy a tenth of the cash's worth of the first
 * symbol (rounded to whole units when the terms say so) and go to weight 0.3 in the second at the
 * first decision, place a limit order at half the last close and cancel it,
 * use every read tool, write memory with what it sees, and close both at the 12th decision.
 */

const work = tempDir("agenticbt-anon-");
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

const ROWS = 30;
const FIRST_GOOG_DAY = "2004-08-19";

/** SPY and GOOG from GOOG's first day on, `ROWS` bars each, on the same dates. */
function writeData(): { spy: string; goog: string } {
  const spyLines = fs.readFileSync(path.join(DATA, "SPY_D.csv"), "utf8").trim().split("\n");
  const start = spyLines.findIndex((l) => l.includes(`,${FIRST_GOOG_DAY},`));
  const spy = path.join(work, "SPY.csv");
  fs.writeFileSync(spy, `${[spyLines[0], ...spyLines.slice(start, start + ROWS)].join("\n")}\n`);
  const googLines = fs.readFileSync(path.join(DATA, "GOOG.csv"), "utf8").trim().split("\n");
  const goog = path.join(work, "GOOG.csv");
  fs.writeFileSync(goog, `${googLines.slice(0, ROWS + 1).join("\n")}\n`);
  return { spy, goog };
}

const call = (name: string, args: unknown) => ({ name, arguments: JSON.stringify(args) });

/** The scripted trader: the same rule whatever it is shown. One instance per run. */
function trader() {
  let decision = 0;
  return (req: RecordedRequest): Step => {
    const symbols = /Symbols: ([^.]+)\./.exec(systemOf(req))?.[1]?.split(", ") ?? [];
    const [a = "?", b = "?"] = symbols;
    const context = userOf(req);
    const now = /Bar \d+ of \d+: (\S+), at the close/.exec(context)?.[1] ?? "";
    const lastClose = (sym: string) => {
      const block = context.split(`# Last `).find((s) => s.includes(`bars: ${sym}\n`)) ?? "";
      const rows = block.trim().split("\n").slice(2);
      return Number(rows.at(-1)?.split(",")[4] ?? Number.NaN);
    };
    const done = turnMessages(req).some((m) => m.role === "tool");
    if (isMoment(req)) {
      if (done) return { content: "Wrote my notes." };
      return {
        toolCalls: [
          call("memory_log", { content: `On ${now} ${a} closed at ${lastClose(a)}.` }),
          call("memory_note", { key: `position_${a}`, content: `Watching ${a} since ${now}.` }),
          call("memory_recall", { query: `${a} closed` }),
        ],
      };
    }
    if (done) {
      // The limit order placed at decision 3 is cancelled by its id, read from the tool result.
      const placed = turnMessages(req).find(
        (m) => m.role === "tool" && /orderId/.test(m.content ?? ""),
      );
      const id = placed
        ? (JSON.parse(placed.content as string) as { orderId?: number }).orderId
        : null;
      if (decision === 3 && id && turnMessages(req).length === 2) {
        return { toolCalls: [call("cancel_order", { order_id: id })] };
      }
      return { content: "Done." };
    }
    decision += 1;
    if (decision === 1) {
      // A tenth of the equity: the same real order in both runs (a quantity the model works out
      // from shown prices of 6 digits would differ from the plain run's in its last digits).
      return {
        toolCalls: [
          call("place_order", {
            symbol: a,
            side: "buy",
            fraction_of_equity: 0.1,
            reason: `${a} looks cheap`,
          }),
          call("place_order", { symbol: b, target_weight: 0.3 }),
        ],
      };
    }
    if (decision === 3) {
      const limit = Math.round(lastClose(a) * 50) / 100;
      return {
        toolCalls: [
          call("place_order", {
            symbol: a,
            side: "buy",
            fraction_of_equity: 0.05,
            type: "limit",
            limit_price: limit,
          }),
        ],
      };
    }
    if (decision === 4) {
      return {
        toolCalls: [
          call("get_bars", { symbol: a, n: 30 }),
          call("get_bars", { symbol: b, n: 30 }),
          call("get_indicator", { name: "sma", symbol: a, params: { period: 3 } }),
          call("get_indicator", { name: "bbands", symbol: b, params: { period: 3 } }),
          call("get_indicator", { name: "rsi", symbol: b, params: { period: 3 } }),
          call("get_account", {}),
          call("list_orders", {}),
          call("memory_recall", { query: "closed at" }),
          call("get_bars", { symbol: "ZZZ" }),
          call("place_order", { symbol: a, side: "buy", quantity: 1e9 }),
        ],
      };
    }
    if (decision === 12) {
      return {
        toolCalls: [
          call("place_order", { symbol: a, target_weight: 0 }),
          call("place_order", { symbol: b, target_weight: 0 }),
        ],
      };
    }
    return { content: "Holding." };
  };
}

/** Every number of the real data as the model would see it printed (price() keeps ≤ 6 decimals). */
function realPriceStrings(files: string[]): string[] {
  const out = new Set<string>();
  for (const file of files) {
    for (const line of fs.readFileSync(file, "utf8").trim().split("\n").slice(1)) {
      const cells = line.split(",").filter((c) => /^\d+(\.\d+)?$/.test(c));
      // OHLC: the four cells before the volume (the index column of SPY is an integer too).
      for (const c of cells.slice(-5, -1)) out.add(String(Number(Number(c).toFixed(6))));
    }
  }
  return [...out];
}

/** The real dates in the formats a model could recognise. */
function realDateStrings(files: string[]): string[] {
  const months = "Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split(" ");
  const out = new Set<string>();
  for (const file of files) {
    for (const m of fs.readFileSync(file, "utf8").matchAll(/(\d{4})-(\d{2})-(\d{2})/g)) {
      const [iso, y, mo, d] = m as unknown as [string, string, string, string];
      out.add(iso);
      out.add(`${y}/${mo}/${d}`);
      out.add(`${mo}/${d}/${y}`);
      out.add(`${d}.${mo}.${y}`);
      out.add(`${y}${mo}${d}`);
      out.add(`${months[Number(mo) - 1]} ${Number(d)}, ${y}`);
      out.add(`${y}-${mo}`);
    }
  }
  out.add("2004");
  return [...out];
}

const asNumber = (s: string) => new RegExp(`(?<![\\d.])${s.replace(".", "\\.")}(?![\\d])`);

describe("--anonymize", async () => {
  const { spy, goog } = writeData();
  const plainServer = await startScriptedServer(trader());
  const anonServer = await startScriptedServer(trader());
  afterAll(() => Promise.all([plainServer.close(), anonServer.close()]));
  const common = { data: [spy, goog], prompt: "Trade SPY and GOOG: buy the dips." };
  // --anonymize trades fractional units (whole ones would give the price level away): the plain
  // run it is compared with trades them too.
  const plain = await runLlm({
    ...common,
    baseURL: plainServer.url,
    runsRoot: path.join(work, "plain"),
    agent: { cache: false },
    broker: { fractional: true },
  });
  const anon = await runLlm({
    ...common,
    baseURL: anonServer.url,
    runsRoot: path.join(work, "anon"),
    agent: { cache: false, anonymize: true },
  });
  const bodies = anonServer.requests
    .filter((r) => r.path === "/v1/chat/completions")
    .map((r) => JSON.stringify(chatBody(r)));

  it("both runs complete, and the model acted in each", () => {
    expect(plain.result.status).toBe("completed");
    expect(anon.result.status).toBe("completed");
    expect(plain.result.trades.closed).toBe(2);
    expect(anon.result.trades.closed).toBe(2);
  });

  it("the model sees ASSET_A and ASSET_B, trading days from 2300-01-01, scaled prices and 100000", () => {
    const first = anonServer.requests[0] as RecordedRequest;
    const record = anon.result.lookAhead?.anonymized;
    expect(systemOf(first)).toContain("Symbols: ASSET_A, ASSET_B.");
    expect(systemOf(first)).toContain("Trade ASSET_A and ASSET_B: buy the dips.");
    // The window's first day (a Thursday) is shown as Monday 2300-01-01.
    expect(userOf(first)).toContain("Bar 1 of 30: 2300-01-01, at the close.");
    const googClose = Number((100.34 * (record?.priceFactors.GOOG as number)).toPrecision(6));
    expect(userOf(first)).toContain(`\n2300-01-01,`);
    expect(userOf(first)).toMatch(
      new RegExp(`\\n2300-01-01,[\\d.]+,[\\d.]+,[\\d.]+,${googClose},\\d+\\n`),
    );
    expect(systemOf(first)).toContain("Starting cash 100000.");
    expect(systemOf(first)).toContain("Quantities are in fractional units");
    expect(record?.moneyFactor).toBe(10);
  });

  it("no real ticker, date or price reaches the model in any request", () => {
    const files = [spy, goog];
    const tickers = [/\bSPY\b/i, /\bGOOG\b/i];
    const dates = realDateStrings(files);
    const prices = realPriceStrings(files).filter((p) => p.replace(".", "").length >= 4);
    expect(bodies.length).toBeGreaterThan(60);
    expect(dates.length).toBeGreaterThan(150);
    expect(prices.length).toBeGreaterThan(150);
    const leaks: string[] = [];
    for (const [i, body] of bodies.entries()) {
      for (const t of tickers) if (t.test(body)) leaks.push(`request ${i}: ticker ${t}`);
      for (const d of dates) if (body.includes(d)) leaks.push(`request ${i}: date ${d}`);
      for (const p of prices) if (asNumber(p).test(body)) leaks.push(`request ${i}: price ${p}`);
    }
    expect(leaks.slice(0, 10)).toEqual([]);
  });

  it("the tool results the model got are anonymized too: bars, indicators, orders, memory", () => {
    const tool = (pattern: RegExp) =>
      bodies.flatMap((b) =>
        (JSON.parse(b) as { messages: { role: string; content: string | null }[] }).messages
          .filter((m) => m.role === "tool" && pattern.test(m.content ?? ""))
          .map((m) => m.content as string),
      );
    const bars = tool(/"bars":\[/);
    const spyClose = anon.result.lookAhead?.anonymized?.priceFactors.SPY as number;
    expect(bars.some((c) => c.includes('"symbol":"ASSET_A"') && c.includes(`"close":`))).toBe(true);
    expect(spyClose).toBeGreaterThan(0);
    const indicators = tool(/"values":\{/);
    expect(indicators.length).toBe(3);
    expect(tool(/"cancelled"/).length).toBe(1);
    expect(tool(/Unknown symbol \\"ZZZ\\"\. Valid symbols: ASSET_A, ASSET_B\./).length).toBe(1);
    // The memory the model wrote and recalled is on the shifted clock.
    const recalled = tool(/"citations"|"path":"journal/);
    expect(recalled.join("")).toMatch(/journal\/2300-01-\d\d\.md/);
    // Notes the model wrote come back with its dates as written, not shifted a second time.
    expect(bodies.some((b) => b.includes("Watching ASSET_A since 2300-01-"))).toBe(true);
    const years = new Set(
      bodies.flatMap((b) => [...b.matchAll(/(?<!\d)(\d{4})-\d\d-\d\d/g)].map((m) => m[1])),
    );
    expect([...years]).toEqual(["2300"]);
    const journal = fs.readdirSync(path.join(anon.dir, "journal"));
    expect(journal.every((f) => f.startsWith("2300-"))).toBe(true);
  });

  it("week reviews follow the shown calendar: every fifth trading day, a shown Friday", () => {
    const reviews = anonServer.requests.filter(
      (r) => isMoment(r) && turnMessages(r).length === 0 && userOf(r).includes('key "week_'),
    );
    const dates = reviews.map((r) => /Bar (\d+) of \d+: (\S+),/.exec(userOf(r))?.slice(1, 3));
    // The real first week ends on bar 2 (Friday 2004-08-20); the shown one on bar 5.
    expect(dates).toEqual([
      ["5", "2300-01-05"],
      ["10", "2300-01-12"],
      ["15", "2300-01-19"],
      ["20", "2300-01-26"],
      ["25", "2300-02-02"],
      ["30", "2300-02-09"],
    ]);
    expect(userOf(reviews[0] as RecordedRequest)).toContain('key "week_2300-W01"');
  });

  it("month reviews follow the shown calendar, not the real one", () => {
    const reviews = anonServer.requests.filter(
      (r) => isMoment(r) && turnMessages(r).length === 0 && userOf(r).includes('key "month_'),
    );
    const dates = reviews.map((r) => /Bar \d+ of \d+: (\S+),/.exec(userOf(r))?.[1]);
    // Real August 2004 ends 9 bars in (2004-08-31, shown as 2300-01-11): no review there. The
    // shown January ends on its 23rd weekday, Wednesday 2300-01-31 (the 23rd bar).
    expect(dates).toEqual(["2300-01-31"]);
    expect(userOf(reviews[0] as RecordedRequest)).toContain('key "month_2300-01"');
  });

  it("trades, equity and metrics are the real run's: identical to the same answers without --anonymize (with --fractional)", () => {
    for (const file of ["trades.csv", "equity.csv"]) {
      expect(fs.readFileSync(path.join(anon.dir, file), "utf8"), file).toBe(
        fs.readFileSync(path.join(plain.dir, file), "utf8"),
      );
    }
    expect(anon.result.metrics).toEqual(plain.result.metrics);
    expect(anon.result.period).toEqual(plain.result.period);
    const trades = fs.readFileSync(path.join(anon.dir, "trades.csv"), "utf8");
    expect(trades).toContain("SPY");
    expect(trades).toContain("2004-08-");
    // A tenth of the equity in SPY, in fractional units (--anonymize implies them).
    const qty = Number(trades.split("\n")[1]?.split(",")[3]);
    expect(qty).toBeGreaterThan(0);
    expect(Number.isInteger(qty)).toBe(false);
    // config.json records the broker the run traded with.
    const config = readJson<{ broker: { fractional: boolean } }>(
      path.join(anon.dir, "config.json"),
    );
    expect(config.broker.fractional).toBe(true);
  });

  it("an anonymized run replays from its recording with no network call", async () => {
    const before = anonServer.requests.length;
    const replay = await runLlm({
      ...common,
      baseURL: anonServer.url,
      runsRoot: path.join(work, "anon-replay"),
      agent: { cache: false, anonymize: true, replay: anon.dir },
    });
    expect(replay.result.status).toBe("completed");
    expect(anonServer.requests.length).toBe(before);
    expect(fs.readFileSync(path.join(replay.dir, "trades.csv"), "utf8")).toBe(
      fs.readFileSync(path.join(plain.dir, "trades.csv"), "utf8"),
    );
  });

  it("result.json records the mapping and the cut-off", () => {
    const record = anon.result.lookAhead;
    expect(record?.anonymized?.symbols).toEqual({ SPY: "ASSET_A", GOOG: "ASSET_B" });
    expect(record?.anonymized?.calendar).toEqual({
      kind: "trading-days",
      firstDay: { real: "2004-08-19", shown: "2300-01-01" },
    });
    // GOOG's first close is shown in [20, 2000), by a factor not within 26% of a power of ten.
    const factor = record?.anonymized?.priceFactors.GOOG as number;
    expect(100.34 * factor).toBeGreaterThanOrEqual(20);
    expect(100.34 * factor).toBeLessThan(2000);
    const decade = Math.log10(factor) - Math.floor(Math.log10(factor));
    expect(decade).toBeGreaterThanOrEqual(0.1);
    expect(decade).toBeLessThanOrEqual(0.9);
    expect(record?.anonymized?.quantityFactors.GOOG).toBeCloseTo(10 / factor, 12);
    expect(record?.anonymized?.results).toContain("identical");
    expect(record?.modelCutoff).toEqual({ date: "2023-10-01", source: "table" });
    expect(record?.overlapsTrainingData).toBe(true);
    expect(plain.result.lookAhead?.anonymized).toBeNull();
  });
});

describe("--model-cutoff", async () => {
  const server = await startScriptedServer(() => ({ content: "Holding." }));
  afterAll(() => server.close());
  const data = path.join(work, "SPY6.csv");
  fs.writeFileSync(
    data,
    `${fs.readFileSync(path.join(DATA, "SPY_D.csv"), "utf8").split("\n").slice(0, 7).join("\n")}\n`,
  );
  const run = (runs: string, ...extra: string[]) =>
    cliRun(
      [
        "run",
        "--prompt",
        "hold",
        "--data",
        data,
        "--base-url",
        server.url,
        "--runs-dir",
        runs,
        "--no-cache",
        "--moments",
        "none",
        "--no-ui",
        ...extra,
      ],
      work,
      { ...process.env, OPENAI_API_KEY: "sk-test" },
    );
  const only = (runs: string) => path.join(runs, fs.readdirSync(runs)[0] as string, "result.json");

  it("warns on stderr when the window starts before the model's cut-off, from the table", async () => {
    const runs = path.join(work, "cut-table");
    const r = await run(runs, "--model", "gpt-4o-mini");
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      "The test window starts 1999-11-01, before gpt-4o-mini's training cut-off 2023-10-01",
    );
    const result = readJson<{ lookAhead: unknown; warnings: string[] }>(only(runs));
    expect(result.lookAhead).toEqual({
      anonymized: null,
      modelCutoff: { date: "2023-10-01", source: "table" },
      overlapsTrainingData: true,
    });
  });

  it("takes --model-cutoff over the table, and is silent for a window after it", async () => {
    const runs = path.join(work, "cut-flag");
    const r = await run(runs, "--model", "gpt-4o-mini", "--model-cutoff", "1999-10-29");
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).not.toContain("cut-off");
    const result = readJson<{ lookAhead: { modelCutoff: unknown; overlapsTrainingData: boolean } }>(
      only(runs),
    );
    expect(result.lookAhead.modelCutoff).toEqual({ date: "1999-10-29", source: "flag" });
    expect(result.lookAhead.overlapsTrainingData).toBe(false);
  });

  it("does not warn an anonymized run, and records the cut-off", async () => {
    const runs = path.join(work, "cut-anon");
    const r = await run(runs, "--model", "gpt-4o-mini", "--anonymize");
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).not.toContain("cut-off");
    const result = readJson<{ lookAhead: { modelCutoff: unknown } }>(only(runs));
    expect(result.lookAhead.modelCutoff).toEqual({ date: "2023-10-01", source: "table" });
  });

  it.each([["2023-02-30"], ["2023-13-01"], ["yesterday"], ["2023-1-5"]])(
    "refuses --model-cutoff %s with exit 2 before a run directory exists",
    async (bad) => {
      const runs = path.join(work, `cut-bad-${bad}`);
      const r = await run(runs, "--model-cutoff", bad);
      expect(r.status).toBe(2);
      expect(r.stderr).toContain("--model-cutoff");
      expect(r.stderr).toContain("YYYY-MM-DD");
      expect(fs.existsSync(runs)).toBe(false);
    },
  );

  it("refuses --anonymize for a code strategy with exit 2", async () => {
    const runs = path.join(work, "cut-code");
    const r = await cliRun(
      ["run", "strategies/sma-crossover.ts", "--data", data, "--runs-dir", runs, "--anonymize"].map(
        (a) => (a.startsWith("strategies/") ? path.join(DATA, "..", a) : a),
      ),
      work,
    );
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("--anonymize is for LLM strategies");
    expect(fs.existsSync(runs)).toBe(false);
  });
});
