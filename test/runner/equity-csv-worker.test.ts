import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  EQUITY_WORKER_MIN_ROWS,
  type EquityColumns,
  equityInWorker,
  jobColumns,
  packColumns,
  writeEquityCsv,
  writeEquityCsvInWorker,
} from "../../src/runner/write-outputs.js";
import { AtomicWriteError } from "../../src/util/atomic-write.js";
import { SymlinkError } from "../../src/util/no-follow.js";
import { cliRun, ROOT, readJson, runDirs, tempDir } from "../helpers/cli.js";
import { enospcEnv, mountTmpfs } from "../helpers/full-disk.js";

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
  const c: EquityColumns = {
    times: new Float64Array(rows),
    equity: new Float64Array(rows),
    cash: new Float64Array(rows),
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

describe("equity.csv from a worker thread (runs of 100,000 bars and more)", () => {
  it("only a run of 100,000 rows or more, on a machine with a second core, goes to a worker", () => {
    expect(equityInWorker(99_999)).toBe(false);
    expect(equityInWorker(EQUITY_WORKER_MIN_ROWS)).toBe(os.availableParallelism() > 1);
    expect(EQUITY_WORKER_MIN_ROWS).toBe(100_000);
  });

  it("writes the same bytes as the inline writer, with the rows computed by hand", async () => {
    const cols = columns(EQUITY_WORKER_MIN_ROWS);
    const inWorker = path.join(work, "worker", "equity.csv");
    const inline = path.join(work, "inline", "equity.csv");
    fs.mkdirSync(path.dirname(inWorker));
    fs.mkdirSync(path.dirname(inline));
    // "worker": the thread really wrote it (under vitest from the .ts source, through tsx).
    expect(await writeEquityCsvInWorker(inWorker, cols).done).toBe("worker");
    writeEquityCsv(inline, cols.times, cols.equity, cols.cash, cols.benchmark, true);
    const text = fs.readFileSync(inWorker, "utf8");
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
    expect(lines).toHaveLength(EQUITY_WORKER_MIN_ROWS + 2);
    expect(fs.readdirSync(path.dirname(inWorker))).toEqual(["equity.csv"]);
  });

  it("finishSync blocks until the worker is through: the file is whole at once, no temp file left", async () => {
    const dir = path.join(work, "sync");
    fs.mkdirSync(dir);
    const file = path.join(dir, "equity.csv");
    const write = writeEquityCsvInWorker(file, columns(EQUITY_WORKER_MIN_ROWS));
    // What a second Ctrl-C does before the process exits: no await, the thread just blocks.
    write.finishSync();
    expect(fs.readdirSync(dir)).toEqual(["equity.csv"]);
    const text = fs.readFileSync(file, "utf8");
    expect(text.split("\n")).toHaveLength(EQUITY_WORKER_MIN_ROWS + 2);
    expect(text.endsWith(`,${100 + 99_999 / 4}\n`)).toBe(true);
    expect(await write.done).toBe("worker");
  });

  it("a target that is a link: the worker's refusal is the inline one (SymlinkError naming the file)", async () => {
    const dir = path.join(work, "link");
    fs.mkdirSync(dir);
    const outside = path.join(work, "outside.txt");
    fs.writeFileSync(outside, "keep\n");
    const file = path.join(dir, "equity.csv");
    fs.symlinkSync(outside, file);
    const err = await writeEquityCsvInWorker(file, columns(EQUITY_WORKER_MIN_ROWS)).done.then(
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
    const err = await writeEquityCsvInWorker(file, columns(EQUITY_WORKER_MIN_ROWS)).done.then(
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

describe("a run of 100,000+ bars whose equity.csv cannot be written (the worker's write)", () => {
  it("fails naming equity.csv with ENOSPC, leaves no equity.csv or temp file, and exits 1", async () => {
    // 120,000 minute bars of a gentle random walk: equity.csv is about 11 MB.
    const csv = path.join(work, "MIN.csv");
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
    // A real 2 MiB tmpfs where the machine allows one (root on Linux): the other files fit,
    // equity.csv does not. Else ENOSPC injected into every process's (and thread's) writes of it.
    const mount = mountTmpfs(path.join(work, "tmpfs"), 2048);
    if (mount) mounts.push(mount);
    const runs = path.join(mount ? mount.dir : work, "runs");
    const env = mount ? process.env : enospcEnv("equity\\.csv");
    const r = await cliRun(
      [
        "run",
        path.join(ROOT, "strategies/buy-and-hold.ts"),
        "--data",
        csv,
        "--runs-dir",
        runs,
        "--no-ui",
      ],
      work,
      env,
    );
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

describe("equity.csv's worker job", () => {
  it("hands over columns in shared memory in place and copies only the others", () => {
    const shared = (xs: number[]) => {
      const a = new Float64Array(new SharedArrayBuffer(8 * (xs.length + 1))).subarray(1);
      a.set(xs);
      return a;
    };
    const times = shared([1, 2, 3]);
    const equity = shared([100, 101, 99]);
    const benchmark = Float64Array.from([100, 100.5, 98]);
    const cash = { value: Float64Array.from([100, 40]), at: Int32Array.from([0, 2]) };
    const packed = packColumns({ times, equity, benchmark }, cash);
    // The two shared columns stay where they are (same memory, offset kept); the plain one and
    // the cash steps are the packed buffer: 3 × 8 bytes, then 2 × (8 + 4).
    expect(packed.times.buffer).toBe(times.buffer);
    expect(packed.times.byteOffset).toBe(8);
    expect(packed.equity.buffer).toBe(equity.buffer);
    expect(packed.benchmark.buffer).toBe(packed.columns);
    expect(packed.columns.byteLength).toBe(3 * 8 + 2 * 12);
    const views = jobColumns({
      file: "x",
      ...packed,
      rows: 3,
      steps: 2,
      intraday: false,
      finished: new SharedArrayBuffer(4),
    });
    expect([...views.times]).toEqual([1, 2, 3]);
    expect([...views.equity]).toEqual([100, 101, 99]);
    expect([...views.benchmark]).toEqual([100, 100.5, 98]);
    expect([...views.cash.value]).toEqual([100, 40]);
    expect([...views.cash.at]).toEqual([0, 2]);
  });
});
