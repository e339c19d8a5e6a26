import fs from "node:fs";
import path from "node:path";
import fse from "fs-extra";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  listOutputSchema,
  showAtOutputSchema,
  showOutputSchema,
} from "../../../src/rundir/schemas.js";
import { ROOT, readJson, tempDir } from "../../helpers/cli.js";
import { idOf, jsonLines, RSI_SPY_RUN, reportCli, runStrategy } from "./report-cli.js";

const work = tempDir();
const runs = path.join(work, "runs");
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

interface Result {
  id: string;
  status: string;
  metrics: { returnPct: number; trades: number };
  benchmark: { metrics: { returnPct: number } };
}

let sma = "";
let rsi = "";
beforeAll(() => {
  sma = runStrategy(["strategies/sma-crossover.ts", "--data", "data/GOOG.csv"], ROOT, runs);
  rsi = runStrategy(RSI_SPY_RUN, ROOT, runs);
  // A run killed before it finished: its result.json is half written.
  const broken = path.join(runs, "20990101-000000-000-broken-zzzz");
  fs.mkdirSync(broken);
  fs.copyFileSync(path.join(sma, "config.json"), path.join(broken, "config.json"));
  fs.writeFileSync(path.join(broken, "result.json"), '{"schemaVersion": 1, "id": "2099');
});

describe("agenticbt list", () => {
  it("lists every run newest first with status, return and buy-and-hold from result.json", () => {
    const r = reportCli(["list", "--runs-dir", runs, "--json"], work);
    expect(r.status, r.stderr).toBe(0);
    const out = listOutputSchema.parse(JSON.parse(r.stdout));
    // The unreadable run has no start time: it comes last.
    expect(out.runs.map((x) => x.id)).toEqual([
      idOf(rsi),
      idOf(sma),
      "20990101-000000-000-broken-zzzz",
    ]);
    for (const [i, dir] of [rsi, sma].entries()) {
      const res = readJson<Result>(path.join(dir, "result.json"));
      expect(out.runs[i]).toMatchObject({
        status: "completed",
        returnPct: res.metrics.returnPct,
        buyHoldReturnPct: res.benchmark.metrics.returnPct,
        trades: res.metrics.trades,
        model: null,
        costUsd: null,
        error: null,
      });
    }
    expect(out.runs[1]?.strategy).toBe("sma-crossover");
  });

  it("keeps a run with an unreadable result.json, with the reason and the strategy from config.json", () => {
    const out = listOutputSchema.parse(
      JSON.parse(reportCli(["list", "--runs-dir", runs, "--json"], work).stdout),
    );
    const broken = out.runs.at(-1);
    expect(broken?.status).toBe("unreadable");
    expect(broken?.error).toMatch(/not valid JSON/);
    expect(broken?.strategy).toBe("sma-crossover");
  });

  it("prints a table within 100 columns, with ids the show command accepts", () => {
    const r = reportCli(["list", "--runs-dir", runs], work);
    expect(r.status, r.stderr).toBe(0);
    const lines = r.stdout.split("\n");
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(100);
    // The row whose (unique) id prefix is a prefix of the rsi run's id.
    const row =
      lines.slice(1).find((l) => {
        const shown = l.split(/\s{2,}/)[0];
        return shown !== undefined && idOf(rsi).startsWith(shown);
      }) ?? "";
    expect(row).toContain("rsi-reversion");
    const res = readJson<Result>(path.join(rsi, "result.json"));
    expect(row).toContain(res.metrics.returnPct.toFixed(2));
    expect(row).toContain(res.benchmark.metrics.returnPct.toFixed(2));
    expect(row).toContain("completed");
    const shown = row.split(/\s{2,}/)[0] ?? "";
    expect(idOf(rsi).startsWith(shown)).toBe(true);
    const show = reportCli(["show", shown, "--runs-dir", runs, "--json"], work);
    expect(show.status, show.stderr).toBe(0);
    expect(JSON.parse(show.stdout).id).toBe(idOf(rsi));
    expect(r.stdout).toMatch(/20990101-000000-000-broken-zzzz: unreadable: .*not valid JSON/);
  });

  it("says so when there are no runs", () => {
    const r = reportCli(["list", "--runs-dir", path.join(work, "none")], work);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("No runs in");
  });
});

