import fs from "node:fs";
import path from "node:path";
import fse from "fs-extra";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatDiff } from "../../../src/cli/commands/format-diff.js";
import { type DiffOutput, diffOutputSchema } from "../../../src/rundir/schemas.js";
import { ROOT, tempDir } from "../../helpers/cli.js";
import { idOf, jsonLines, RSI_SPY_RUN, reportCli, runStrategy } from "./report-cli.js";

const work = tempDir();
const runs = path.join(work, "runs");
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

function diffJson(a: string, b: string): DiffOutput {
  const r = reportCli(["diff", a, b, "--runs-dir", runs, "--json"], ROOT);
  expect(r.status, r.stderr).toBe(0);
  return diffOutputSchema.parse(JSON.parse(r.stdout));
}

/** The orders a strategy placed at each time, read from orders.jsonl (not decisions.jsonl). */
function placedByTime(dir: string): Map<string, string> {
  const out = new Map<string, string[]>();
  for (const e of jsonLines(path.join(dir, "orders.jsonl"))) {
    // Placed by the strategy: accepted or rejected at submission, not a bracket's child order.
    if ((e.event !== "accepted" && e.event !== "rejected") || e.parentId !== null) continue;
    const time = e.time as string;
    out.set(time, [...(out.get(time) ?? []), JSON.stringify([e.symbol, e.type, e.size])]);
  }
  return new Map([...out].map(([t, v]) => [t, v.join("|")]));
}

/** trades.csv rows as "symbol side entry exit qty" keys. */
function tradeKeys(dir: string): string[] {
  const [header = "", ...rows] = fs
    .readFileSync(path.join(dir, "trades.csv"), "utf8")
    .trim()
    .split("\n");
  const cols = header.split(",");
  const at = (row: string[], c: string) => row[cols.indexOf(c)] ?? "";
  return rows
    .map((r) => r.split(","))
    .map((r) =>
      ["symbol", "side", "entry_time", "exit_time", "qty"].map((c) => at(r, c)).join(" "),
    );
}

