import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cli, runArgs, tempDir } from "../helpers/cli.js";

const work = tempDir();
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

function csv(name: string, closes: number[]): string {
  const days = ["2024-01-02", "2024-01-03", "2024-01-04"];
  const rows = closes.map((c, i) => `${days[i]},${c},${c + 1},${c - 1},${c},1000`);
  const file = path.join(work, name);
  fs.writeFileSync(file, `Date,Open,High,Low,Close,Volume\n${rows.join("\n")}\n`);
  return file;
}

describe("strategies/buy-and-hold.ts", () => {
  it("two symbols that start on the same bar share the cash: both buys fill, none is rejected", () => {
    const a = csv("A.csv", [100, 101, 102]);
    const b = csv("B.csv", [50, 51, 52]);
    const r = cli(
      runArgs("strategies/buy-and-hold.ts", [a, b], path.join(work, "runs"), "--json", "-q"),
      work,
    );
    expect(r.status, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout) as {
      orders: { filled: number; rejected: number };
      metrics: { trades: number };
    };
    expect(result.orders).toMatchObject({ filled: 2, rejected: 0 });
    // Each order is half of equity at its fill (the open of 01-03). A: floor(10,000 × 0.5 / 101)
    // = 49. B: equity is then 5,051 cash + 49 A at A's last close 100 = 9,951, and
    // floor(9,951 × 0.5 / 51) = 97. Both are held to the end.
    expect(result.metrics.trades).toBe(2);
    const [dir] = fs.readdirSync(path.join(work, "runs"));
    const [header, ...rows] = fs
      .readFileSync(path.join(work, "runs", dir as string, "trades.csv"), "utf8")
      .trim()
      .split("\n");
    const cols = (header as string).split(",");
    const qty = Object.fromEntries(
      rows.map((row) => {
        const cells = row.split(",");
        return [cells[cols.indexOf("symbol")], Number(cells[cols.indexOf("qty")])];
      }),
    );
    expect(qty).toEqual({ A: 49, B: 97 });
  });
});
