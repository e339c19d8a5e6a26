import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listOutputSchema } from "../../../src/rundir/schemas.js";
import { BIN, ROOT, tempDir } from "../../helpers/cli.js";
import { runStrategy } from "./report-cli.js";
import { writeRun } from "./run-fixtures.js";

const work = tempDir();
const runs = path.join(work, "runs");
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

/** `agenticbt list …` with stdout a pipe, laid out for COLUMNS (unset: the 100 default). */
function list(args: string[], columns?: string) {
  const env = { ...process.env };
  delete env.COLUMNS;
  if (columns !== undefined) env.COLUMNS = columns;
  return spawnSync(process.execPath, [BIN, "list", "--runs-dir", runs, ...args], {
    cwd: work,
    env,
    encoding: "utf8",
  });
}

const json = (args: string[]) => {
  const r = list([...args, "--json"]);
  expect(r.status, r.stderr).toBe(0);
  return listOutputSchema.parse(JSON.parse(r.stdout));
};

const LONG = "momentum-breakout-with-volatility-filter";
// Ids differ only after the 15-character time prefix in the first two: shown prefixes must
// stay unique among all runs even when a filter shows only one of them.
const A = "20260101-100000-001-sma-crossover-aaa0";
const B = "20260101-100000-002-sma-crossover-bbb0";
const C = "20260102-090000-000-rsi-reversion-ccc0";
const D = `20260103-080000-000-${LONG}-ddd0`;
const E = "20260104-070000-000-trader-eee0";
const F = "20260105-060000-000-evil-fff0";

beforeAll(() => {
  writeRun(runs, {
    id: A,
    returnPct: 12.5,
    trades: 40,
    params: { fast: 5, slow: 20, longShort: false },
    paramOverrides: { fast: "5", slow: "20" },
    broker: { commissionRate: 0.001, allowShort: true, initialCash: 10000 },
  });
  writeRun(runs, { id: B, returnPct: -3.25, trades: 12, status: "failed" });
  writeRun(runs, {
    id: C,
    strategy: "rsi-reversion",
    symbols: ["SPY", "QQQ"],
    returnPct: 30,
    trades: 7,
    status: "interrupted",
  });
  writeRun(runs, { id: D, strategy: LONG, returnPct: 8, trades: 3, symbols: ["ORCL"] });
  writeRun(runs, {
    id: E,
    strategy: "trader",
    returnPct: null,
    model: "gpt-4o-mini",
    costUsd: 0.0123,
    status: "budget_exhausted",
  });
  writeRun(runs, { id: F, name: "evil \u001b[2J name", returnPct: 1, trades: 1 });
});

