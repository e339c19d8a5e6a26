import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { tokensOf } from "../../src/sweep/experiment/experiment-estimate.js";
import { BIN, cliAsync, DATA, ROOT, readJson, tempDir } from "../helpers/cli.js";
import { startScriptedServer } from "../helpers/scripted-openai-server.js";
import { seededTrader } from "../helpers/seeded-trader.js";
import { TmuxPane } from "../helpers/tmux.js";

// The cost estimate an experiment prints before it starts, against what its runs are billed by a
// server that bills each request's characters (seededTrader), and the --yes it needs off a
// terminal. The acceptance experiment: 4 memory systems × 2 windows × 3 repeats.

const work = tempDir("agenticbt-experiment-estimate-");
const server = await startScriptedServer((req) => seededTrader(req));
const panes: TmuxPane[] = [];
afterAll(async () => {
  for (const pane of panes) pane.kill();
  await server.close();
  fs.rmSync(work, { recursive: true, force: true });
});
const ARGS = [
  "sweep",
  path.join(ROOT, "strategies", "rsi-mean-reversion.md"),
  "--data",
  path.join(DATA, "GOOG.csv"),
  "--grid",
  "memory=none,files,layered,persistent",
  "--windows",
  "2012-01-01:2012-06-30,2012-07-01:2012-12-31",
  "--repeats",
  "3",
  "--no-cache",
];
const ENV = { ...process.env, OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "test" };

interface Range {
  low: number;
  point: number;
  high: number;
}
interface Estimate {
  runs: number;
  decisions: number;
  calls: Range;
  tokens: Range;
  usd: Range | null;
  prices: string;
  cells: { label: string; tokens: Range; usd: Range | null; firstPromptTokens: number }[];
}

function run(args: string[], root: string) {
  const child = cliAsync([...args, "--runs-dir", path.join(work, root, "runs")], work, ENV);
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => {
    stdout += d;
  });
  child.stderr.on("data", (d) => {
    stderr += d;
  });
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on("exit", (code) => resolve({ code, stdout, stderr })),
  );
}
const sweepsIn = (root: string) => {
  const dir = path.join(work, root, "sweeps");
  return fs.existsSync(dir) ? fs.readdirSync(dir).map((d) => path.join(dir, d)) : [];
};
const chatCount = () => server.requests.filter((r) => r.path.endsWith("/chat/completions")).length;

