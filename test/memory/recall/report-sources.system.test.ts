import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cli, DATA, ROOT, readJson, runArgs, runDirs, tempDir } from "../../helpers/cli.js";
import { readJsonl } from "../../helpers/llm-run.js";

const work = tempDir();
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));
const runs = path.join(work, "runs");
const spy = path.join(DATA, "SPY_D.csv");
const strategy = "test/fixtures/strategies/journal-and-recall.ts";

/** The first bar whose recall cited a report, and every report path cited. */
function reportCitations(dir: string): { first: string | null; paths: Set<string> } {
  let first: string | null = null;
  const paths = new Set<string>();
  for (const d of readJsonl(path.join(dir, "decisions.jsonl"))) {
    for (const r of (d.recalls ?? []) as { citations: { path: string }[] }[]) {
      for (const c of r.citations) {
        if (!c.path.startsWith("reports/")) continue;
        first ??= d.time as string;
        paths.add(c.path);
      }
    }
  }
  return { first, paths };
}

describe("--recall-sources reports: backtest reports as memory, with the look-ahead guard", () => {
  // Run A covers November 1999 (21 bars, ending 1999-11-30); its id carries "marker", the word
  // journal-and-recall recalls. Run B covers 1999-11-01 .. 1999-12-10 and recalls every bar.
  const a = cli(runArgs(strategy, spy, runs, "--to", "1999-11-30", "--name", "marker"), work);
  const b = cli(
    runArgs(strategy, spy, runs, "--to", "1999-12-10", "--param", "every=1").concat([
      "--recall-sources",
      "reports",
    ]),
    work,
  );
  const [dirA, dirB] = runDirs(runs);
  const idA = path.basename(dirA!);

  it("writes run A's report into B, dated by the end of A's period", () => {
    expect(a.status, a.stderr).toBe(0);
    expect(b.status, b.stderr).toBe(0);
    expect(fs.readdirSync(path.join(dirB!, "reports"))).toEqual([`${idA}.md`]);
    const text = fs.readFileSync(path.join(dirB!, "reports", `${idA}.md`), "utf8");
    expect(text.split("\n")[0]).toBe(`<!-- written 1999-11-30 00:00 by run ${idA} -->`);
    expect(text).toContain("- window: 1999-11-01 .. 1999-11-30 (21 bars)");
    expect(
      readJson<{ recall: { sources: string[] } }>(path.join(dirB!, "config.json")).recall.sources,
    ).toEqual(["reports"]);
  });

  it("is searchable from 1999-11-30 on, never before", () => {
    const cited = reportCitations(dirB!);
    expect(cited.first).toBe("1999-11-30");
    expect([...cited.paths]).toEqual([`reports/${idA}.md`]);
    const at = (date: string) =>
      JSON.parse(
        cli(["recall", dirB!, "marker", "--as-of", date, "-n", "50", "--json"], work).stdout,
      ).citations.map((c: { path: string }) => c.path);
    expect(at("1999-11-29")).not.toContain(`reports/${idA}.md`);
    expect(at("1999-11-30")).toContain(`reports/${idA}.md`);
  });

  it("is off by default: no reports directory, no report cited", () => {
    const c = cli(runArgs(strategy, spy, runs, "--to", "1999-12-10", "--param", "every=1"), work);
    expect(c.status, c.stderr).toBe(0);
    const dirC = runDirs(runs)[2]!;
    expect(fs.existsSync(path.join(dirC, "reports"))).toBe(false);
    expect(reportCitations(dirC).first).toBeNull();
  });

  it("is refused with --anonymize, before any run directory exists", () => {
    const before = runDirs(runs).length;
    const out = cli(
      runArgs(path.join(ROOT, "strategies", "rsi-mean-reversion.md"), spy, runs).concat([
        "--anonymize",
        "--recall-sources",
        "reports",
      ]),
      work,
    );
    expect(out.status).toBe(2);
    expect(out.stderr).toContain("--recall-sources reports cannot be used with --anonymize");
    expect(runDirs(runs)).toHaveLength(before);
  });
});
