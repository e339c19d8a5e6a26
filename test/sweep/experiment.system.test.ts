import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cli, cliAsync, DATA, ROOT, readJson, tempDir } from "../helpers/cli.js";
import { toolNames } from "../helpers/llm-run.js";
import { type RecordedRequest, startScriptedServer } from "../helpers/scripted-openai-server.js";
import { seededTrader } from "../helpers/seeded-trader.js";

// An LLM experiment end to end, as a researcher runs it: 4 memory systems × 2 windows × 3
// repeats against a server that answers by the request's seed, then its replay (no network) and
// a kill -9 + resume.

const work = tempDir("agenticbt-experiment-");
const server = await startScriptedServer((req) => seededTrader(req));
afterAll(async () => {
  await server.close();
  fs.rmSync(work, { recursive: true, force: true });
});
fs.copyFileSync(path.join(DATA, "GOOG.csv"), path.join(work, "GOOG.csv"));
const STRATEGY = path.join(ROOT, "strategies", "rsi-mean-reversion.md");
const WINDOWS = ["2012-01-01", "2012-06-30", "2012-07-01", "2012-12-31"] as const;
const ARGS = [
  "--data",
  "GOOG.csv",
  "--grid",
  "memory=none,files,layered,persistent",
  "--windows",
  `${WINDOWS[0]}:${WINDOWS[1]},${WINDOWS[2]}:${WINDOWS[3]}`,
  "--repeats",
  "3",
  // A decision every 5 bars keeps the 24 runs quick; every run is still a full run directory.
  "--every",
  "5",
  // Off a terminal, an experiment starts only with --yes (it prints its cost estimate first).
  "--yes",
];
const ENV = { ...process.env, OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "test" };

interface Line {
  key: string;
  cell: number;
  window: number;
  repeat: number;
  seed: number;
  runId: string;
  status: string;
  metrics: Record<string, number | null>;
  buyHoldReturnPct: number | null;
  calls: { network: number; cache: number; replay: number };
}

function run(args: string[], killAfterLines: number | null = null, root = "exp") {
  const child = cliAsync([...args, "--runs-dir", path.join(work, root, "runs")], work, ENV);
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => {
    stdout += d;
  });
  child.stderr.on("data", (d) => {
    stderr += d;
    if (killAfterLines !== null && (stderr.match(/^\[\d+\/\d+\]/gm) ?? []).length >= killAfterLines)
      child.kill("SIGKILL");
  });
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on("exit", (code) => resolve({ code, stdout, stderr })),
  );
}

const sweepsOf = (root: string) => path.join(work, root, "sweeps");
const dirsOf = (root: string) =>
  fs.existsSync(sweepsOf(root))
    ? fs
        .readdirSync(sweepsOf(root))
        .sort()
        .map((d) => path.join(sweepsOf(root), d))
    : [];
const linesOf = (dir: string): Line[] =>
  fs
    .readFileSync(path.join(dir, "results.jsonl"), "utf8")
    .split("\n")
    .filter((l) => l.endsWith("}"))
    .map((l) => JSON.parse(l) as Line);
const chat = (rs: readonly RecordedRequest[]) =>
  rs.filter((r) => r.path.endsWith("/chat/completions"));
const TRADING = ["returnPct", "sharpe", "maxDrawdownPct", "trades", "turnover"] as const;
const trading = (l: Line) => Object.fromEntries(TRADING.map((m) => [m, l.metrics[m]]));