describe("list fits the terminal's width", () => {
  it.each(["80", "120"])("COLUMNS=%s: every line fits, ids are whole unique prefixes", (cols) => {
    const r = list([], cols);
    expect(r.status, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split("\n");
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(Number(cols));
    // A and B share their first 15 characters: each is shown to its 19th, unique among all.
    expect(lines.some((l) => l.startsWith("20260101-100000-001  "))).toBe(true);
    expect(lines.some((l) => l.startsWith("20260101-100000-002  "))).toBe(true);
    // Names are whole (the 100-column layout cut them to "sma-cross…"); only the 40-character
    // one is cut, to the room left.
    expect(r.stdout).toMatch(/ sma-crossover {2}/);
    expect(r.stdout).toMatch(/ rsi-reversion {2}/);
    expect(r.stdout).toMatch(/ momentum-breakout-\S*… /);
  });

  const header = (cols: string) => (list([], cols).stdout.split("\n")[0] ?? "").split(/\s{2,}/);
  const row = (out: string, id: string) =>
    out.split("\n").find((l) => /^\d{8}-/.test(l) && id.startsWith(l.split(" ")[0] ?? "-")) ?? "";

  it("COLUMNS=200 shows symbols, key parameters, model, status, return, B&H, trades and cost", () => {
    const r = list([], "200");
    expect(header("200")).toEqual([
      "ID",
      "NAME",
      "SYMBOLS",
      "PARAMS",
      "MODEL",
      "STATUS",
      "RETURN %",
      "B&H %",
      "TRADES",
      "COST",
    ]);
    expect(row(r.stdout, A)).toMatch(
      /sma-crossover\s+GOOG\s+fast=5 slow=20 comm=0\.001 short\s+-\s+completed\s+12\.50\s+5\.00\s+40\s+-$/,
    );
    expect(row(r.stdout, C)).toMatch(
      /rsi-reversion\s+SPY,QQQ\s+-\s+interrupted\s+30\.00\s+5\.00\s+7\s+-$/,
    );
    expect(row(r.stdout, E)).toMatch(/gpt-4o-mini\s+budget_exhausted\s+-\s+-\s+-\s+\$0\.0123$/);
  });

  it("narrower, B&H goes first, then the model and the parameters, then the symbols", () => {
    const common = ["STATUS", "RETURN %", "TRADES", "COST"];
    expect(header("120")).toEqual(["ID", "NAME", "SYMBOLS", "PARAMS", "MODEL", ...common]);
    expect(row(list([], "120").stdout, A)).toContain(" fast=5 slow… ");
    expect(header("100")).toEqual(["ID", "NAME", "SYMBOLS", ...common]);
    expect(header("80")).toEqual(["ID", "NAME", ...common]);
    expect(header("40")).toEqual(["ID", "NAME", "RETURN %"]);
  });

  it("a column of dashes is left out: no model or cost column for code runs alone", () => {
    const r = list(["--strategy", "sma"], "200");
    expect(r.stdout.split("\n")[0]?.split(/\s{2,}/)).toEqual([
      "ID",
      "NAME",
      "SYMBOLS",
      "PARAMS",
      "STATUS",
      "RETURN %",
      "B&H %",
      "TRADES",
    ]);
  });

  it("without a terminal and without COLUMNS (or with a bad one) it lays out for 100 columns", () => {
    for (const cols of [undefined, "abc", "0", "-5", "99999"]) {
      const r = list([], cols);
      expect(r.status, r.stderr).toBe(0);
      const widest = Math.max(...r.stdout.split("\n").map((l) => l.length));
      expect(widest, String(cols)).toBeLessThanOrEqual(100);
      expect(widest, String(cols)).toBeGreaterThan(80);
    }
  });

  it("shows a stored name's control characters, never sends them", () => {
    const r = list([], "120");
    expect(r.stdout).toContain("evil ␛[2J name");
    expect(r.stdout).not.toContain("\u001b");
  });
});

describe("list keeps each run on one row", () => {
  it("a run name with a line break or a tab: shown as ␊ and ␉, the row not split", () => {
    const own = path.join(work, "one-line-runs");
    fs.mkdirSync(own);
    const dir = runStrategy(
      ["strategies/buy-and-hold.ts", "--data", "data/GOOG.csv", "--name", "two\nlines\tand a tab"],
      ROOT,
      own,
    );
    const r = spawnSync(process.execPath, [BIN, "list", "--runs-dir", own], {
      cwd: work,
      env: { ...process.env, COLUMNS: "120" },
      encoding: "utf8",
    });
    expect(r.status, r.stderr).toBe(0);
    const rows = r.stdout.split("\n").filter((l) => l.includes("completed"));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toContain("two\u240alines\u2409and a tab");
    expect(r.stdout).not.toContain("\t");
    // --json keeps the name as stored.
    const j = spawnSync(process.execPath, [BIN, "list", "--runs-dir", own, "--json"], {
      cwd: work,
      encoding: "utf8",
    });
    expect(listOutputSchema.parse(JSON.parse(j.stdout)).runs[0]?.name).toBe(
      "two\nlines\tand a tab",
    );
    expect(path.basename(dir)).not.toMatch(/[\n\t]/);
  });
});

describe("list --status, --strategy, --sort and --limit", () => {
  it("sorts newest first by default (text and --json)", () => {
    expect(json([]).runs.map((r) => r.id)).toEqual([F, E, D, C, B, A]);
    const ids = list([], "120")
      .stdout.split("\n")
      .slice(1, 7)
      .map((l) => l.split(" ")[0]);
    expect(ids.map((s) => [A, B, C, D, E, F].find((id) => id.startsWith(s ?? "-")))).toEqual([
      F,
      E,
      D,
      C,
      B,
      A,
    ]);
  });

  it("--sort return puts the highest first and runs without a return last", () => {
    expect(json(["--sort", "return"]).runs.map((r) => r.id)).toEqual([C, A, D, F, B, E]);
  });

  it("--sort trades, cost and name", () => {
    expect(json(["--sort", "trades"]).runs.map((r) => r.id)).toEqual([A, B, C, D, F, E]);
    expect(json(["--sort", "cost"]).runs[0]?.id).toBe(E);
    expect(json(["--sort", "name"]).runs.map((r) => r.name)).toEqual([
      "evil \u001b[2J name",
      LONG,
      "rsi-reversion",
      "sma-crossover",
      "sma-crossover",
      "trader",
    ]);
  });

  it("--status keeps one status; an unknown one is bad usage naming the allowed values", () => {
    expect(json(["--status", "failed"]).runs.map((r) => r.id)).toEqual([B]);
    expect(json(["--status", "running"]).runs).toEqual([]);
    const bad = list(["--status", "done"]);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain(
      "Allowed choices are completed, failed, interrupted, budget_exhausted, running",
    );
  });

  it("--strategy matches part of the strategy or run name, in any case", () => {
    expect(json(["--strategy", "SMA-"]).runs.map((r) => r.id)).toEqual([F, B, A]);
    expect(json(["--strategy", "volatility"]).runs.map((r) => r.id)).toEqual([D]);
    expect(json(["--strategy", "evil"]).runs.map((r) => r.id)).toEqual([F]);
  });

  it("--limit keeps the first n after filtering and sorting; it must be a positive integer", () => {
    expect(json(["--sort", "return", "--limit", "2"]).runs.map((r) => r.id)).toEqual([C, A]);
    for (const bad of ["0", "-1", "1.5", "abc", ""]) {
      const r = list(["--limit", bad]);
      expect(r.status, bad).toBe(2);
      expect(r.stderr, bad).toContain("--limit");
    }
  });

  it("says how many of how many runs it shows, and when none matches", () => {
    const r = list(["--status", "failed"], "120");
    expect(r.stdout).toContain("1 of 6 run(s) in");
    // Alone, B would show as 20260101-100000; with A in the root that prefix is ambiguous.
    expect(r.stdout.split("\n")[1]?.startsWith("20260101-100000-002 ")).toBe(true);
    const none = list(["--status", "running"]);
    expect(none.status).toBe(0);
    expect(none.stdout).toContain("No run matches (6 run(s) in");
  });
});

describe("list --json", () => {
  it("adds name, symbols and keyParams to each row", () => {
    const a = json([]).runs.find((r) => r.id === A);
    expect(a).toMatchObject({
      name: "sma-crossover",
      symbols: ["GOOG"],
      keyParams: "fast=5 slow=20 comm=0.001 short",
    });
    expect(json([]).runs.find((r) => r.id === C)?.symbols).toEqual(["SPY", "QQQ"]);
  });

  it("a real run records its --param overrides: the key parameters leave the defaults out", () => {
    const real = path.join(work, "real");
    runStrategy(
      [
        "strategies/sma-crossover.ts",
        "--data",
        "data/GOOG.csv",
        "-p",
        "slow=40",
        "--commission",
        "0.002",
        "--fractional",
      ],
      ROOT,
      real,
    );
    const r = spawnSync(process.execPath, [BIN, "list", "--runs-dir", real, "--json"], {
      encoding: "utf8",
    });
    const out = listOutputSchema.parse(JSON.parse(r.stdout));
    expect(out.runs[0]?.keyParams).toBe("slow=40 comm=0.002 frac");
  });
});
