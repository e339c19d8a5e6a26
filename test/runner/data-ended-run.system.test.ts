import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cli, DATA, ROOT, readJson, runDirs, tempDir } from "../helpers/cli.js";

const work = tempDir();
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

interface Result {
  status: string;
  warnings: string[];
  trades: { closed: number; openAtEnd: number; dataEnded: number };
  data: { symbol: string; last: string }[];
}

/** trades.csv as one record per row, keyed by the header. */
function readCsv(file: string): Record<string, string>[] {
  const [header, ...rows] = fs.readFileSync(file, "utf8").trim().split("\n");
  const keys = (header as string).split(",");
  return rows.map((row) => Object.fromEntries(row.split(",").map((v, k) => [keys[k], v])));
}

function runOnce(args: string[], runs: string) {
  const r = cli(["run", ...args, "--runs-dir", runs], work);
  expect(r.status, r.stderr).toBe(0);
  const [dir] = runDirs(runs);
  return {
    dir: dir as string,
    stderr: r.stderr,
    result: readJson<Result>(path.join(dir as string, "result.json")),
    trades: readCsv(path.join(dir as string, "trades.csv")),
  };
}

describe("symbols whose data ends early", () => {
  it("hand-built pair: B is closed at its last close, flagged, and equity never carries it", () => {
    const write = (name: string, text: string) => {
      const file = path.join(work, name);
      fs.writeFileSync(file, text);
      return file;
    };
    const header = "Date,Open,High,Low,Close,Volume\n";
    const a = write(
      "A.csv",
      `${header}2021-03-01,100,100,100,100,1000\n2021-03-02,100,102,100,102,1000\n2021-03-03,104,104,104,104,1000\n2021-03-04,106,106,106,106,1000\n2021-03-05,108,108,108,108,1000\n`,
    );
    const b = write("B.csv", `${header}2021-03-02,50,52,50,52,1000\n2021-03-03,53,55,53,55,1000\n`);
    const strategy = write(
      "pair.mjs",
      `export default { name: "pair", onBar(ctx) {
        if (ctx.index === 0) ctx.buy({ symbol: "A", qty: 10 });
        if (ctx.index === 1) ctx.buy({ symbol: "B", qty: 20 });
        if (ctx.index === 3 && ctx.orders().length === 0) {
          const o = ctx.buy({ symbol: "B", qty: 1 });
          ctx.annotate({ late: o.status, reason: o.reason });
        }
      } };\n`,
    );
    const { dir, result, trades } = runOnce([strategy, "--data", a, b], path.join(work, "pair"));
    expect(result.warnings).toContain(
      "Symbols cover different ranges (timeline 2021-03-01 → 2021-03-05): B starts late (2021-03-02); B ends early (2021-03-03): its orders are cancelled and its position is closed at its last close (data_ended).",
    );
    expect(result.trades).toEqual({ closed: 1, openAtEnd: 1, dataEnded: 1 });
    // B bought at bar 2's open (53), closed at its last close (55); A is still open at the end.
    expect(trades.map((t) => [t.symbol, t.entry_price, t.exit_time, t.exit_price, t.pnl])).toEqual([
      ["B", "53", "2021-03-03", "55", "40"],
      ["A", "100", "2021-03-05", "108", "80"],
    ]);
    expect(trades.map((t) => [t.exit_reason, t.open_at_end])).toEqual([
      ["data_ended", "false"],
      ["", "true"],
    ]);
    // cash: 10,000 − 10 × 100 = 9,000 → − 20 × 53 = 7,940 → + 20 × 55 = 9,040 at B's last close;
    // equity: cash + 10 A at the close (+ nothing for B once it is closed).
    const equity = readCsv(path.join(dir, "equity.csv")).map((r) => [r.equity, r.cash]);
    expect(equity).toEqual([
      ["10000", "10000"],
      ["10020", "9000"],
      ["10080", "9040"],
      ["10100", "9040"],
      ["10120", "9040"],
    ]);
    const decisions = fs.readFileSync(path.join(dir, "decisions.jsonl"), "utf8");
    expect(decisions).toContain('"late":"rejected"');
    expect(decisions).toContain("the data of B ended on 2021-03-03");
  });

  it("README's four-file example: no exit after a symbol's last bar, the 2014 enders flagged", () => {
    const files = ["orcl-1995-2014.txt", "yhoo-1996-2014.txt", "nvda-1999-2014.txt", "SPY_D.csv"];
    const { result, trades } = runOnce(
      [
        path.join(ROOT, "strategies/buy-and-hold.ts"),
        "--data",
        ...files.map((f) => path.join(DATA, f)),
      ],
      path.join(work, "four"),
    );
    expect(result.warnings.join("\n")).toContain(
      "ORCL, YHOO, NVDA end early (2014-12-31, 2014-12-31, 2014-12-31)",
    );
    const lastOf = new Map(result.data.map((d) => [d.symbol, d.last]));
    for (const t of trades)
      expect((t.exit_time as string) <= (lastOf.get(t.symbol as string) as string)).toBe(true);
    const lastClose = (file: string) =>
      Number(
        fs.readFileSync(path.join(DATA, file), "utf8").trim().split("\n").pop()?.split(",")[4],
      );
    expect(trades.map((t) => [t.symbol, t.exit_time, t.exit_reason, t.open_at_end])).toEqual([
      ["ORCL", "2014-12-31", "data_ended", "false"],
      ["YHOO", "2014-12-31", "data_ended", "false"],
      ["NVDA", "2014-12-31", "data_ended", "false"],
      ["SPY", "2020-08-28", "", "true"],
    ]);
    expect(trades.slice(0, 3).map((t) => Number(t.exit_price))).toEqual(
      files.slice(0, 3).map(lastClose),
    );
    expect(result.trades).toEqual({ closed: 3, openAtEnd: 1, dataEnded: 3 });
  });
});