describe("sweep of an LLM strategy over memory × windows × repeats", async () => {
  const first = await run(["sweep", STRATEGY, ...ARGS]);
  const requestsAfterRun = chat(server.requests).length;
  const [dir] = dirsOf("exp");
  const lines = linesOf(dir as string);
  const summary = readJson<{
    status: string;
    total: number;
    cells: { label: string; runs: number; metrics: Record<string, { n: number }> }[];
    comparisons: Record<
      string,
      { cell: string; baseline: string; pairs: number; difference: { mean: { value: number } } }[]
    >;
    sentences: string[];
    buyAndHold: { window: string; returnPct: number | null }[];
    deflatedSharpe: { trials: number; label: string | null; dsr: { value: number | null } };
  }>(path.join(dir as string, "summary.json"));
  const runDir = (l: Line) => path.join(work, "exp", "runs", l.runId);

  it("makes 24 runs, each a completed run directory, and exits 0", () => {
    expect(first.code, first.stderr).toBe(0);
    expect(lines).toHaveLength(24);
    expect(new Set(lines.map((l) => l.key)).size).toBe(24);
    for (const l of lines) {
      expect(l.status).toBe("completed");
      const result = readJson<{ status: string; period: { start: string; end: string } }>(
        path.join(runDir(l), "result.json"),
      );
      expect(result.status).toBe("completed");
      const [from, to] = l.window === 0 ? [WINDOWS[0], WINDOWS[1]] : [WINDOWS[2], WINDOWS[3]];
      expect(result.period.start >= from && result.period.end <= to).toBe(true);
    }
    expect(fs.existsSync(path.join(dir as string, "report.html"))).toBe(true);
    expect(summary.status).toBe("completed");
  });

  it("is listed by agenticbt list among the sweeps", () => {
    const listed = cli(["list", "--json", "--runs-dir", path.join(work, "exp", "runs")], work);
    expect(listed.status).toBe(0);
    const { sweeps } = JSON.parse(listed.stdout) as {
      sweeps: { id: string; status: string; done: number; total: number; objective: string }[];
    };
    const row = sweeps.find((x) => x.id === path.basename(dir as string));
    expect(row).toMatchObject({ status: "completed", done: 24, total: 24 });
    expect(row?.objective).toBe("experiment: 4 cells × 2 windows × 3 repeats");
  });

  it("sends each repeat its own seed, so no repeat is served another's answers", () => {
    for (const l of lines) {
      expect(l.seed).toBe(l.repeat);
      const config = readJson<{ agent: { seed: number } }>(path.join(runDir(l), "config.json"));
      expect(config.agent.seed).toBe(l.repeat);
      // The cache is on: a repeat answered from another's entries would make no network call.
      expect(l.calls.network).toBeGreaterThan(0);
    }
    const seeds = new Set(chat(server.requests).map((r) => (r.body as { seed?: number }).seed));
    expect([...seeds].sort()).toEqual([1, 2, 3]);
    // The trader answers by seed: the repeats of one cell and window do not all trade alike.
    const cell0 = lines
      .filter((l) => l.cell === 0 && l.window === 0)
      .map((l) => l.metrics.returnPct);
    expect(new Set(cell0).size).toBeGreaterThan(1);
  });

  it("gives the none cell no memory tools", () => {
    const none = chat(server.requests).filter((r) =>
      String((r.body as { messages: { content: string }[] }).messages[0]?.content).includes(
        "You have no memory",
      ),
    );
    expect(none.length).toBeGreaterThan(0);
    for (const r of none) expect(toolNames(r).filter((n) => n.startsWith("memory_"))).toEqual([]);
  });

  it("summarises each cell over its 6 runs and compares it with none, paired", () => {
    expect(summary.cells.map((c) => c.label)).toEqual([
      "memory=none",
      "memory=files",
      "memory=layered",
      "memory=persistent",
    ]);
    for (const c of summary.cells) {
      expect(c.runs).toBe(6);
      expect(c.metrics.returnPct?.n).toBe(6);
    }
    const returns = summary.comparisons.returnPct ?? [];
    expect(returns.map((c) => c.cell)).toEqual([
      "memory=files",
      "memory=layered",
      "memory=persistent",
    ]);
    for (const [k, c] of returns.entries()) {
      expect(c.baseline).toBe("memory=none");
      expect(c.pairs).toBe(6);
      // The mean difference, by hand from results.jsonl: pairs on (window, repeat).
      const diffs = lines
        .filter((l) => l.cell === k + 1)
        .map((l) => {
          const base = lines.find(
            (b) => b.cell === 0 && b.window === l.window && b.repeat === l.repeat,
          );
          return (l.metrics.returnPct as number) - (base?.metrics.returnPct as number);
        });
      const mean = diffs.reduce((a, b) => a + b, 0) / diffs.length;
      expect(c.difference.mean.value).toBeCloseTo(mean, 9);
    }
    expect(summary.sentences).toHaveLength(3);
    for (const s of summary.sentences) expect(s).toContain("none");
    expect(first.stdout).toContain(summary.sentences[0]);
  });

  it("records each run's turnover as compare measures it, and deflates the best cell", () => {
    let traded = 0;
    for (const l of lines) {
      // By hand: every fill's |qty × price| ÷ the mean of equity.csv's equity column.
      const fills = fs
        .readFileSync(path.join(runDir(l), "orders.jsonl"), "utf8")
        .split("\n")
        .filter((x) => x !== "")
        .map((x) => JSON.parse(x) as { event?: string; qty?: number; price?: number })
        .filter((o) => o.event === "fill");
      const value = fills.reduce((a, o) => a + Math.abs((o.qty ?? 0) * (o.price ?? 0)), 0);
      const [head, ...rows] = fs
        .readFileSync(path.join(runDir(l), "equity.csv"), "utf8")
        .trim()
        .split("\n");
      const col = (head ?? "").split(",").indexOf("equity");
      const equity = rows.map((r) => Number(r.split(",")[col]));
      const mean = equity.reduce((a, b) => a + b, 0) / equity.length;
      expect(l.metrics.turnover).toBeCloseTo(value / mean, 12);
      traded += value;
    }
    expect(traded).toBeGreaterThan(0);
    for (const c of summary.cells) expect(c.metrics.turnover?.n).toBe(6);
    const d = summary.deflatedSharpe;
    expect(d.trials).toBe(4);
    expect(summary.cells.map((c) => c.label)).toContain(d.label);
    // Every run has more than 4 bars: the moments are defined, so the DSR is a probability.
    expect(d.dsr.value).toBeGreaterThanOrEqual(0);
    expect(d.dsr.value).toBeLessThanOrEqual(1);
    expect(first.stdout).toContain(
      `Deflated Sharpe Ratio ${d.dsr.value?.toFixed(3)} for ${d.label}`,
    );
  });

  it("reports buy-and-hold on each window, from the runs' own benchmark", () => {
    expect(summary.buyAndHold.map((b) => b.window)).toEqual([
      `${WINDOWS[0]}:${WINDOWS[1]}`,
      `${WINDOWS[2]}:${WINDOWS[3]}`,
    ]);
    for (const [w, b] of summary.buyAndHold.entries()) {
      const l = lines.find((x) => x.window === w) as Line;
      const result = readJson<{ benchmark: { metrics: { returnPct: number } } }>(
        path.join(runDir(l), "result.json"),
      );
      expect(b.returnPct).toBe(result.benchmark.metrics.returnPct);
    }
    // The two halves of 2012 differ: one figure per window, not one copied.
    expect(summary.buyAndHold[0]?.returnPct).not.toBe(summary.buyAndHold[1]?.returnPct);
  });

  it("replays the whole experiment with zero requests and identical results", async () => {
    const replay = await run(["sweep", "--replay", dir as string]);
    expect(replay.code, replay.stderr).toBe(0);
    expect(chat(server.requests).length).toBe(requestsAfterRun);
    const replayDir = dirsOf("exp").find((d) => d !== dir) as string;
    const again = linesOf(replayDir);
    expect(again.map((l) => l.key)).toEqual(lines.map((l) => l.key));
    for (const [i, l] of again.entries()) {
      expect(trading(l)).toEqual(trading(lines[i] as Line));
      expect(l.metrics.tokens).toBe(lines[i]?.metrics.tokens);
      expect(l.calls.network).toBe(0);
      expect(l.calls.replay).toBeGreaterThan(0);
    }
    const replayed = readJson<{ comparisons: unknown; cells: unknown }>(
      path.join(replayDir, "summary.json"),
    );
    const { returnPct } = replayed.comparisons as Record<string, unknown>;
    expect(returnPct).toEqual(summary.comparisons.returnPct);
  });

  it("resumes an experiment run 2 at a time and killed with kill -9 to the same results", async () => {
    // Two runs in flight: the kill leaves up to two to resume, and --jobs must not change a figure.
    const killed = await run(["sweep", STRATEGY, ...ARGS, "--jobs", "2"], 7, "killed");
    expect(killed.code).not.toBe(0);
    const [kdir] = dirsOf("killed");
    const before = linesOf(kdir as string).length;
    expect(before).toBeGreaterThanOrEqual(7);
    expect(before).toBeLessThan(24);
    // The runs that had started and not finished: resume goes on from their checkpoints.
    const started = fs
      .readFileSync(path.join(kdir as string, "started.jsonl"), "utf8")
      .split("\n")
      .filter((l) => l.endsWith("}"))
      .map((l) => (JSON.parse(l) as { key: string }).key);
    const finished = new Set(linesOf(kdir as string).map((l) => l.key));
    const inFlight = started.filter((k) => !finished.has(k));
    const resumed = await run(["resume", kdir as string], null, "killed");
    for (const key of inFlight)
      expect(resumed.stderr).toContain(`${key}: resuming from its checkpoint`);
    expect(resumed.code, resumed.stderr).toBe(0);
    const after = linesOf(kdir as string);
    expect(after).toHaveLength(24);
    expect(new Set(after.map((l) => l.key)).size).toBe(24);
    for (const l of after) {
      const same = lines.find((x) => x.key === l.key) as Line;
      expect(trading(l), l.key).toEqual(trading(same));
    }
  });
});
