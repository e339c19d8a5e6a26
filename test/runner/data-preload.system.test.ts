import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DataError } from "../../src/data/data-error.js";
import { DataPreload, PRELOAD_MIN_BYTES } from "../../src/runner/data-preload.js";
import { loadData } from "../../src/runner/load-data.js";
import { cli, DATA, runArgs, tempDir } from "../helpers/cli.js";

const work = tempDir();
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

const MINUTE = 60_000;
const T0 = Date.UTC(2020, 0, 1);
const TWO_CORES = os.availableParallelism() > 1;

/** `rows` minute bars of a gentle walk (about 50 bytes a row); `bad`: row k's close is "x". */
function minuteCsv(name: string, rows: number, bad: number | null = null): string {
  const file = path.join(work, name);
  const lines = ["Date,Open,High,Low,Close,Volume"];
  let price = 100;
  for (let i = 0; i < rows; i++) {
    const t = new Date(T0 + i * MINUTE).toISOString().slice(0, 19);
    const next = Math.max(1, price + ((i * 7919) % 13) / 100 - 0.06);
    const close = i === bad ? "x" : next.toFixed(2);
    lines.push(
      `${t},${price.toFixed(2)},${(price + 0.5).toFixed(2)},${(price - 0.5).toFixed(2)},${close},1000`,
    );
    price = Number(next.toFixed(2));
  }
  fs.writeFileSync(file, `${lines.join("\n")}\n`);
  return file;
}

const options = (file: string) => ({
  data: [{ file }],
  from: "2020-01-02",
  to: null,
  strict: false,
  tz: null,
});

describe("a long data file is parsed by a worker thread while the runner loads", () => {
  it("only files of 4 MiB or more, that exist, on a machine with a second core, get a worker", () => {
    expect(PRELOAD_MIN_BYTES).toBe(4 * 1024 * 1024);
    expect(DataPreload.start(options(path.join(DATA, "GOOG.csv")))).toBeNull();
    expect(DataPreload.start(options(path.join(work, "missing.csv")))).toBeNull();
    const big = minuteCsv("big.csv", 100_000);
    expect(fs.statSync(big).size).toBeGreaterThan(PRELOAD_MIN_BYTES);
    expect(DataPreload.start(options(big)) !== null).toBe(TWO_CORES);
  });

  it.runIf(TWO_CORES)(
    "sends loading events as it parses: from 0 bytes, never back, to the files' size",
    async () => {
      const file = minuteCsv("progress.csv", 100_000);
      const size = fs.statSync(file).size;
      const preload = DataPreload.start(options(file)) as DataPreload;
      const events: { bytesRead: number; bytesTotal: number; elapsedMs: number }[] = [];
      preload.onLoading((e) => events.push(e));
      expect(await preload.result()).not.toBeNull();
      expect(events.length).toBeGreaterThan(0);
      // The first from the load's start, the latest kept until someone listened.
      expect(events.every((e) => e.bytesTotal === size)).toBe(true);
      const read = events.map((e) => e.bytesRead);
      expect(read).toEqual([...read].sort((x, y) => x - y));
      expect(read.at(-1)).toBeLessThanOrEqual(size);
      // At most one every 100 ms.
      const t = events.map((e) => e.elapsedMs);
      for (let i = 1; i < t.length; i++)
        expect((t[i] as number) - (t[i - 1] as number)).toBeGreaterThanOrEqual(100);
      // The loading line is the view's to draw unless handed over: nothing was drawn here.
      expect(preload.loadingLine().drawn()).toBe(false);
    },
  );

  it("loadData tells the bytes of all its files parsed, in order, the second after the first", () => {
    const a = minuteCsv("a.csv", 2_000);
    const b = minuteCsv("b.csv", 3_000);
    const seen: number[] = [];
    loadData(
      {
        ...options(a),
        data: [
          { file: a, symbol: "A" },
          { file: b, symbol: "B" },
        ],
      },
      (n) => seen.push(n),
    );
    expect(seen).toEqual([...seen].sort((x, y) => x - y));
    expect(seen.at(-1)).toBe(fs.statSync(a).size + fs.statSync(b).size);
    expect(seen).toContain(fs.statSync(a).size);
  });

  it.runIf(TWO_CORES)(
    "gives exactly what loadData gives in this thread: columns, window, file info",
    async () => {
      const file = minuteCsv("same.csv", 100_000);
      const preload = DataPreload.start(options(file)) as DataPreload;
      const moved = await preload.result();
      const inline = loadData(options(file));
      expect(moved).not.toBeNull();
      expect(moved?.dataInfo).toEqual(inline.dataInfo);
      expect(moved?.warnings).toEqual(inline.warnings);
      // --from 2020-01-02: the first 1,440 minutes are warm-up.
      expect(moved?.startIndex).toBe(1440);
      expect(moved?.startIndex).toBe(inline.startIndex);
      expect(moved?.data.symbols).toEqual(["SAME"]);
      const [a, b] = [moved?.data.series[0], inline.data.series[0]];
      for (const k of ["time", "open", "high", "low", "close", "volume"] as const) {
        expect(a?.[k], k).toEqual(b?.[k]);
      }
      expect(moved?.data.times).toEqual(inline.data.times);
      expect(moved?.data.barIndex).toEqual(inline.data.barIndex);
      // The times stay in shared memory (equity.csv's worker reads them in place).
      expect(moved?.data.times.buffer).toBeInstanceOf(SharedArrayBuffer);
    },
  );

  it.runIf(TWO_CORES)(
    "a file the worker cannot load gives null: the runner loads it itself and reports that error",
    async () => {
      const file = minuteCsv("bad.csv", 100_000, 99_000);
      const preload = DataPreload.start(options(file)) as DataPreload;
      expect(await preload.result()).toBeNull();
      expect(() => loadData(options(file))).toThrow(DataError);
    },
  );

  it("through the CLI: a bad long file is the same error as loadData's, before the strategy's (exit 2)", () => {
    const file = minuteCsv("bad-cli.csv", 100_000, 99_000);
    let message = "";
    try {
      loadData(options(file));
    } catch (err) {
      message = (err as Error).message;
    }
    // Row 99,000 is line 99,002 (the header is line 1).
    expect(message).toContain(`${file}:99002`);
    // A strategy file that does not exist either: the data's error still comes first.
    for (const strategy of ["strategies/sma-crossover.ts", "strategies/no-such-strategy.ts"]) {
      const r = cli(runArgs(strategy, file, path.join(work, "runs")), work);
      expect(r.status, r.stderr).toBe(2);
      expect(r.stderr).toContain(message);
    }
    expect(fs.existsSync(path.join(work, "runs"))).toBe(false);
  });
});
