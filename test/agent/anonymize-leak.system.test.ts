import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DATA, ROOT, tempDir } from "../helpers/cli.js";
import { chatBody, isMoment, runLlm, systemOf, turnMessages, userOf } from "../helpers/llm-run.js";
import {
  type RecordedRequest,
  type Step,
  startScriptedServer,
} from "../helpers/scripted-openai-server.js";

/**
 * The adversarial leak test of --anonymize (docs/anonymize.md): an anonymized LLM run is made on
 * real data against a scripted model that trades, reads every tool and writes memory; then, from
 * the request bodies alone and the real data, an adversary that has memorised the real closes,
 * volumes and trading calendars tries to recover where the run is:
 * - exact real prices (single-asset runs) and volumes anywhere in a request;
 * - every shown bar's close within 1% of the real close of that bar, as shown and after undoing
 *   every factor a request gives away: the shown cash over a round cash (1,000 … 1,000,000), the
 *   first shown close over 100, each way;
 * - the holiday gaps: the weekdays missing from the shown calendar, matched against every real
 *   trading calendar of the data at every shift.
 * Every recovery must find nothing.
 */

const work = tempDir("agenticbt-anon-leak-");
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

const DAY = 86_400_000;

interface RealSeries {
  dates: string[];
  open: number[];
  high: number[];
  low: number[];
  close: number[];
  volume: number[];
  /** Each price cell as the file writes it. */
  priceText: string[];
}

/** A bundled CSV as written: the date column, OHLC and volume by header name. */
function readReal(file: string): RealSeries {
  const [head = "", ...rows] = fs.readFileSync(file, "utf8").trim().split("\n");
  const cols = head.split(",").map((c) => c.trim().toLowerCase());
  const at = (name: string) => cols.indexOf(name);
  const s: RealSeries = {
    dates: [],
    open: [],
    high: [],
    low: [],
    close: [],
    volume: [],
    priceText: [],
  };
  for (const row of rows) {
    const cells = row.split(",");
    const date = cells.find((c) => /^\d{4}-\d\d-\d\d$/.test(c));
    if (!date) continue;
    s.dates.push(date);
    const cell = (name: string) => cells[at(name)] ?? "";
    s.open.push(Number(cell("open")));
    s.high.push(Number(cell("high")));
    s.low.push(Number(cell("low")));
    s.close.push(Number(cell("close")));
    s.volume.push(Number(cell("volume")));
    for (const n of ["open", "high", "low", "close"]) s.priceText.push(cell(n));
  }
  return s;
}

const call = (name: string, args: unknown) => ({ name, arguments: JSON.stringify(args) });

/** The last close of `sym` in a context's bar table. */
function lastClose(context: string, sym: string): number {
  const block = context.split("# Last ").find((s) => s.includes(`bars: ${sym}\n`)) ?? "";
  const rows = block.split("\n").filter((l) => /^\d{4}-\d\d-\d\d[^,]*(,[\d.]+){5}$/.test(l));
  return Number(rows.at(-1)?.split(",")[4] ?? Number.NaN);
}

/**
 * A scripted trader that acts on what it is shown, whatever the names and units: weight orders,
 * a quantity worth a tenth of the equity, a limit order under the close, every read tool, and
 * memory written with the prices it sees.
 */
