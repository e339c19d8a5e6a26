import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type EquityColumns, EquityCsvRows, writeEquityCsv } from "../../src/rundir/equity-csv.js";
import {
  EQUITY_WORKER_MIN_ROWS,
  EquityStream,
  equityInWorker,
} from "../../src/rundir/equity-stream.js";
import { computeRunMetrics } from "../../src/rundir/run-metrics.js";
import type { RunResult } from "../../src/rundir/run-result.js";
import type { ReportedTrade } from "../../src/rundir/write-outputs.js";
import { backtest } from "../../src/runner/backtest.js";
import { AtomicWriteError } from "../../src/util/atomic-write.js";
import { SymlinkError } from "../../src/util/no-follow.js";
import {
  cli,
  cliAsync,
  cliRun,
  ROOT,
  readJson,
  runArgs,
  runDirs,
  tempDir,
} from "../helpers/cli.js";
import { enospcEnv, mountTmpfs } from "../helpers/full-disk.js";
import { waitExit, waitFor } from "../helpers/wait.js";

const work = tempDir();
const mounts: { unmount(): void }[] = [];
afterAll(() => {
  for (const m of mounts) m.unmount();
  fs.rmSync(work, { recursive: true, force: true });
});

const MINUTE = 60_000;
const T0 = Date.UTC(2020, 0, 1);

/** `rows` minute bars: equity 100, 110, 99, 100, ... (a 10 % drawdown every third bar), cash
 * 50 then 40 from the second bar, benchmark 100 + i / 4. */
function columns(rows: number): EquityColumns {
  // Shared memory, as a run's columns are (a plain one is copied into shared memory once).
  const shared = () => new Float64Array(new SharedArrayBuffer(8 * rows));
  const c: EquityColumns = {
    times: shared(),
    equity: shared(),
    cash: shared(),
    benchmark: new Float64Array(rows),
    intraday: true,
  };
  for (let i = 0; i < rows; i++) {
    c.times[i] = T0 + i * MINUTE;
    c.equity[i] = [100, 110, 99][i % 3] as number;
    c.cash[i] = i === 0 ? 50 : 40;
    c.benchmark[i] = 100 + i / 4;
  }
  return c;
}

/** 120,000 minute bars of a gentle random walk (equity.csv of about 11 MB), written once. */
function minuteCsv(): string {
  const csv = path.join(work, "MIN.csv");
  if (fs.existsSync(csv)) return csv;
  const lines = ["Date,Open,High,Low,Close,Volume"];
  let price = 100;
  for (let i = 0; i < 120_000; i++) {
    const t = new Date(T0 + i * MINUTE).toISOString().slice(0, 19);
    const next = Math.max(1, price + ((i * 7919) % 13) / 100 - 0.06);
    const hi = Math.max(price, next) + 0.01;
    const lo = Math.min(price, next) - 0.01;
    lines.push(
      `${t},${price.toFixed(2)},${hi.toFixed(2)},${lo.toFixed(2)},${next.toFixed(2)},1000`,
    );
    price = Number(next.toFixed(2));
  }
  fs.writeFileSync(csv, `${lines.join("\n")}\n`);
  return csv;
}

const ROWS = EQUITY_WORKER_MIN_ROWS;

/** The stream's temp file in `dir` (a hidden `.equity.csv.<pid>-<thread>.<n>.tmp`), if any. */
function tempFiles(dir: string): string[] {
  return fs.readdirSync(dir).filter((f) => f.endsWith(".tmp"));
}

function fresh(name: string): string {
  const dir = path.join(work, name);
  fs.mkdirSync(dir);
  return dir;
}