describe("diff of two parameterisations (sma-crossover fast=5 vs fast=10 on GOOG)", () => {
  let a = "";
  let b = "";
  let d: DiffOutput;
  beforeAll(() => {
    a = runStrategy(
      ["strategies/sma-crossover.ts", "--data", "data/GOOG.csv", "--param", "fast=5"],
      ROOT,
      runs,
    );
    b = runStrategy(
      ["strategies/sma-crossover.ts", "--data", "data/GOOG.csv", "--param", "fast=10"],
      ROOT,
      runs,
    );
    d = diffJson(idOf(a), idOf(b));
  });

  it("reports params.fast as the only config change", () => {
    expect(d.config.changed).toEqual([{ key: "params.fast", a: 5, b: 10 }]);
    expect(d.config.added).toEqual([]);
    expect(d.config.removed).toEqual([]);
  });

  it("puts the metrics side by side with B − A deltas from result.json", () => {
    const ra = JSON.parse(fs.readFileSync(path.join(a, "result.json"), "utf8"));
    const rb = JSON.parse(fs.readFileSync(path.join(b, "result.json"), "utf8"));
    const ret = d.metrics.find((m) => m.key === "returnPct");
    expect(ret).toEqual({
      key: "returnPct",
      a: ra.metrics.returnPct,
      b: rb.metrics.returnPct,
      delta: rb.metrics.returnPct - ra.metrics.returnPct,
    });
    expect(d.metrics.find((m) => m.key === "trades")?.delta).toBe(
      rb.metrics.trades - ra.metrics.trades,
    );
  });

  it("names the metrics for people in the text, and its B − A is the difference of the figures shown", () => {
    // The figures of the audit that found the shown delta off by a cent: exactly 0.8136, shown
    // -30.40 and -29.58, so 0.82 is what the reader can check.
    const shown: DiffOutput = {
      ...d,
      metrics: [
        { key: "maxDrawdownPct", a: -30.3956, b: -29.582, delta: 0.8136 },
        { key: "equityFinal", a: 54101.3692, b: 57752.99, delta: 3651.6208 },
        { key: "trades", a: 33, b: 33, delta: 0 },
      ],
    };
    const text = formatDiff(shown);
    const line = (label: string) =>
      (text.split("\n").find((l) => l.startsWith(`  ${label} `)) ?? "").trim().split(/\s{2,}/);
    expect(line("Max drawdown %")).toEqual(["Max drawdown %", "-30.40", "-29.58", "+0.82"]);
    expect(line("Final equity")).toEqual(["Final equity", "54,101.37", "57,752.99", "+3,651.62"]);
    expect(line("Trades")).toEqual(["Trades", "33", "33", "0"]);
    expect(text).not.toMatch(/^ {2}maxDrawdownPct/m);
  });

  it("shows the playbook's parameter line as a unified diff hunk", () => {
    const lines = d.playbookDiff.split("\n");
    expect(lines[0]).toBe(`--- ${idOf(a)}/playbook.md`);
    expect(lines[1]).toBe(`+++ ${idOf(b)}/playbook.md`);
    expect(lines).toContain("-- fast: 5");
    expect(lines).toContain("+- fast: 10");
    expect(lines).toContain(" - slow: 30");
    expect(lines.filter((l) => l.startsWith("@@"))).toHaveLength(1);
  });

  it("lists exactly the trades that are in one run's trades.csv and not the other's", () => {
    const ka = tradeKeys(a);
    const kb = tradeKeys(b);
    const key = (t: DiffOutput["trades"]["onlyA"][number]) =>
      [t.symbol, t.side, t.entryTime, t.exitTime, t.qty].join(" ");
    expect(d.trades.onlyA.map(key)).toEqual(ka.filter((k) => !kb.includes(k)));
    expect(d.trades.onlyB.map(key)).toEqual(kb.filter((k) => !ka.includes(k)));
    expect(d.trades.onlyA.length).toBeGreaterThan(0);
    expect(d.trades.common).toBe(ka.filter((k) => kb.includes(k)).length);
  });

  it("finds the first bar where the orders placed differ, as orders.jsonl shows", () => {
    const pa = placedByTime(a);
    const pb = placedByTime(b);
    const times = [...new Set([...pa.keys(), ...pb.keys()])].sort();
    const first = times.find((t) => pa.get(t) !== pb.get(t));
    expect(first).toBeDefined();
    expect(d.divergence.diverged).toBe(true);
    expect(d.divergence.time).toBe(first);
    const barOf = (dir: string) =>
      jsonLines(path.join(dir, "orders.jsonl")).find(
        (e) => e.event === "accepted" && e.time === first,
      )?.bar ?? null;
    expect(d.divergence.barA).toBe(barOf(a));
    expect(d.divergence.barB).toBe(barOf(b));
  });

  it("a run compared with itself never diverges and has no differences", () => {
    const same = diffJson(idOf(a), a);
    expect(same.divergence).toEqual({
      diverged: false,
      time: null,
      barA: null,
      barB: null,
      a: null,
      b: null,
    });
    expect(same.playbookDiff).toBe("");
    expect(same.trades.onlyA).toEqual([]);
    expect(same.metrics.every((m) => m.delta === 0)).toBe(true);
  });

  it("prints plain text that fits 100 columns, with the divergence and the config change", () => {
    const r = reportCli(["diff", idOf(a), idOf(b), "--runs-dir", runs], ROOT);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain("~ params.fast: 5 -> 10");
    expect(r.stdout).toContain(`First divergence at ${d.divergence.time}, bar `);
    expect(r.stdout).not.toContain("\u001b[");
    for (const line of r.stdout.split("\n")) expect(line.length, line).toBeLessThanOrEqual(100);
  });

  it("an unknown run is bad usage: exit code 2 with resolveRunDir's message", () => {
    const r = reportCli(["diff", idOf(a), "no-such-run", "--runs-dir", runs], ROOT);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('No run "no-such-run"');
    expect(r.stdout).toBe("");
  });
});