function trader() {
  let decision = 0;
  return (req: RecordedRequest): Step => {
    const symbols = /Symbols: ([^.]+)\./.exec(systemOf(req))?.[1]?.split(", ") ?? [];
    const context = userOf(req);
    const now = /Bar \d+ of \d+: (\S+), at the close/.exec(context)?.[1] ?? "";
    const equity = Number(/equity (-?[\d.]+)/.exec(context)?.[1] ?? 0);
    const done = turnMessages(req).some((m) => m.role === "tool");
    const a = symbols[decision % symbols.length] ?? "?";
    if (isMoment(req)) {
      if (done) return { content: "Noted." };
      return {
        toolCalls: [
          call("memory_log", { content: `${now}: ${a} closed at ${lastClose(context, a)}.` }),
          call("memory_recall", { query: `${a} closed` }),
        ],
      };
    }
    if (done) return { content: "Done." };
    decision += 1;
    const close = lastClose(context, a);
    switch (decision % 6) {
      case 1:
        return {
          toolCalls: symbols.map((s) =>
            call("place_order", { symbol: s, target_weight: 0.8 / symbols.length }),
          ),
        };
      case 2:
        return {
          toolCalls: [
            call("get_bars", { symbol: a, n: 60 }),
            call("get_indicator", { name: "sma", symbol: a, params: { period: 5 } }),
            call("get_indicator", { name: "obv", symbol: a }),
            call("get_indicator", { name: "bbands", symbol: a, params: { period: 10 } }),
            call("get_account", {}),
            call("list_orders", {}),
          ],
        };
      case 3:
        return {
          toolCalls: [
            call("place_order", {
              symbol: a,
              side: "buy",
              type: "limit",
              limit_price: Math.round(close * 95) / 100,
              quantity: Math.round((equity * 0.1 * 1000) / close) / 1000,
              time_in_force: 3,
            }),
          ],
        };
      case 4:
        return { toolCalls: [call("list_orders", {}), call("get_account", {})] };
      case 5:
        return {
          toolCalls: symbols.map((s) => call("place_order", { symbol: s, target_weight: 0 })),
        };
      default:
        return { content: "Holding." };
    }
  };
}

const NUMBER = /(?<![\w.])-?\d+(?:\.\d+)?(?![\w])/g;
/**
 * What precedes an amount of money or a quantity: such a number (or a percentage) may equal a real
 * price by chance (an unrealised P&L of 127.47 next to SPY's close of 127.47), which recovers
 * nothing.
 */
const NOT_A_PRICE =
  /(?:unrealised|unrealisedPnl\\?"?:|P&L|commission|[Cc]ash|equity|grossExposure\\?"?:|quantity\\?"?:|[Qq]uantity\\?"?:|long|short|filled (?:buy|sell)|closed (?:long|short)|Bar|of|needs|has)\s*$/;

interface ShownRow {
  label: string;
  close: number;
}

/** Every bar row a request shows, by the symbol name shown: the context's tables and get_bars. */
function shownRows(bodies: ReturnType<typeof chatBody>[]): Map<string, Map<string, ShownRow>> {
  const out = new Map<string, Map<string, ShownRow>>();
  const add = (sym: string, label: string, close: number) => {
    const rows = out.get(sym) ?? new Map<string, ShownRow>();
    out.set(sym, rows);
    rows.set(label, { label, close });
  };
  for (const body of bodies) {
    for (const m of body.messages) {
      const text = m.content ?? "";
      if (m.role === "user") {
        for (const block of text.split("# Last ").slice(1)) {
          const sym = /^\d+ bars: (\S+)\n/.exec(block)?.[1];
          if (!sym) continue;
          for (const line of block.split("\n").slice(3)) {
            const cells = line.split(",");
            if (cells.length !== 6) break;
            add(sym, cells[0] as string, Number(cells[4]));
          }
        }
      } else if (m.role === "tool" && text.includes('"bars":[')) {
        // Older results may be shortened in later requests: read the rows that are whole.
        const sym = /"symbol":"([^"]+)"/.exec(text)?.[1] ?? "?";
        for (const b of text.matchAll(/"time":"([^"]+)"[^}]*"close":(-?[\d.]+)/g))
          add(sym, b[1] as string, Number(b[2]));
      }
    }
  }
  return out;
}

interface Recovery {
  exactPrices: string[];
  exactVolumes: string[];
  /** Numbers anywhere in a request within 1% of a real close of the window (a coarse count). */
  anyNumberNearAClose: number;
  /** Numbers written with more than 10 significant digits (raw floats such as 9966.115208291807). */
  longNumbers: string[];
  /** Shown closes within 1% of the real close of the same bar, by the factor undone. */
  alignedCloses: Record<string, number>;
  /** Real calendars (first real day of the span) whose missing weekdays match the shown ones. */
  holidayMatches: string[];
  /** Weekdays missing from the shown calendar. */
  shownGaps: number;
  /** Single-asset runs: the distinct quantities shown (positions, fills, orders) and the unit
   * quantum found in them (every one a whole multiple of it), or null. */
  quantities: number;
  unitQuantum: number | null;
  /** Shown closes within 1% of the real one once the quantum is undone, with a round cash. */
  quantumCloses: number;
  rows: number;
}

