import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cli, DATA, runArgs, runDirs, tempDir } from "../../helpers/cli.js";
import { readJsonl } from "../../helpers/llm-run.js";

const work = tempDir();
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));
const runs = path.join(work, "runs");

describe("--recall-sources traces: decision traces as memory", () => {
  // trace-recall recalls "buy" on every bar, then buys 10 on bar index 2 (1999-11-03).
  const out = cli(
    runArgs("test/fixtures/strategies/trace-recall.ts", path.join(DATA, "SPY_D.csv"), runs).concat([
      "--to",
      "1999-11-10",
      "--recall-sources",
      "traces",
    ]),
    work,
  );
  const [dir] = runDirs(runs);

  it("traces the decision that ordered, with the broker's answer, and nothing else", () => {
    expect(out.status, out.stderr).toBe(0);
    expect(fs.readdirSync(path.join(dir!, "traces"))).toEqual(["1999-11-03.md"]);
    expect(fs.readFileSync(path.join(dir!, "traces", "1999-11-03.md"), "utf8")).toBe(
      "# Decision traces 1999-11-03\n\n[00:00] bar: buy 10 SPY market -> working\n",
    );
  });

  it("is recalled by later decisions only: not by the one it traces", () => {
    const cited = readJsonl(path.join(dir!, "decisions.jsonl")).flatMap((d) =>
      ((d.recalls ?? []) as { citations: { path: string }[] }[]).map((r) => [
        d.time,
        r.citations.map((c) => c.path),
      ]),
    );
    expect(cited.slice(0, 4)).toEqual([
      ["1999-11-01", []],
      ["1999-11-02", []],
      ["1999-11-03", []],
      ["1999-11-04", ["traces/1999-11-03.md"]],
    ]);
    const at = (date: string) =>
      JSON.parse(cli(["recall", dir!, "buy", "--as-of", date, "--json"], work).stdout).citations;
    expect(at("1999-11-03")).toEqual([]);
    expect(at("1999-11-04").map((c: { source: string }) => c.source)).toEqual(["trace"]);
  });
});