describe("equity.csv written by a worker thread during the run (100,000 bars and more)", () => {
  it("only a run of 100,000 rows or more, on a machine with a second core, gets a worker", () => {
    expect(equityInWorker(99_999)).toBe(false);
    expect(equityInWorker(EQUITY_WORKER_MIN_ROWS)).toBe(os.availableParallelism() > 1);
    expect(EQUITY_WORKER_MIN_ROWS).toBe(100_000);
    expect(EquityStream.start(path.join(work, "short.csv"), columns(99_999))).toBeNull();
  });

  it("writes the rows already final before the run ends, then the same bytes as the inline writer", async () => {
    const cols = columns(ROWS);
    const dir = fresh("stream");
    const stream = EquityStream.start(path.join(dir, "equity.csv"), cols) as EquityStream;
    expect(stream).not.toBeNull();
    // 60,000 rows (about 2.3 MB of text) are final: the worker writes them while the "run" goes on.
    stream.advance(60_000);
    await waitFor(() => {
      const [t] = tempFiles(dir);
      return t !== undefined && fs.statSync(path.join(dir, t)).size > 1_000_000;
    }, 20_000);
    expect(fs.existsSync(path.join(dir, "equity.csv"))).toBe(false);
    expect(await stream.end(ROWS).done).toBe("worker");
    const text = fs.readFileSync(path.join(dir, "equity.csv"), "utf8");
    const inline = path.join(fresh("inline"), "equity.csv");
    writeEquityCsv(inline, cols);
    expect(text).toBe(fs.readFileSync(inline, "utf8"));
    const lines = text.split("\n");
    expect(lines.slice(0, 5)).toEqual([
      "time,equity,cash,drawdown_pct,benchmark",
      "2020-01-01 00:00:00,100,50,0,100",
      "2020-01-01 00:01:00,110,40,0,100.25",
      // 99 / 110 − 1 = −10 %.
      `2020-01-01 00:02:00,99,40,${(99 / 110 - 1) * 100},100.5`,
      `2020-01-01 00:03:00,100,40,${(100 / 110 - 1) * 100},100.75`,
    ]);
    // Row 99,999 (99,999 minutes after the start: 69 days, 10 h 39 min) is a third-bar 100.
    expect(lines.at(-2)).toBe(
      `2020-03-10 10:39:00,100,40,${(100 / 110 - 1) * 100},${100 + 99_999 / 4}`,
    );
    expect(lines).toHaveLength(ROWS + 2);
    expect(fs.readdirSync(dir)).toEqual(["equity.csv"]);
  });

  it("then computes the run's metrics and the report's lines from the same rows: equal to this thread's", async () => {
    const cols = columns(ROWS);
    const dir = fresh("summary");
    const stream = EquityStream.start(path.join(dir, "equity.csv"), cols) as EquityStream;
    const rows = 80_000;
    // Two trades, one of them still open at the end (valued at the last close).
    const trade = (id: number, pnl: number, openAtEnd: boolean): ReportedTrade => ({
      id,
      symbol: "X",
      side: "long",
      qty: 1,
      entryIndex: 10 * id,
      entryTime: T0 + 10 * id * MINUTE,
      entryPrice: 100,
      exitIndex: 10 * id + 5,
      exitTime: T0 + (10 * id + 5) * MINUTE,
      exitPrice: 100 + pnl,
      pnl,
      returnPct: pnl / 100,
      commission: 0.5,
      slippage: 0,
      entryOrderId: id,
      exitOrderId: id + 100,
      openAtEnd,
    });
    const job = {
      startIndex: 0,
      lastIndex: rows - 1,
      trades: [trade(1, 4, false), trade(2, -2, true)],
      exposedBars: 1234,
      commissions: 1,
      slippage: 0,
      initialCash: 100,
    };
    const write = stream.end(rows, job);
    const summary = await write.summary;
    expect(await write.done).toBe("worker");
    const cut = (c: Float64Array) => c.subarray(0, rows);
    const curve = {
      times: cut(cols.times),
      equity: cut(cols.equity),
      benchmark: cut(cols.benchmark),
    };
    expect(summary).not.toBeNull();
    expect(summary?.metrics).toEqual(computeRunMetrics({ ...job, ...curve }, 100));
    // By hand: equity 100, 110, 99 over and over peaks at 110, exposure 1,234 / 80,000 bars.
    expect(summary?.metrics?.metrics.metrics.equityPeak).toBe(110);
    expect(summary?.metrics?.metrics.metrics.exposurePct).toBe((1234 / rows) * 100);
    expect(summary?.metrics?.metrics.metrics.trades).toBe(2);
  });

  it("no job, no summary: the runner computes it itself", async () => {
    const dir = fresh("no-summary");
    const stream = EquityStream.start(path.join(dir, "equity.csv"), columns(ROWS)) as EquityStream;
    const write = stream.end(ROWS);
    expect(await write.summary).toBeNull();
    expect(await write.done).toBe("worker");
  });

  it("a run that ends early: the file has exactly the rows of the bars that closed", async () => {
    const dir = fresh("early");
    const stream = EquityStream.start(path.join(dir, "equity.csv"), columns(ROWS)) as EquityStream;
    stream.advance(30_000);
    expect(await stream.end(40_001).done).toBe("worker");
    const lines = fs.readFileSync(path.join(dir, "equity.csv"), "utf8").split("\n");
    expect(lines).toHaveLength(40_001 + 2);
    // Row 40,000: 27 days, 18 h 40 min after the start; 40,000 % 3 = 1, so equity 110.
    expect(lines.at(-2)).toBe(`2020-01-28 18:40:00,110,40,0,${100 + 40_000 / 4}`);
  });

  it("finishSync blocks until the worker is through: the file is whole at once, no temp file left", async () => {
    const dir = fresh("sync");
    const file = path.join(dir, "equity.csv");
    const stream = EquityStream.start(file, columns(ROWS)) as EquityStream;
    const write = stream.end(ROWS);
    // What a second Ctrl-C does before the process exits: no await, the thread just blocks.
    write.finishSync();
    expect(fs.readdirSync(dir)).toEqual(["equity.csv"]);
    const text = fs.readFileSync(file, "utf8");
    expect(text.split("\n")).toHaveLength(ROWS + 2);
    expect(text.endsWith(`,${100 + 99_999 / 4}\n`)).toBe(true);
    expect(await write.done).toBe("worker");
  });

  it("cancelSync during the run (a second Ctrl-C): no equity.csv and no temp file, at once", async () => {
    const dir = fresh("cancel");
    const stream = EquityStream.start(path.join(dir, "equity.csv"), columns(ROWS)) as EquityStream;
    stream.advance(50_000);
    await waitFor(() => tempFiles(dir).length === 1, 20_000);
    stream.cancelSync();
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it("a target that is a link: the worker's refusal is the inline one (SymlinkError naming the file)", async () => {
    const dir = fresh("link");
    const outside = path.join(work, "outside.txt");
    fs.writeFileSync(outside, "keep\n");
    const file = path.join(dir, "equity.csv");
    fs.symlinkSync(outside, file);
    const stream = EquityStream.start(file, columns(ROWS)) as EquityStream;
    const err = await stream.end(ROWS).done.then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(SymlinkError);
    expect((err as SymlinkError).file).toBe(file);
    expect((err as Error).message).toBe(new SymlinkError(file).message);
    expect(fs.readFileSync(outside, "utf8")).toBe("keep\n");
  });

  it("a write that fails in the worker rejects with the inline AtomicWriteError (file named, cause kept)", async () => {
    // A file inside a regular file cannot be created: ENOTDIR, in the worker's own open.
    const blocker = path.join(work, "not-a-dir");
    fs.writeFileSync(blocker, "");
    const file = path.join(blocker, "equity.csv");
    const stream = EquityStream.start(file, columns(ROWS)) as EquityStream;
    const err = await stream.end(ROWS).done.then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(AtomicWriteError);
    expect((err as AtomicWriteError).file).toBe(file);
    expect((err as Error).message).toMatch(
      new RegExp(
        `^Could not write ${file}: (ENOTDIR|EEXIST)[^.]*\\. Its previous content is unchanged`,
      ),
    );
  });
});

describe("equity.csv's rows", () => {
  /** Each row formatted on its own, every value through String(): what the file must hold. */
  function naive(c: EquityColumns): string {
    let peak = Number.NEGATIVE_INFINITY;
    let out = "";
    for (let i = 0; i < c.equity.length; i++) {
      const e = c.equity[i] as number;
      if (e > peak) peak = e;
      const dd = peak > 0 && e < peak ? String((e / peak - 1) * 100) : "0";
      const t = new Date(c.times[i] as number).toISOString();
      out += `${t.slice(0, 10)} ${t.slice(11, 19)},${String(e)},${String(c.cash[i])},${dd},${String(c.benchmark[i])}\n`;
    }
    return out;
  }

  it("a value equal to the last row's keeps its text, and every change (NaN, -0, a new peak) shows", () => {
    // Equity flat, then a new peak, a drawdown, flat in the drawdown, back to the peak; cash with
    // -0 and NaN; a benchmark that repeats.
    const equity = [100, 100, 100, 120, 90, 90, 90, 120, 120, Number.NaN, Number.NaN, 80, 80];
    const cash = [100, 100, -0, 0, 0, Number.NaN, Number.NaN, 5, 5, 5, 1e21, 1e21, 5e-324];
    const bench = [100, 100.1, 100.1, 99.9, 99.9, 99.9, 101, 101, 101, 101, 102, 102, 102];
    const n = equity.length;
    const cols: EquityColumns = {
      times: Float64Array.from({ length: n }, (_, i) => T0 + i * MINUTE),
      equity: Float64Array.from(equity),
      cash: Float64Array.from(cash),
      benchmark: Float64Array.from(bench),
      intraday: true,
    };
    let text = "";
    const rows = new EquityCsvRows(cols);
    // In uneven pieces, as the worker writes them while bars close.
    for (const end of [1, 2, 5, 5, 9, n]) rows.writeTo({ write: (t) => (text += t) }, end);
    expect(rows.written).toBe(n);
    expect(text).toBe(naive(cols));
    // By hand: the drawdown at 90 below the peak 120 is −25 %, and 80 after the NaNs is −33.3 %.
    expect(text.split("\n")[4]).toBe(`2020-01-01 00:04:00,90,0,-25,99.9`);
    expect(text.split("\n")[9]).toBe(`2020-01-01 00:09:00,NaN,5,0,101`);
    expect(text.split("\n")[11]).toBe(`2020-01-01 00:11:00,80,1e+21,${(80 / 120 - 1) * 100},102`);
  });
});

describe("a run of 100,000+ bars whose equity.csv cannot be written (the worker's write)", () => {
  it("fails naming equity.csv with ENOSPC, leaves no equity.csv or temp file, and exits 1", async () => {
    const csv = minuteCsv();
    // A real 2 MiB tmpfs where the machine allows one (root on Linux): the other files fit,
    // equity.csv does not. Else ENOSPC injected into every process's (and thread's) writes of it.
    const mount = mountTmpfs(path.join(work, "tmpfs"), 2048);
    if (mount) mounts.push(mount);
    const runs = path.join(mount ? mount.dir : work, "runs");
    const env = mount ? process.env : enospcEnv("equity\\.csv");
    const r = await cliRun(runArgs("strategies/buy-and-hold.ts", csv, runs, "--no-ui"), work, env);
    expect(r.status, r.stderr).toBe(1);
    const dir = runDirs(runs)[0] as string;
    const file = path.join(dir, "equity.csv");
    const result = readJson<{ status: string; error: { type: string; message: string } }>(
      path.join(dir, "result.json"),
    );
    expect(result.status).toBe("failed");
    expect(result.error.type).toBe("AtomicWriteError");
    expect(result.error.message).toContain(`Could not write ${file}: ENOSPC`);
    expect(r.stderr).toContain(`${file}: ENOSPC`);
    expect(fs.existsSync(file)).toBe(false);
    expect(fs.readdirSync(dir).filter((f) => f.endsWith(".tmp"))).toEqual([]);
    expect(fs.existsSync(path.join(dir, "run.lock"))).toBe(false);
  }, 60_000);
});

describe("a 120,000-bar run stopped half-way (equity.csv by the worker during the run)", () => {
  const SLOW = path.join(ROOT, "test/fixtures/strategies/slow.ts");
  // 20 ms every 1,000 bars: about 2.4 s of sleep over the run, so a signal lands in the middle.
  const slowArgs = (runs: string, ms = 20, every = 1000) => [
    "run",
    SLOW,
    "--data",
    minuteCsv(),
    "--param",
    `ms=${ms}`,
    "--param",
    `every=${every}`,
    "--runs-dir",
    runs,
    "--no-ui",
  ];
  const rowsOf = (dir: string) =>
    fs.readFileSync(path.join(dir, "equity.csv"), "utf8").split("\n").slice(0, -1);

  /** Waits until the run's bars are under way, then sends `signal` (twice with `again`). */
  async function stopMidway(
    runs: string,
    signal: NodeJS.Signals,
    args: string[],
    again = false,
    mark?: string,
  ) {
    const child = cliAsync(args, work);
    let stderr = "";
    child.stderr?.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    await waitFor(() => {
      const [dir] = runDirs(runs);
      if (dir === undefined) return false;
      // With a mark, the run is inside the bar that sleeps (a signal before it could let the
      // run finish writing before the second signal lands).
      if (mark !== undefined && !fs.existsSync(mark)) return false;
      // The worker has flushed rows already: its temp file is not empty.
      const temp = tempFiles(dir).find((f) => f.startsWith(".equity.csv."));
      return temp !== undefined && fs.statSync(path.join(dir, temp)).size > 0;
    }, 30_000);
    child.kill(signal);
    if (again) {
      await waitFor(() => stderr.includes("Interrupted"), 10_000);
      child.kill(signal);
    }
    const code = await waitExit(child);
    return { code, dir: runDirs(runs)[0] as string };
  }

  it("a signal: interrupted, equity.csv holds exactly the closed bars, the same rows as a whole run's", async () => {
    const whole = cli(slowArgs(path.join(work, "runs-whole")), work);
    expect(whole.status, whole.stderr).toBe(0);
    const wholeDir = runDirs(path.join(work, "runs-whole"))[0] as string;
    const full = rowsOf(wholeDir);
    expect(full).toHaveLength(120_000 + 1);
    // The metrics the worker computed are the in-memory backtest()'s, computed in one thread.
    const written = readJson<Pick<RunResult, "metrics" | "benchmark">>(
      path.join(wholeDir, "result.json"),
    );
    const mem = await backtest({
      strategy: SLOW,
      data: [minuteCsv()],
      params: { ms: 0, every: 1000 },
    });
    expect(written.metrics).toEqual(mem.metrics);
    expect(written.benchmark.metrics).toEqual(mem.benchmark.metrics);
    expect(written.metrics?.bars).toBe(120_000);
    const runs = path.join(work, "runs-term");
    const { code, dir } = await stopMidway(runs, "SIGTERM", slowArgs(runs));
    expect(code).toBe(1);
    const result = readJson<{ status: string; period: { bars: number } }>(
      path.join(dir, "result.json"),
    );
    expect(result.status).toBe("interrupted");
    expect(result.period.bars).toBeGreaterThan(0);
    expect(result.period.bars).toBeLessThan(120_000);
    const rows = rowsOf(dir);
    expect(rows).toHaveLength(result.period.bars + 1);
    expect(rows).toEqual(full.slice(0, rows.length));
    expect(tempFiles(dir)).toEqual([]);
  }, 90_000);

  it("a second Ctrl-C during the run (a bar that hangs): exit 130, no equity.csv and no temp file left behind", async () => {
    // Bar 50,000 sleeps 3 s: the first Ctrl-C waits for it, the second drops equity.csv.
    const runs = path.join(work, "runs-abort");
    const mark = path.join(work, "abort-mark");
    const args = [...slowArgs(runs, 3000, 50_000), "--param", `mark=${mark}`];
    const { code, dir } = await stopMidway(runs, "SIGINT", args, true, mark);
    expect(Number(fs.readFileSync(mark, "utf8"))).toBe(50_000);
    expect(code).toBe(130);
    const result = readJson<{ status: string }>(path.join(dir, "result.json"));
    expect(result.status).toBe("interrupted");
    expect(fs.existsSync(path.join(dir, "equity.csv"))).toBe(false);
    expect(tempFiles(dir)).toEqual([]);
  }, 90_000);
});
