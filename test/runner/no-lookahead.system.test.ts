import fs from "node:fs";
import path from "node:path";
import fse from "fs-extra";
import { afterAll, describe, expect, it } from "vitest";
import { cli, DATA, runArgs, runDirs, tempDir } from "../helpers/cli.js";

const work = tempDir();
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

const CUT = 1500; // data rows kept intact; every later row is poisoned

/** SPY with every bar after row CUT replaced by absurd (but valid) prices: ×1000 and reversed. */
function writeFixtures(): { clean: string; poisoned: string } {
  const lines = fs.readFileSync(path.join(DATA, "SPY_D.csv"), "utf8").trim().split("\n");
  const head = lines.slice(0, 1 + 2000);
  const clean = path.join(work, "SPY.csv");
  fs.writeFileSync(clean, `${head.join("\n")}\n`);
  const poisoned = head.map((line, k) => {
    if (k <= CUT) return line;
    const [idx, date, o, h, l, c, v] = line.split(",");
    const f = 1000 + (k % 7) * 500;
    return [
      idx,
      date,
      Number(c) * f,
      Number(h) * f * 1.5,
      Number(l) * f * 0.5,
      Number(o) * f,
      v,
    ].join(",");
  });
  const poisonedFile = path.join(work, "poisoned", "SPY.csv");
  fse.outputFileSync(poisonedFile, `${poisoned.join("\n")}\n`);
  return { clean, poisoned: poisonedFile };
}

const readLines = (file: string) => fs.readFileSync(file, "utf8").trim().split("\n");

describe("no look-ahead", () => {
  const { clean, poisoned } = writeFixtures();

  for (const strategy of ["sma-crossover", "rsi-reversion"]) {
    it(`${strategy}: absurd bars after t leave every decision, memory write and equity up to t unchanged`, () => {
      const dirs = [clean, poisoned].map((file, k) => {
        const runs = path.join(work, `runs-${strategy}-${k}`);
        const r = cli(
          runArgs(
            `strategies/${strategy}.ts`,
            file,
            runs,
            "--quiet",
            "--param",
            strategy === "sma-crossover" ? "fast=5" : "period=14",
          ),
          work,
        );
        expect(r.status, r.stderr).toBe(0);
        return runDirs(runs)[0] as string;
      });
      const [a, b] = dirs as [string, string];
      // Master index of the last clean bar is CUT - 1: decisions made there must not differ.
      const upToCut = (file: string) => readLines(file).filter((l) => JSON.parse(l).bar < CUT);
      const decisionsA = upToCut(path.join(a, "decisions.jsonl"));
      expect(decisionsA.length).toBeGreaterThan(5);
      expect(upToCut(path.join(b, "decisions.jsonl"))).toEqual(decisionsA);
      // Equity rows 1..CUT (bars 0..CUT-1) are identical; the first poisoned bar changes them.
      expect(readLines(path.join(b, "equity.csv")).slice(0, CUT + 1)).toEqual(
        readLines(path.join(a, "equity.csv")).slice(0, CUT + 1),
      );
      expect(readLines(path.join(b, "equity.csv"))[CUT + 1]).not.toEqual(
        readLines(path.join(a, "equity.csv"))[CUT + 1],
      );
      // Journal files dated before the first poisoned bar are byte-identical.
      const cutDate = (readLines(clean)[CUT + 1] as string).split(",")[1] as string;
      for (const f of fs.readdirSync(path.join(a, "journal")).filter((f) => f < `${cutDate}.md`)) {
        expect(fs.readFileSync(path.join(b, "journal", f), "utf8")).toBe(
          fs.readFileSync(path.join(a, "journal", f), "utf8"),
        );
      }
    });
  }
});