/** What precedes a quantity the broker reports (fills, positions, orders as executed); not the
 * model's own asks, which are whatever it wrote. */
const QUANTITY =
  /(?:filled (?:buy|sell)|closed (?:long|short)|ASSET_\w+: (?:long|short)|qty\\?"?:|remainingQuantity\\?"?:|ASSET_\w+\\?"?,\\?"?quantity\\?"?:)\s*$/;

/**
 * The unit quantum: whole real units show as whole multiples of the quantity factor, so the
 * quantities seen share a divisor q with q = shown / real units. Tries every whole count up to
 * 10,000 for the smallest quantity; q is found when every other quantity is a multiple of it.
 */
function unitQuantum(quantities: number[]): number | null {
  const qs = [...new Set(quantities)].filter((q) => q > 0).sort((x, y) => x - y);
  const first = qs[0];
  if (first === undefined || qs.length < 3) return null;
  for (let n = 1; n <= 10_000; n++) {
    const q = first / n;
    if (qs.every((x) => Math.abs(x / q - Math.round(x / q)) < 1e-6 * (x / q) + 1e-9)) return q;
  }
  return null;
}

/**
 * The adversary: from the request bodies and the real data only. `real` maps each symbol as shown
 * to its real series, in `--data` order; `window` is the run's real first and last day.
 */
function recover(
  requests: RecordedRequest[],
  real: RealSeries[],
  window: { from: string; to: string },
  calendars: RealSeries[],
): Recovery {
  const bodies = requests.filter((r) => r.path === "/v1/chat/completions").map(chatBody);
  const texts = bodies.map((b) => JSON.stringify(b));
  const inWindow = (s: RealSeries) =>
    s.dates.flatMap((d, i) => (d >= window.from && d <= window.to ? [i] : []));
  const windowCloses = real.flatMap((s) => inWindow(s).map((i) => s.close[i] as number));
  // Exact prices as the files write them (and as numbers), four digits or more; exact volumes.
  const prices = new Set<string>();
  const volumes = new Set<string>();
  for (const s of real) {
    const first = Math.max(0, (inWindow(s)[0] ?? 0) - 100);
    const last = inWindow(s).at(-1) ?? 0;
    for (let i = first; i <= last; i++) {
      for (let k = 0; k < 4; k++) {
        const text = s.priceText[i * 4 + k] as string;
        for (const t of [text, String(Number(text)), String(Number(Number(text).toFixed(2)))])
          if (t.replace(/[.-]/g, "").replace(/^0+/, "").length >= 4) prices.add(t);
      }
      const v = s.volume[i] as number;
      if (v >= 1000) volumes.add(String(v));
    }
  }
  // With several assets a shown price of one equals a real price of another by chance (ASSET_A
  // shown at 26.62 while YHOO closed at 26.62): there, the bar-by-bar check below is the test.
  const single = real.length === 1;
  const exactPrices: string[] = [];
  const exactVolumes: string[] = [];
  const sorted = [...windowCloses].sort((x, y) => x - y);
  const shownQuantities: number[] = [];
  const near = (x: number) => {
    // Binary search for the closest real close.
    let lo = 0;
    let hi = sorted.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((sorted[mid] as number) < x) lo = mid + 1;
      else hi = mid;
    }
    return [sorted[lo - 1], sorted[lo]].some((c) => c !== undefined && Math.abs(x - c) <= 0.01 * c);
  };
  let anyNumberNearAClose = 0;
  const longNumbers: string[] = [];
  for (const text of texts) {
    for (const m of text.matchAll(NUMBER)) {
      const t = m[0];
      const before = text.slice(Math.max(0, (m.index ?? 0) - 24), m.index);
      // Recall scores and the tools' schema bounds are not data, and are the same in a plain run.
      const long = t.replace(/[-.]/g, "").replace(/^0+/, "").length > 10;
      if (long && !/(?:score|maximum)\\*"?:$/.test(before))
        longNumbers.push(`${t} in …${text.slice((m.index ?? 0) - 60, m.index)}`);
      const percent = text[(m.index ?? 0) + t.length] === "%";
      if (single && prices.has(t) && !percent && !NOT_A_PRICE.test(before))
        exactPrices.push(`${t} in …${text.slice((m.index ?? 0) - 80, (m.index ?? 0) + 20)}`);
      if (volumes.has(t)) exactVolumes.push(t);
      if (single && QUANTITY.test(before) && !percent) shownQuantities.push(Math.abs(Number(t)));
      if (near(Number(t))) anyNumberNearAClose++;
    }
  }

  // The factors a request gives away.
  const cash = Number(
    /Starting cash (\d+(?:\.\d+)?)/.exec(bodies[0]?.messages[0]?.content ?? "")?.[1],
  );
  const factors: Record<string, number> = { none: 1 };
  for (const round of [1_000, 10_000, 100_000, 1_000_000]) factors[`cash/${round}`] = cash / round;
  const rows = shownRows(bodies);
  const names = /Symbols: ([^.]+)\./.exec(bodies[0]?.messages[0]?.content ?? "")?.[1]?.split(", ");
  const alignedCloses: Record<string, number> = {};
  let rowCount = 0;
  const shownDays = new Set<string>();
  for (const [i, name] of (names ?? []).entries()) {
    const series = real[i] as RealSeries;
    const shown = [...(rows.get(name)?.values() ?? [])].sort((x, y) =>
      x.label < y.label ? -1 : 1,
    );
    for (const r of shown) shownDays.add(r.label.slice(0, 10));
    // Shown rows are contiguous bars of the symbol ending at its last bar of the window.
    const lastReal = inWindow(series).at(-1) as number;
    const firstShown = shown[0]?.close ?? Number.NaN;
    const symFactors = { ...factors, "firstShownClose/100": firstShown / 100 };
    for (const [k, row] of shown.entries()) {
      const realClose = series.close[lastReal - (shown.length - 1 - k)] as number;
      rowCount++;
      for (const [what, f] of Object.entries(symFactors)) {
        for (const [dir, candidate] of [
          ["÷", row.close / f],
          ["×", row.close * f],
        ] as const) {
          if (Math.abs(candidate - realClose) <= 0.01 * realClose) {
            const key = `${dir}${what}`;
            alignedCloses[key] = (alignedCloses[key] ?? 0) + 1;
          }
        }
      }
    }
  }

  // The unit quantum, undone with a round real cash: price factor = money factor / quantity factor.
  const quantum = single ? unitQuantum(shownQuantities) : null;
  let quantumCloses = 0;
  if (quantum !== null) {
    const name = names?.[0] ?? "";
    const series = real[0] as RealSeries;
    const shown = [...(rows.get(name)?.values() ?? [])].sort((x, y) =>
      x.label < y.label ? -1 : 1,
    );
    const lastReal = inWindow(series).at(-1) as number;
    for (const round of [1_000, 10_000, 100_000, 1_000_000]) {
      const priceFactor = cash / round / quantum;
      for (const [k, row] of shown.entries()) {
        const realClose = series.close[lastReal - (shown.length - 1 - k)] as number;
        if (Math.abs(row.close / priceFactor - realClose) <= 0.01 * realClose) quantumCloses++;
      }
    }
  }

  // Holiday signature: the weekdays missing between the first and last shown day.
  const days = [...shownDays].sort().map((d) => Date.parse(`${d}T00:00:00Z`) / DAY);
  const weekdays = (from: number, to: number) => {
    const out: number[] = [];
    for (let d = from; d <= to; d++) if ((d + 3) % 7 < 5) out.push(d);
    return out;
  };
  const first = days[0] ?? 0;
  const last = days.at(-1) ?? 0;
  const shownSet = new Set(days);
  const gaps = weekdays(first, last)
    .filter((d) => !shownSet.has(d))
    .map((d) => d - first);
  const holidayMatches: string[] = [];
  if (gaps.length > 0) {
    const realDays = new Set(
      calendars.flatMap((c) => c.dates.map((d) => Date.parse(`${d}T00:00:00Z`) / DAY)),
    );
    const all = [...realDays].sort((x, y) => x - y);
    const lo = all[0] ?? 0;
    const hi = all.at(-1) ?? 0;
    // Any shift keeping weekdays; the span must lie inside the real data.
    for (
      let start = lo - ((((lo - first) % 7) + 7) % 7);
      start + (last - first) <= hi;
      start += 7
    ) {
      const missing = weekdays(start, start + (last - first))
        .filter((d) => !realDays.has(d))
        .map((d) => d - start);
      if (missing.length === gaps.length && missing.every((d, i) => d === gaps[i])) {
        holidayMatches.push(new Date(start * DAY).toISOString().slice(0, 10));
      }
    }
  }
  return {
    exactPrices: [...new Set(exactPrices)],
    exactVolumes: [...new Set(exactVolumes)],
    anyNumberNearAClose,
    longNumbers: [...new Set(longNumbers)],
    alignedCloses,
    holidayMatches,
    shownGaps: gaps.length,
    quantities: new Set(shownQuantities).size,
    unitQuantum: quantum,
    quantumCloses,
    rows: rowCount,
  };
}

interface Case {
  name: string;
  files: string[];
  from: string;
  to: string;
  moments?: string[];
}

const CASES: Case[] = [
  { name: "GOOG 2012 Q1", files: ["GOOG.csv"], from: "2012-01-01", to: "2012-03-31" },
  {
    name: "SPY 2008",
    files: ["SPY_D.csv"],
    from: "2008-01-01",
    to: "2008-12-31",
    moments: ["fill", "close", "week", "month", "run_end"],
  },
  {
    // The README's four-symbol example, on a quarter.
    name: "ORCL, YHOO, NVDA and SPY 2008 Q1",
    files: ["orcl-1995-2014.txt", "yhoo-1996-2014.txt", "nvda-1999-2014.txt", "SPY_D.csv"],
    from: "2008-01-01",
    to: "2008-03-31",
  },
];

const prompt = fs.readFileSync(path.join(ROOT, "strategies", "price-action.md"), "utf8");
const spyCalendar = readReal(path.join(DATA, "SPY_D.csv"));

describe.each(CASES)("--anonymize against a model that memorised $name", async (c) => {
  const server = await startScriptedServer(trader());
  afterAll(() => server.close());
  const files = c.files.map((f) => path.join(DATA, f));
  const run = await runLlm({
    baseURL: server.url,
    data: files,
    runsRoot: path.join(work, c.name.replace(/\W+/g, "-")),
    prompt,
    from: c.from,
    to: c.to,
    agent: {
      cache: false,
      anonymize: true,
      ...(c.moments ? { moments: c.moments as never } : {}),
    },
  });
  const real = files.map(readReal);
  const found = recover(server.requests, real, c, [spyCalendar, ...real]);
  // The counts, for the record of what the masking leaves.
  console.log(
    `leak counts, ${c.name}:`,
    JSON.stringify({
      ...found,
      exactPrices: found.exactPrices.length,
      exactVolumes: found.exactVolumes.length,
      longNumbers: found.longNumbers.length,
    }),
  );

  it("runs, trades and shows the model every bar of the window", () => {
    expect(run.result.status).toBe("completed");
    expect(run.result.trades.closed).toBeGreaterThan(0);
    const windowBars = real[0]?.dates.filter((d) => d >= c.from && d <= c.to).length ?? 0;
    expect(found.rows).toBeGreaterThanOrEqual(windowBars * c.files.length);
  });

  it("no exact real price or volume appears in any request", () => {
    expect(found.exactPrices).toEqual([]);
    expect(found.exactVolumes).toEqual([]);
  });

  it("numbers are written sanely: none with more than 10 significant digits", () => {
    expect(found.longNumbers).toEqual([]);
  });

  it("no shown close is within 1% of the real one, as shown or after undoing any factor", () => {
    expect(found.alignedCloses).toEqual({});
  });

  it("the quantities shown share no unit quantum that would give the price level away", () => {
    if (c.files.length === 1) expect(found.quantities).toBeGreaterThanOrEqual(3);
    expect(found.unitQuantum).toBeNull();
    expect(found.quantumCloses).toBe(0);
  });

  it("the shown calendar has no holiday gaps to match against the real years", () => {
    expect(found.shownGaps).toBe(0);
    expect(found.holidayMatches).toEqual([]);
  });
});
