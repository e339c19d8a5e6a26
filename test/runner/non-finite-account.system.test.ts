import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cli, readJson, runArgs, runDirs, tempDir } from "../helpers/cli.js";

const work = tempDir();
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

interface Result {
  status: string;
  error: { type: string; message: string } | null;
  period: { bars: number };
  metrics: { equityFinal: number | null } | null;
}

describe("a run whose account becomes non-finite", () => {
  it("fails loudly (status failed, exit 1, a typed error) instead of completing with NaN equity", () => {
    // Buy and hold puts all 10000 in at the first open (1); the third close, written in plain
    // decimal digits, is 1e305, so the position is worth 1e4 × 1e305 = Infinity.
    const huge = `1${"0".repeat(305)}`;
    const csv = path.join(work, "HUGE.csv");
    fs.writeFileSync(
      csv,
      [
        "Date,Open,High,Low,Close,Volume",
        "2021-03-01,1,1,1,1,100",
        "2021-03-02,1,1,1,1,100",
        `2021-03-03,1,${huge},1,${huge},100`,
        "2021-03-04,1,1,1,1,100",
      ].join("\n"),
    );
    const runs = path.join(work, "runs");
    const r = cli(runArgs("strategies/buy-and-hold.ts", csv, runs), work);
    expect(r.status).toBe(1);
    const [dir] = runDirs(runs);
    const result = readJson<Result>(path.join(dir as string, "result.json"));
    expect(result.status).toBe("failed");
    expect(result.error?.type).toBe("NonFiniteAccountError");
    expect(result.error?.message).toContain("equity at bar 2 is not a finite number");
    // Bars 0 and 1 closed with finite equity (cash 0 + 10000 units × 1); bar 2 is not recorded.
    expect(result.metrics?.equityFinal).toBe(10_000);
    const equity = fs
      .readFileSync(path.join(dir as string, "equity.csv"), "utf8")
      .trim()
      .split("\n");
    expect(equity).toHaveLength(1 + 2);
  });
});