describe("diff of two memory settings (rsi-reversion without and with a preset note)", () => {
  let a = "";
  let b = "";
  let d: DiffOutput;
  beforeAll(() => {
    const preset = path.join(work, "experience.md");
    fs.writeFileSync(
      preset,
      "# Experience\n\nOversold dips in an uptrend recover more often than not.\n",
    );
    const common = RSI_SPY_RUN;
    a = runStrategy(common, ROOT, runs);
    b = runStrategy([...common, "--preset", `notes/experience.md=${preset}`], ROOT, runs);
    d = diffJson(a, b);
  });

  it("shows the preset in the config as added keys", () => {
    expect(d.config.added.map((x) => x.key).sort()).toEqual(["presets.0.file", "presets.0.target"]);
    expect(d.config.removed).toEqual([{ key: "presets", a: [] }]);
    expect(d.config.changed).toEqual([]);
  });

  it("reports the preset note as added, and the notes and reviews both runs wrote as unchanged", () => {
    expect(d.notes.added).toEqual(["notes/experience.md"]);
    expect(d.notes.removed).toEqual([]);
    // Every note and review names its run in the attribution line; those are ignored.
    expect(d.notes.changed).toEqual([]);
    expect(d.reviews.changed).toEqual([]);
    const reviews = fs.readdirSync(path.join(a, "reviews")).length;
    expect(reviews).toBeGreaterThan(0);
    expect(d.reviews.unchanged).toBe(reviews);
    expect(d.notes.unchanged).toBe(fs.readdirSync(path.join(a, "notes")).length);
  });

  it("a review that really differs is reported as changed", () => {
    const c = path.join(work, "copy-of-b");
    fse.copySync(b, c);
    const review = fs.readdirSync(path.join(c, "reviews")).sort()[0] as string;
    fs.appendFileSync(path.join(c, "reviews", review), "\nEdited by hand.\n");
    const edited = diffJson(a, c);
    expect(edited.reviews.changed).toEqual([`reviews/${review}`]);
  });

  it("keeps the playbook identical (the preset is a note, not the manual)", () => {
    expect(d.playbookDiff).toBe("");
  });

  it("counts journal days, entries and words from the journal files, equal for both runs", () => {
    const files = fs.readdirSync(path.join(a, "journal"));
    const entries = files
      .flatMap((f) => fs.readFileSync(path.join(a, "journal", f), "utf8").split("\n"))
      .filter((l) => /^\[\d\d:\d\d\]/.test(l));
    expect(d.journal.a.days).toBe(files.length);
    expect(d.journal.a.entries).toBe(entries.length);
    expect(d.journal.a.entries).toBeGreaterThan(0);
    const words = entries.map((l) => l.slice(7).split(/\s+/).filter(Boolean).length);
    expect(d.journal.a.words).toBe(words.reduce((x, y) => x + y, 0));
    expect(d.journal.b).toEqual(d.journal.a);
  });

  it("finds the same trades and decisions in both", () => {
    expect(d.trades.onlyA).toEqual([]);
    expect(d.trades.onlyB).toEqual([]);
    expect(d.divergence.diverged).toBe(false);
  });

  it("prints the added note and the journal table", () => {
    const r = reportCli(["diff", a, b, "--runs-dir", runs], ROOT);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/Notes: 1 added, 0 changed, 0 removed/);
    expect(r.stdout).toContain("  + notes/experience.md");
    expect(r.stdout).toContain("First divergence: none. Both runs made the same decisions");
    expect(r.stdout).toMatch(/entries\s+\d+\s+\d+/);
  });
});
