import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { brokerConfig } from "../../src/engine/broker-config.js";
import { backtest } from "../../src/runner/backtest.js";
import { runBacktest } from "../../src/runner/run-backtest.js";
import { DEFAULT_RECALL_OPTIONS } from "../../src/runner/run-config.js";
import type { Strategy } from "../../src/strategy/types.js";
import { DATA, tempDir } from "../helpers/cli.js";

const work = tempDir();
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));
const goog = path.join(DATA, "GOOG.csv");
const sma = path.resolve("strategies/sma-crossover.ts");

describe("the library API", () => {
  it("backtest() runs in memory, writes nothing, and gives the numbers `agenticbt run` writes", async () => {
    const before = fs.readdirSync(work);
    const mem = await backtest({
      strategy: sma,
      data: [goog],
      broker: { commissionRate: 0.001 },
      params: { fast: 10, slow: 30 },
    });
    expect(fs.readdirSync(work)).toEqual(before);
    const runsRoot = path.join(work, "runs");
    const disk = await runBacktest({
      strategyPath: sma,
      data: [{ file: goog }],
      broker: brokerConfig({ commissionRate: 0.001 }),
      params: { fast: "10", slow: "30" },
      from: null,
      to: null,
      name: null,
      runsRoot,
      strict: false,
      tz: null,
      agent: null,
      presets: [],
      memoryFrom: null,
      recall: DEFAULT_RECALL_OPTIONS,
    });
    expect(mem.status).toBe("completed");
    expect(mem.metrics).toEqual(disk.metrics);
    expect(mem.benchmark.metrics).toEqual(disk.benchmark.metrics);
    expect(mem.orders).toEqual(disk.orders);
    expect(mem.period).toEqual(disk.period);
    // The curve is equity.csv's equity column, the trade list trades.csv's rows.
    const rows = fs
      .readFileSync(path.join(runsRoot, disk.id, "equity.csv"), "utf8")
      .trim()
      .split("\n")
      .slice(1);
    expect(mem.curve.equity.length).toBe(rows.length);
    expect(Number(rows[rows.length - 1]?.split(",")[1])).toBe(mem.curve.equity[rows.length - 1]);
    expect(mem.tradeList.length).toBe(disk.trades.closed + disk.trades.openAtEnd);
    // Each trade's times also as trades.csv writes them, beside the ms.
    const csvTrades = fs
      .readFileSync(path.join(runsRoot, disk.id, "trades.csv"), "utf8")
      .trim()
      .split("\n")
      .slice(1)
      .map((line) => line.split(","));
    expect(mem.tradeList.map((t) => [t.entryTimeLabel, t.exitTimeLabel])).toEqual(
      csvTrades.map((c) => [c[4], c[6]]),
    );
    expect(mem.tradeList[0]?.entryTime).toBe(Date.parse(`${mem.tradeList[0]?.entryTimeLabel}Z`));
    expect(mem.memoryDir).toBeNull();
  });

  it("a strategy that writes memory gets a temporary one, removed after the run, or kept in `memoryDir`", async () => {
    const journal: string[] = [];
    const recalled: number[] = [];
    const writer: Strategy = {
      name: "memory-writer",
      onBar(ctx) {
        if (ctx.position() === 0) ctx.buy({ fraction: 1 });
        else ctx.closePosition();
      },
      onFill(ctx) {
        ctx.note("last_fill", "filled at the open");
        journal.push(ctx.readNote("last_fill") ?? "missing");
      },
      onTradeClosed(ctx, trade) {
        ctx.log(`closed a trade returning ${trade.returnPct}`);
        recalled.push(ctx.recall("closed trade returning").length);
      },
    };
    // The temporary directory is made under os.tmpdir(), which follows $TMPDIR.
    const tmp = path.join(work, "tmp");
    fs.mkdirSync(tmp);
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = tmp;
    let r: Awaited<ReturnType<typeof backtest>>;
    try {
      r = await backtest({ strategy: writer, data: [goog], to: "2004-09-30" });
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
    }
    expect(r.status).toBe("completed");
    expect(r.trades.closed).toBeGreaterThan(2);
    expect(journal.every((n) => n.includes("filled at the open"))).toBe(true);
    expect(recalled.at(-1)).toBeGreaterThan(0);
    expect(r.memoryDir).toBeNull();
    expect(fs.readdirSync(tmp)).toEqual([]);

    const kept = path.join(work, "kept-memory");
    const k = await backtest({ strategy: writer, data: [goog], to: "2004-09-30", memoryDir: kept });
    expect(k.memoryDir).toBe(kept);
    expect(fs.readFileSync(path.join(kept, "notes", "last_fill.md"), "utf8")).toContain(
      "filled at the open",
    );
    const days = fs.readdirSync(path.join(kept, "journal"));
    expect(days.length).toBeGreaterThan(0);
    expect(fs.readFileSync(path.join(kept, "playbook.md"), "utf8")).toContain("memory-writer");
    await expect(
      backtest({ strategy: writer, data: [goog], memoryDir: " " as never }),
    ).rejects.toThrow('memoryDir " ": it is empty: pass a directory.');
    await expect(
      backtest({ strategy: writer, data: [goog], memoryDri: kept } as never),
    ).rejects.toThrow('Unknown backtest() option "memoryDri": did you mean "memoryDir"?');
  });

  it("ctx.memory.use, which backtest() has no memory system for, says what to run instead", async () => {
    const user: Strategy = {
      name: "memory-user",
      onBar(ctx) {
        ctx.memory.use("memory_log", { content: "x" });
      },
    };
    const r = await backtest({ strategy: user, data: [goog], to: "2004-12-31" });
    expect(r.status).toBe("failed");
    expect(r.error?.message).toContain("run the strategy with runBacktest() or `agenticbt run`");
  });

  it("an unknown option is an error naming the one meant", async () => {
    await expect(
      backtest({ strategy: sma, data: [goog], broker: { commission: 0.001 } as never }),
    ).rejects.toThrow('Unknown broker option "commission": did you mean "commissionRate"?');
    // Misspelled, the other library's name still leads to ours.
    await expect(
      backtest({ strategy: sma, data: [goog], broker: { comission: 0.001 } as never }),
    ).rejects.toThrow('Unknown broker option "comission": did you mean "commissionRate"?');
  });

  it("`fees` charges a commission function on every fill, in place of the broker's rate", async () => {
    const fee = (units: number, price: number) => Math.max(1, units * price * 0.0005);
    const seen: number[] = [];
    const withFees = await backtest({
      strategy: sma,
      data: [goog],
      fees: fee,
      onEvent: (e) => {
        if (e.type === "fill") seen.push(e.fill.commission - fee(e.fill.qty, e.fill.price));
      },
    });
    const free = await backtest({ strategy: sma, data: [goog] });
    expect(withFees.status).toBe("completed");
    expect(seen.length).toBeGreaterThan(2);
    expect(seen.every((d) => d === 0)).toBe(true);
    expect(withFees.metrics?.commissions).toBeGreaterThan(0);
    expect(free.metrics?.commissions).toBe(0);
    await expect(
      backtest({ strategy: sma, data: [goog], fees: fee, broker: { commissionRate: 0.001 } }),
    ).rejects.toThrow("Give either a `fees` function or broker.commissionRate");
    await expect(backtest({ strategy: sma, data: [goog], fees: 0.001 as never })).rejects.toThrow(
      "The `fees` option must be a function (units, price) => fee (got number).",
    );
  });

  it("a fee function answering NaN fails the run, naming the order and the value", async () => {
    const r = await backtest({ strategy: sma, data: [goog], fees: () => Number.NaN });
    expect(r.status).toBe("failed");
    expect(r.error?.type).toBe("FeeModelError");
    expect(r.error?.message).toMatch(
      /^the fee function returned NaN for order 1 \(\d+ units at [\d.]+\)/,
    );
  });

  it("a strategy object is checked: a module's wrapped default export is unwrapped, anything else is refused saying what is missing", async () => {
    const plain = {
      name: "hold",
      onBar(ctx: { position(): number; buy(o: object): unknown }) {
        if (ctx.position() === 0) ctx.buy({ fraction: 1 });
      },
    };
    // What a CommonJS project's `import strategy from "./s.ts"` gives under tsx: { default: … }.
    const wrapped = await backtest({ strategy: { default: plain } as never, data: [goog] });
    expect(wrapped.status).toBe("completed");
    expect(wrapped.metrics?.trades).toBe(1);
    await expect(backtest({ strategy: { name: "x" } as never, data: [goog] })).rejects.toThrow(
      "backtest(): the `strategy` option is not a strategy (got an object with keys name; it lacks an onBar function)",
    );
    await expect(backtest({ strategy: 42 as never, data: [goog] })).rejects.toThrow("(got number)");
  });

  it('"agenticbt" resolves to the package entry (self-reference through package.json exports)', async () => {
    const lib = await import("agenticbt");
    expect(typeof lib.backtest).toBe("function");
    expect(typeof lib.runBacktest).toBe("function");
    expect(typeof lib.loadCsv).toBe("function");
  });
});
