import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_MEMORY_FILE_BYTES } from "../../src/memory/recall/sync-index.js";
import { RSI_SPY_RUN, reportCli, runStrategy } from "../cli/commands/report-cli.js";
import { ROOT, tempDir } from "../helpers/cli.js";
import { tree } from "../helpers/symlink-kit.js";

// A damaged run directory is named as damaged (exit 2, the file and what is wrong), never read as
// facts about the run: "No bar was simulated", a curve of 0 points, "no decisions at all".
const work = tempDir();
let pristine: string;
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

beforeAll(() => {
  pristine = runStrategy(RSI_SPY_RUN, ROOT, path.join(work, "runs"));
}, 60_000);

/** A copy of the finished run in a runs root of its own, damaged by `damage`. */
function damagedCopy(name: string, damage: (dir: string) => void): string {
  const dir = path.join(work, name, path.basename(pristine));
  fs.cpSync(pristine, dir, { recursive: true });
  damage(dir);
  return dir;
}

const DAMAGED = "the run directory is damaged";

describe("a damaged run directory is named as damaged", () => {
  it("report: equity.csv missing (result.json says bars were simulated)", () => {
    const dir = damagedCopy("no-equity", (d) => {
      fs.rmSync(path.join(d, "equity.csv"));
      fs.rmSync(path.join(d, "report.html"));
    });
    const bars = (
      JSON.parse(fs.readFileSync(path.join(dir, "result.json"), "utf8")) as {
        period: { bars: number };
      }
    ).period.bars;
    const r = reportCli(["report", dir], ROOT);
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toContain(
      `equity.csv in ${dir} is missing, though result.json says ${bars} bars were simulated: ${DAMAGED}`,
    );
    expect(fs.existsSync(path.join(dir, "report.html"))).toBe(false);
  });

  it("report: equity.csv of garbage rows under its header", () => {
    const dir = damagedCopy("garbage-equity", (d) => {
      const file = path.join(d, "equity.csv");
      const header = fs.readFileSync(file, "utf8").split("\n")[0];
      fs.writeFileSync(file, `${header}\ngarbage\nmore garbage\n`);
    });
    const r = reportCli(["report", dir], ROOT);
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toContain(`equity.csv in ${dir} has a malformed row at line 2: ${DAMAGED}`);
    // The same file cut short (rows well-formed, fewer than the bars) is damage too.
    const file = path.join(dir, "equity.csv");
    const lines = fs.readFileSync(path.join(pristine, "equity.csv"), "utf8").split("\n");
    fs.writeFileSync(file, `${lines.slice(0, 3).join("\n")}\n`);
    const cut = reportCli(["report", dir], ROOT);
    expect(cut.status, cut.stderr).toBe(2);
    expect(cut.stderr).toContain(`equity.csv in ${dir} has 2 rows, though result.json says`);
  });

  it("show --at: decisions.jsonl of garbage", () => {
    const at = "2005-03-31";
    expect(reportCli(["show", pristine, "--at", at], ROOT).stdout).toContain(`== ${at}`);
    const dir = damagedCopy("garbage-decisions", (d) => {
      fs.writeFileSync(path.join(d, "decisions.jsonl"), "garbage\n");
    });
    const r = reportCli(["show", dir, "--at", at], ROOT);
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toContain(
      `decisions.jsonl in ${dir} has a line that is not a JSON object (line 1): ${DAMAGED}`,
    );
    expect(r.stdout).not.toContain("no decisions");
  });

  it("resume: result.json holding [1,2,3] is refused, the directory left as it was", () => {
    const dir = damagedCopy("array-result", (d) => {
      fs.writeFileSync(path.join(d, "result.json"), "[1,2,3]\n");
    });
    const before = tree(dir);
    const r = reportCli(["resume", dir], ROOT);
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toContain(`result.json in ${dir} is not a JSON object: ${DAMAGED}`);
    expect(r.stderr).not.toContain("undefined");
    expect(tree(dir)).toEqual(before);
  });

  it("recall: a journal file of 1 GiB (sparse) is named, not read", () => {
    const big = 1024 ** 3;
    expect(big).toBeGreaterThan(MAX_MEMORY_FILE_BYTES);
    const dir = damagedCopy("huge-journal", (d) => {
      fs.rmSync(path.join(d, "index.sqlite"));
      const fd = fs.openSync(path.join(d, "journal", "2099-01-01.md"), "w");
      fs.ftruncateSync(fd, big);
      fs.closeSync(fd);
    });
    const file = path.join(dir, "journal", "2099-01-01.md");
    const t0 = performance.now();
    const r = reportCli(["recall", dir, "stop loss"], ROOT);
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toContain(`${file} is 1024 MiB, more than the 64 MiB a memory file may be`);
    // Refused from its size alone: reading it would take seconds and a gigabyte of memory.
    expect(performance.now() - t0).toBeLessThan(10_000);
    // Without it the same run recalls as before.
    fs.rmSync(file);
    const ok = reportCli(["recall", dir, "stop loss", "--json"], ROOT);
    expect(ok.status, ok.stderr).toBe(0);
    const same = reportCli(["recall", pristine, "stop loss", "--json"], ROOT);
    const citations = (s: string) => (JSON.parse(s) as { citations: unknown[] }).citations;
    expect(citations(ok.stdout)).toEqual(citations(same.stdout));
  });
});
