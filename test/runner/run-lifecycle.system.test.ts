import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cli, cliAsync, DATA, ROOT, readJson, runArgs, runDirs, tempDir } from "../helpers/cli.js";
import { barReached, waitExit, waitFor } from "../helpers/wait.js";

const work = tempDir();
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));
const GOOG = path.join(DATA, "GOOG.csv");

interface Result {
  status: string;
  id: string;
  error: { type: string; message: string } | null;
  period: { bars: number };
  metrics: Record<string, number | null> | null;
}

describe("run lifecycle", () => {
  it("a strategy that throws mid-run leaves status failed, the error, and every file complete (exit 1)", () => {
    const runs = path.join(work, "runs-fail");
    const r = cli(
      [
        "run",
        path.join(ROOT, "test/fixtures/strategies/throws-at-bar.ts"),
        "--data",
        GOOG,
        "--param",
        "failAt=50",
        "--runs-dir",
        runs,
      ],
      work,
    );
    expect(r.status).toBe(1);
    const [dir] = runDirs(runs);
    const result = readJson<Result>(path.join(dir as string, "result.json"));
    expect(result.status).toBe("failed");
    expect(result.error?.message).toBe("deliberate failure at bar 50");
    // Bars 0..49 closed before the failure: equity.csv has exactly those 50 rows.
    const equity = fs
      .readFileSync(path.join(dir as string, "equity.csv"), "utf8")
      .trim()
      .split("\n");
    expect(equity.length).toBe(1 + 50);
    // The buy placed at bar 5 filled at bar 6 and is in orders.jsonl.
    const orders = fs
      .readFileSync(path.join(dir as string, "orders.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(orders.filter((o) => o.event === "fill")).toHaveLength(1);
    expect(result.metrics?.bars).toBe(50);
    // No temp files are left behind by the atomic writes.
    expect(fs.readdirSync(dir as string).filter((f) => f.endsWith(".tmp"))).toEqual([]);
  });

  it("twenty runs started at once get twenty distinct, complete run directories", async () => {
    const runs = path.join(work, "runs-concurrent");
    const children = Array.from({ length: 20 }, () =>
      cliAsync(
        runArgs("strategies/buy-and-hold.ts", path.join(DATA, "2006-day-001.txt"), runs, "--quiet"),
        work,
      ),
    );
    const codes = await Promise.all(children.map(waitExit));
    expect(codes).toEqual(Array(20).fill(0));
    const dirs = runDirs(runs);
    expect(dirs).toHaveLength(20);
    const ids = dirs.map((d) => readJson<Result>(path.join(d, "result.json")).id);
    expect(new Set(ids).size).toBe(20);
    for (const d of dirs) {
      const result = readJson<Result>(path.join(d, "result.json"));
      expect(result.status).toBe("completed");
      expect(result.id).toBe(path.basename(d));
    }
    // Ids sort by creation time.
    expect([...ids].sort()).toEqual(ids);
  }, 120_000);

  it("Ctrl-C (SIGINT) stops the run cleanly with status interrupted and a complete result", async () => {
    const runs = path.join(work, "runs-sigint");
    const mark = path.join(work, "sigint-mark");
    const child = cliAsync(
      [
        "run",
        path.join(ROOT, "test/fixtures/strategies/slow.ts"),
        "--data",
        GOOG,
        "--param",
        "ms=5",
        "--param",
        `mark=${mark}`,
        "--runs-dir",
        runs,
      ],
      work,
    );
    await waitFor(() => runDirs(runs).length === 1, 20_000);
    await barReached(mark, 1);
    child.kill("SIGINT");
    const code = await waitExit(child);
    expect(code).toBe(1);
    const [dir] = runDirs(runs);
    const result = readJson<Result>(path.join(dir as string, "result.json"));
    expect(result.status).toBe("interrupted");
    expect(result.metrics?.bars).toBeGreaterThan(0);
    expect(result.metrics?.bars).toBeLessThan(2148);
    const equity = fs
      .readFileSync(path.join(dir as string, "equity.csv"), "utf8")
      .trim()
      .split("\n");
    expect(equity.length - 1).toBe(result.metrics?.bars);
  }, 60_000);

  it("a killed process (SIGKILL) leaves valid files: result.json says running, nothing half-written", async () => {
    const runs = path.join(work, "runs-sigkill");
    const child = cliAsync(runArgs("test/fixtures/strategies/slow.ts", GOOG, runs), work);
    await waitFor(
      () =>
        runDirs(runs).length === 1 &&
        fs.existsSync(path.join(runDirs(runs)[0] as string, "playbook.md")),
      20_000,
    );
    child.kill("SIGKILL");
    await waitExit(child);
    const [dir] = runDirs(runs);
    const result = readJson<Result>(path.join(dir as string, "result.json"));
    expect(result.status).toBe("running");
    expect(readJson(path.join(dir as string, "config.json"))).toHaveProperty("strategyPath");
  }, 60_000);

  it("a multi-asset run over ORCL, YHOO, NVDA and SPY aligns the symbols by date", () => {
    const runs = path.join(work, "runs-multi");
    const files = [
      "orcl-1995-2014.txt",
      "yhoo-1996-2014.txt",
      "nvda-1999-2014.txt",
      "SPY_D.csv",
    ].map((f) => path.join(DATA, f));
    const r = cli(runArgs("strategies/buy-and-hold.ts", files, runs, "--json"), work);
    expect(r.status, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout) as Result & { data: { symbol: string; bars: number }[] };
    expect(result.data.map((d) => [d.symbol, d.bars])).toEqual([
      ["ORCL", 5036],
      ["YHOO", 4713],
      ["NVDA", 4012],
      ["SPY", 5241],
    ]);
    // The master timeline is the union of the four files' dates, computed here independently.
    const dates = new Set<string>();
    for (const f of files) {
      const lines = fs.readFileSync(f, "utf8").trim().split("\n").slice(1);
      for (const l of lines) {
        const cells = l.split(",");
        dates.add((f.endsWith("SPY_D.csv") ? cells[1] : cells[0]) as string);
      }
    }
    expect(result.period.bars).toBe(dates.size);
    // Each symbol was bought at its own first bar: four entry fills.
    const dir = runDirs(runs)[0] as string;
    const fills = fs
      .readFileSync(path.join(dir, "orders.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l))
      .filter((o) => o.event === "fill");
    const entries = fills.filter((f) => f.basis !== "data_ended");
    expect(entries.map((f) => f.symbol).sort()).toEqual(["NVDA", "ORCL", "SPY", "YHOO"]);
    // ORCL, YHOO and NVDA end on 2014-12-31, before SPY: they are sold at that close.
    const ended = fills.filter((f) => f.basis === "data_ended");
    expect(ended.map((f) => [f.symbol, f.time])).toEqual([
      ["ORCL", "2014-12-31"],
      ["YHOO", "2014-12-31"],
      ["NVDA", "2014-12-31"],
    ]);
    const nvda = entries.find((f) => f.symbol === "NVDA");
    expect(nvda.time).toBe("1999-01-25"); // NVDA's first bar is 1999-01-22; the order fills at its next open
  });

  it("the RSI strategy keeps a journal, position notes and monthly reviews in the run directory", () => {
    const runs = path.join(work, "runs-rsi");
    const r = cli(
      runArgs("strategies/rsi-reversion.ts", path.join(DATA, "SPY_D.csv"), runs, "--json"),
      work,
    );
    expect(r.status, r.stderr).toBe(0);
    const dir = runDirs(runs)[0] as string;
    const journal = fs.readdirSync(path.join(dir, "journal"));
    expect(journal.length).toBeGreaterThan(0);
    const first = fs.readFileSync(path.join(dir, "journal", journal[0] as string), "utf8");
    expect(first).toMatch(/^# Journal \d{4}-\d{2}-\d{2}/);
    expect(first).toMatch(/\[\d{2}:\d{2}\] Signal: RSI/);
    expect(fs.existsSync(path.join(dir, "notes", "position_SPY.md"))).toBe(true);
    const reviews = fs.readdirSync(path.join(dir, "reviews"));
    expect(reviews.filter((f) => f.startsWith("month_")).length).toBeGreaterThan(100);
    // Every overwrite of the position note kept the previous version.
    expect(fs.readdirSync(path.join(dir, "backups", "notes")).length).toBeGreaterThan(0);
    const decisions = fs
      .readFileSync(path.join(dir, "decisions.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(
      decisions.some(
        (d) => d.kind === "fill" && d.memory.some((m: { tool: string }) => m.tool === "note"),
      ),
    ).toBe(true);
  });
});