describe("an experiment's cost estimate", () => {
  it("off a terminal, without --yes: prints the estimate and exits 2, starting nothing", async () => {
    const before = chatCount();
    const r = await run(ARGS, "refused");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("add --yes");
    expect(r.stdout).toContain("Estimate: 24 runs");
    for (const cell of ["memory=none", "memory=files", "memory=layered", "memory=persistent"])
      expect(r.stdout).toMatch(new RegExp(`\\n${cell} +6 +~`));
    expect(r.stdout).toContain("the default price table");
    expect(sweepsIn("refused")).toEqual([]);
    expect(chatCount()).toBe(before);
  });

  it("with --json, refused: the estimate object on stdout", async () => {
    const r = await run([...ARGS, "--json"], "refused-json");
    expect(r.code).toBe(2);
    const { estimate } = JSON.parse(r.stdout) as { estimate: Estimate };
    expect(estimate.runs).toBe(24);
    expect(estimate.cells).toHaveLength(4);
  });

  it("shows an unknown price as unknown, never $0", async () => {
    const r = await run([...ARGS, "--model", "no-such-model-xyz"], "unpriced");
    expect(r.code).toBe(2);
    expect(r.stdout).toContain("$ unknown");
    expect(r.stdout).not.toMatch(/\$0\.00\b/);
    const j = await run([...ARGS, "--model", "no-such-model-xyz", "--json"], "unpriced-json");
    const { estimate } = JSON.parse(j.stdout) as { estimate: Estimate };
    expect(estimate.usd).toBeNull();
    for (const c of estimate.cells) expect(c.usd).toBeNull();
  });

  describe("with --yes", async () => {
    const before = chatCount();
    const r = await run([...ARGS, "--yes", "--json"], "ran");
    const calls = chatCount() - before;
    const out = JSON.parse(r.stdout) as { done: number; estimate: Estimate };
    const [dir] = sweepsIn("ran");
    const lines = fs
      .readFileSync(path.join(dir as string, "results.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { cell: number; runId: string });
    const billedOf = (runId: string) => {
      const result = readJson<{
        llm: { usage: { billedTokens: { prompt: number; completion: number } } };
      }>(path.join(work, "ran", "runs", runId, "result.json"));
      const b = result.llm.usage.billedTokens;
      return b.prompt + b.completion;
    };
    const billed = lines.reduce((n, l) => n + billedOf(l.runId), 0);

    it("runs, and its --json output holds the estimate", () => {
      expect(r.code, r.stderr).toBe(0);
      expect(out.done).toBe(24);
      expect(out.estimate.runs).toBe(24);
      // Kept with the experiment, beside what its runs are billed.
      expect(
        readJson<{ estimate: Estimate }>(path.join(dir as string, "config.json")).estimate,
      ).toEqual(out.estimate);
      // 2 windows of about 125 daily bars, a decision at each, for each of the 24 runs.
      expect(out.estimate.decisions).toBeGreaterThan(24 * 120);
    });

    it("estimated the billed tokens within ±25%, and the calls within their range", () => {
      const e = out.estimate.tokens;
      const off = (e.point - billed) / billed;
      process.stderr.write(
        `estimate ${e.point} tokens (${e.low}..${e.high}), billed ${billed}: ${(off * 100).toFixed(1)}%; calls ${out.estimate.calls.point} estimated, ${calls} made\n`,
      );
      expect(Math.abs(off)).toBeLessThanOrEqual(0.25);
      expect(billed).toBeGreaterThanOrEqual(e.low);
      expect(billed).toBeLessThanOrEqual(e.high);
      expect(calls).toBeGreaterThanOrEqual(out.estimate.calls.low);
      expect(calls).toBeLessThanOrEqual(out.estimate.calls.high);
    });

    it("estimated each cell within ±25% of its runs' bill", () => {
      for (const [k, c] of out.estimate.cells.entries()) {
        const cellBilled = lines
          .filter((l) => l.cell === k)
          .reduce((n, l) => n + billedOf(l.runId), 0);
        const off = (c.tokens.point - cellBilled) / cellBilled;
        process.stderr.write(
          `${c.label}: first prompt ${c.firstPromptTokens}, estimate ${c.tokens.point}, billed ${cellBilled}: ${(off * 100).toFixed(1)}%\n`,
        );
        expect(Math.abs(off), c.label).toBeLessThanOrEqual(0.25);
      }
    });

    it("measured each cell's first prompt as its runs sent it", () => {
      const sent = server.requests
        .slice(before)
        .filter((r) => r.path.endsWith("/chat/completions"));
      const systemOf = (c: string) =>
        c.includes("You have no memory")
          ? "memory=none"
          : c.includes("Your memory is layered")
            ? "memory=layered"
            : c.includes("persistent memory shared")
              ? "memory=persistent"
              : "memory=files";
      for (const cell of out.estimate.cells) {
        const firsts = sent
          .map((r) => r.body as { messages: { content: string }[]; tools: unknown[] })
          .filter(
            (b) =>
              systemOf(b.messages[0]?.content ?? "") === cell.label &&
              (b.messages[1]?.content ?? "").startsWith("# Now\n\nBar 1 of") &&
              b.messages.length === 2 &&
              JSON.stringify(b.tools).includes("place_order"),
          )
          .map((b) => tokensOf(JSON.stringify(b.messages).length + JSON.stringify(b.tools).length));
        // 2 windows × 3 repeats; the repeats' first prompts are the same (the seed is not in them).
        expect(firsts).toHaveLength(6);
        expect(new Set(firsts).size).toBeLessThanOrEqual(2);
        const mean = firsts.reduce((a, b) => a + b, 0) / firsts.length;
        expect(cell.firstPromptTokens, cell.label).toBe(Math.round(mean));
      }
    });

    it("--replay needs no --yes: it makes no call", async () => {
      const before = chatCount();
      const replay = await run(["sweep", "--replay", dir as string, "--json"], "ran");
      expect(replay.code, replay.stderr).toBe(0);
      expect(chatCount()).toBe(before);
      expect(JSON.parse(replay.stdout)).not.toHaveProperty("estimate");
    });
  });

  it("on a terminal, asks 'Start N runs? [y/N]' after the estimate: n starts nothing, y runs", async () => {
    const small = [...ARGS.slice(0, 5), "memory=none", "--windows", "2012-01-01:2012-03-31"];
    const ask = async (answer: string, root: string) => {
      const pane = new TmuxPane(
        [
          process.execPath,
          BIN,
          ...small,
          "--every",
          "20",
          "--runs-dir",
          path.join(work, root, "runs"),
        ],
        { cwd: work, env: { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "test" } },
      );
      panes.push(pane);
      const end = Date.now() + 30_000;
      while (!pane.capture().includes("Start 1 run? [y/N]") && Date.now() < end)
        await new Promise((r) => setTimeout(r, 50));
      const screen = pane.capture();
      expect(screen).toContain("Estimate: 1 run,");
      pane.sendKeys(answer, "Enter");
      return { code: await pane.waitForExit(60_000), screen: () => pane.capture() };
    };
    const before = chatCount();
    const no = await ask("n", "tty-no");
    expect(no.code).toBe(0);
    expect(no.screen()).toContain("Not started.");
    expect(sweepsIn("tty-no")).toEqual([]);
    expect(chatCount()).toBe(before);
    const yes = await ask("y", "tty-yes");
    expect(yes.code).toBe(0);
    expect(sweepsIn("tty-yes")).toHaveLength(1);
    expect(chatCount()).toBeGreaterThan(before);
  });
});