describe("agenticbt show", () => {
  it("summarises a run: settings, the metrics table, memory stats and files", () => {
    const r = reportCli(["show", idOf(rsi), "--runs-dir", runs], work);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain("Params    period=14, oversold=30");
    expect(r.stdout).toContain("Window    2005-01-01 → 2009-12-31");
    expect(r.stdout).toMatch(/Return %\s+-?[\d.,]+\s+-?[\d.,]+/);
    expect(r.stdout).toMatch(/journal files \d+/);
    expect(r.stdout).not.toMatch(/journalFiles/);
    expect(r.stdout).toContain("decisions.jsonl");
  });

  it("--json carries result.json, config.json and the file list", () => {
    const r = reportCli(["show", rsi, "--json"], work);
    const out = showOutputSchema.parse(JSON.parse(r.stdout));
    expect(out.result).toEqual(readJson(path.join(rsi, "result.json")));
    expect(out.config.params).toEqual(
      readJson<{ params: unknown }>(path.join(rsi, "config.json")).params,
    );
    expect(out.files.find((f) => f.path === "reviews/")?.size).toBe(
      fs.readdirSync(path.join(rsi, "reviews")).length,
    );
    // Index health as result.json records it (older runners wrote none: null).
    expect(out.index).toEqual(
      readJson<{ index?: unknown }>(path.join(rsi, "result.json")).index ?? null,
    );
  });

  it("prints an Index line with the recall index's health when result.json has one", () => {
    const copy = path.join(work, "with-index");
    fse.copySync(rsi, copy);
    const file = path.join(copy, "result.json");
    const result = readJson(file);
    const index = {
      files: 7,
      chunks: 19,
      lastSync: "2026-01-02T03:04:05.000Z",
      errors: ["journal/x.md: unreadable", "notes/y.md: unreadable"],
      embeddings: null,
    };
    fs.writeFileSync(file, JSON.stringify({ ...result, index }));
    const r = reportCli(["show", copy], work);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /^Index\s+7 files, 19 chunks, last sync 2026-01-02T03:04:05.000Z, 2 errors$/m,
    );
    expect(
      showOutputSchema.parse(JSON.parse(reportCli(["show", copy, "--json"], work).stdout)).index,
    ).toEqual(index);
    fs.writeFileSync(file, JSON.stringify({ ...result, index: null }));
    expect(reportCli(["show", copy], work).stdout).not.toMatch(/^Index/m);
  });

  it("--at shows the decision of that bar with its orders", () => {
    const line = jsonLines(path.join(rsi, "decisions.jsonl")).find(
      (l) => (l.orders as unknown[]).length > 0,
    ) as { time: string; bar: number; orders: { id: number; side: string; tag: string }[] };
    const r = reportCli(["show", idOf(rsi), "--at", line.time, "--runs-dir", runs], work);
    expect(r.status, r.stderr).toBe(0);
    const order = line.orders[0];
    expect(r.stdout).toContain(`== ${line.time}  bar ${line.bar}  onBar ==`);
    expect(r.stdout).toContain(`#${order?.id} ${order?.side} market`);
    expect(r.stdout).toContain(order?.tag);
    const json = reportCli(
      ["show", idOf(rsi), "--at", line.time, "--runs-dir", runs, "--json"],
      work,
    );
    const out = showAtOutputSchema.parse(JSON.parse(json.stdout));
    expect(out.found).toBe(true);
    expect(out.decisions.map((d) => d.orders.map((o) => o.id))).toEqual([
      line.orders.map((o) => o.id),
    ]);
  });

  it("--at names a hook's decision by its hook, and its memory writes by tool, key and size", () => {
    const line = jsonLines(path.join(rsi, "decisions.jsonl")).find(
      (l) => l.kind === "fill" && (l.memory as unknown[]).length > 0,
    ) as { time: string; bar: number; memory: { tool: string; key?: string; chars: number }[] };
    const r = reportCli(["show", idOf(rsi), "--at", line.time, "--runs-dir", runs], work);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain(`== ${line.time}  bar ${line.bar}  onFill ==`);
    const m = line.memory[0] as { tool: string; key?: string; chars: number };
    expect(r.stdout).toContain(`${m.tool}${m.key ? ` ${m.key}` : ""} (${m.chars} chars)`);
    expect(r.stdout).not.toContain('"chars"');
  });

  it("--at a date without a decision names the nearest dates that have one (exit 0)", () => {
    const times = jsonLines(path.join(rsi, "decisions.jsonl")).map((l) => l.time as string);
    const gap = "2007-01-01"; // a holiday: no bar, so no decision
    const r = reportCli(["show", idOf(rsi), "--at", gap, "--runs-dir", runs, "--json"], work);
    expect(r.status, r.stderr).toBe(0);
    const out = showAtOutputSchema.parse(JSON.parse(r.stdout));
    expect(out.found).toBe(false);
    expect(out.nearby.before.at(-1)).toBe(times.filter((t) => t < gap).at(-1));
    expect(out.nearby.after[0]).toBe(times.find((t) => t > gap));
    const text = reportCli(["show", idOf(rsi), "--at", gap, "--runs-dir", runs], work);
    expect(text.stdout).toContain(`No decision at ${gap}`);
  });

  it("a bad --at date and an unknown run are bad usage (exit 2)", () => {
    const bad = reportCli(["show", idOf(rsi), "--at", "2007-02-30", "--runs-dir", runs], work);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain("is not a date");
    const missing = reportCli(["show", "nope", "--runs-dir", runs], work);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain('No run "nope"');
  });
});
