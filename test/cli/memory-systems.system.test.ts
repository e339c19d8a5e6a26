import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { shortIds } from "../../src/cli/commands/format-list.js";
import { formatMetric } from "../../src/metrics/metric-labels.js";
import { cli, DATA, ROOT, runArgs, tempDir } from "../helpers/cli.js";

const work = tempDir();
const runsRoot = path.join(work, "runs");
const strategy = path.join(ROOT, "strategies", "sma-crossover.ts");
const data = path.join(DATA, "GOOG.csv");
let comparison: {
  runs: { id: string; memorySystem: string; status: string; memory: Record<string, number> }[];
  memoryStats: string[];
};

beforeAll(() => {
  const r = cli(
    [
      "run",
      strategy,
      "--data",
      data,
      "--to",
      "2004-12-31",
      "--memory",
      "files,layered",
      "--runs-dir",
      runsRoot,
      "--json",
    ],
    work,
  );
  expect(r.status, r.stderr).toBe(0);
  comparison = JSON.parse(r.stdout);
});

afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

describe("--memory and compare", () => {
  it("run --memory files,layered runs once per system over the same data and ends on the comparison", () => {
    expect(comparison.runs.map((r) => [r.memorySystem, r.status])).toEqual([
      ["files", "completed"],
      ["layered", "completed"],
    ]);
    // The same data and strategy: the same trades and metrics whatever the memory.
    const [a, b] = comparison.runs.map((r) =>
      JSON.parse(fs.readFileSync(path.join(runsRoot, r.id, "result.json"), "utf8")),
    );
    expect(b.metrics).toEqual(a.metrics);
    // Each system's own statistics: files counts files, layered its operations. GOOG has 94
    // bars from 2004-08-19 to 2004-12-31, one day end each.
    expect(comparison.runs[0]?.memory).toHaveProperty("journalFiles");
    expect(comparison.runs[1]?.memory).toMatchObject({ stores: 0, dayEnds: 94, short: 0 });
    expect(comparison.memoryStats).toEqual(expect.arrayContaining(["journalFiles", "dayEnds"]));
    const names = fs
      .readdirSync(runsRoot)
      .map(
        (d) =>
          JSON.parse(fs.readFileSync(path.join(runsRoot, d, "config.json"), "utf8")).memory.system,
      );
    expect(names.sort()).toEqual(["files", "layered"]);
  });

  it("compare prints the runs side by side, and --html writes an offline page", () => {
    const ids = comparison.runs.map((r) => r.id);
    const r = cli(
      ["compare", ...ids, "--runs-dir", runsRoot, "--html", path.join(work, "c.html")],
      work,
    );
    expect(r.status, r.stderr).toBe(0);
    const lines = r.stdout.split("\n");
    // Each run by its shortest unique prefix, its start to the second at least.
    const [a, b] = shortIds(ids);
    expect(a && ids[0]?.startsWith(a) && a.length >= 15 && a.length < (ids[0]?.length ?? 0)).toBe(
      true,
    );
    expect(lines[0]).toMatch(new RegExp(`^\\s+${a}\\s+${b}$`));
    expect(lines.find((l) => l.trim().startsWith("memory "))).toMatch(/files\s+layered$/);
    // A memory system's own statistics, their keys as words.
    expect(lines.find((l) => l.trim().startsWith("day ends"))).toMatch(/—\s+94$/);
    expect(lines.some((l) => l.trim().startsWith("dayEnds"))).toBe(false);
    // Metrics by their names for people, each with its own decimals (money with cents).
    const equity = JSON.parse(
      fs.readFileSync(path.join(runsRoot, ids[0] as string, "result.json"), "utf8"),
    ).metrics.equityFinal as number;
    const shown = formatMetric("equityFinal", equity);
    expect(shown).toMatch(/^\d{1,3}(,\d{3})*\.\d{2}$/);
    expect(
      lines
        .find((l) => l.trim().startsWith("Final equity"))
        ?.trim()
        .split(/\s{2,}/),
    ).toEqual(["Final equity", shown, shown]);
    expect(lines.some((l) => l.trim().startsWith("equityFinal"))).toBe(false);
    const html = fs.readFileSync(path.join(work, "c.html"), "utf8");
    expect(html).toContain(`<td>Final equity</td><td class="n">${shown}</td>`);
    expect(html).toContain("Content-Security-Policy");
    expect(html).toContain(`${ids[1]} (layered)`);
    expect(html).not.toMatch(/<script|src="http/);
  });

  it("an unknown system is bad usage (exit 2) and lists the registered ones; so is one run", () => {
    const r = cli(runArgs(strategy, data, runsRoot, "--memory", "files,nope"), work);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('--memory "nope" is not a memory system');
    expect(r.stderr).toMatch(/files: playbook, journal/);
    expect(r.stderr).toMatch(/layered: INVESTOR-BENCH/);
    const one = cli(["compare", comparison.runs[0]?.id as string, "--runs-dir", runsRoot], work);
    expect(one.status).toBe(2);
  });

  it("memory.layered of agenticbt.config.json is checked before a run exists (exit 2)", () => {
    const dir = path.join(work, "project");
    fs.mkdirSync(dir);
    fs.writeFileSync(
      path.join(dir, "agenticbt.config.json"),
      JSON.stringify({ memory: { layered: { layers: { short: { importanceDecay: 1.5 } } } } }),
    );
    const r = cli(runArgs(strategy, data, "runs", "--memory", "layered"), dir);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(
      "agenticbt.config.json memory.layered: layers.short.importanceDecay",
    );
    expect(fs.existsSync(path.join(dir, "runs"))).toBe(false);
  });
});
