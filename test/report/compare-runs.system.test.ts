import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { defaultPageName } from "../../src/cli/commands/compare-command.js";
import { formatCompare } from "../../src/cli/commands/format-compare.js";
import { compareRuns } from "../../src/report/compare-runs.js";
import { renderComparePage } from "../../src/report/html/compare-page.js";
import { cli, DATA, runArgs, tempDir } from "../helpers/cli.js";
import { barOf, isMoment, readJsonl, runLlm, sliceCsv, turnMessages } from "../helpers/llm-run.js";
import {
  type RecordedRequest,
  type Step,
  startScriptedServer,
} from "../helpers/scripted-openai-server.js";

const work = tempDir();
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

const spy = sliceCsv(path.join(DATA, "SPY_D.csv"), 10, work, "SPY.csv");
const runsRoot = path.join(work, ".agenticbt", "runs");

/** Each system's write and recall, as its own tools name them. */
const TOOLS: Record<string, { write: [string, object]; recall: [string, object] }> = {
  files: {
    write: ["memory_log", { content: "SPY gap faded by noon" }],
    recall: ["memory_recall", { query: "SPY gap" }],
  },
  layered: {
    write: ["memory_store", { content: "SPY gap faded by noon", importance: 70 }],
    // Layered recall needs a token cosine of 0.7: 3 / sqrt(3 × 5) = 0.775 ("SPY gap": 0.632).
    recall: ["memory_recall", { query: "SPY gap faded" }],
  },
  persistent: {
    write: ["remember", { action: "save", title: "Gap fade", content: "SPY gap faded by noon" }],
    recall: ["remember", { action: "recall", query: "SPY gap" }],
  },
};

/** Bar 2 writes, bar 3 recalls, bar 4 buys 1 share, bar 5 buys more than the cash allows (the
 * broker rejects it), bar 6 fails (an empty answer); every other decision holds. */
function trader(req: RecordedRequest): Step {
  if (turnMessages(req).some((m) => m.role === "tool")) return { content: "done" };
  if (isMoment(req)) return { content: "nothing to add" };
  const system = /memory_store/.test(JSON.stringify(req.body))
    ? "layered"
    : /"remember"/.test(JSON.stringify(req.body))
      ? "persistent"
      : "files";
  const t = TOOLS[system] as (typeof TOOLS)[string];
  const call = (name: string, args: object) => ({
    toolCalls: [{ name, arguments: JSON.stringify(args) }],
  });
  switch (barOf(req)) {
    case 2:
      return call(...t.write);
    case 3:
      return call(...t.recall);
    case 4:
      return call("place_order", { symbol: "SPY", side: "buy", quantity: 1 });
    case 5:
      return call("place_order", { symbol: "SPY", side: "buy", quantity: 1_000_000 });
    case 6:
      return { content: "" };
    default:
      return { content: "hold" };
  }
}

describe("compare: the same counters and behaviour rows for every memory system", async () => {
  const server = await startScriptedServer(trader);
  afterAll(() => server.close());
  const dirs: string[] = [];
  for (const system of ["files", "layered", "persistent"]) {
    const { dir } = await runLlm({
      baseURL: server.url,
      data: [spy],
      runsRoot,
      memory: { system, config: system === "persistent" ? { namespace: "compare" } : null },
      agent: { modelCutoff: "1990-01-01" },
    });
    dirs.push(dir);
  }
  const c = compareRuns(dirs);

  it("counts each system's one write, one recall and its citations alike", () => {
    for (const [i, r] of c.runs.entries()) {
      const lines = readJsonl(path.join(dirs[i] as string, "decisions.jsonl"));
      const recorded = lines.flatMap((l) => l.recalls as { citations: unknown[] }[]);
      expect([r.memorySystem, r.common.writes, r.common.recalls]).toEqual([r.memorySystem, 1, 1]);
      expect(r.common.citations).toBe(recorded[0]?.citations.length);
      expect(r.common.citations).toBeGreaterThan(0);
      // One system prompt for the whole run: its prefix never changed.
      expect(r.common.prefixHashes).toBe(1);
      expect(r.common.promptShare).toBeGreaterThan(0);
      expect(r.common.promptShare).toBeLessThan(1);
      expect(r.common.indexHealth).toBe("ok");
    }
    // Files reports no recall in its own statistics; the common row has it.
    expect(c.runs[0]?.memory).not.toHaveProperty("recalls");
  });

  it("sorts the decisions by outcome and measures turnover and holding", () => {
    for (const [i, r] of c.runs.entries()) {
      const decisions = readJsonl(path.join(dirs[i] as string, "decisions.jsonl")).filter(
        (l) => l.type === "decision",
      );
      const d = r.behaviour.decisions;
      expect(d).toMatchObject({ orders: 1, allRejected: 1, failed: 1 });
      expect(d.orders + d.hold + d.failed + d.allRejected).toBe(decisions.length);
      // One share bought at bar 5's open, held to the end: turnover = its price ÷ mean equity.
      const fill = readJsonl(path.join(dirs[i] as string, "orders.jsonl")).find(
        (o) => o.event === "fill",
      ) as { price: number; bar: number };
      const equity = fs
        .readFileSync(path.join(dirs[i] as string, "equity.csv"), "utf8")
        .trim()
        .split("\n")
        .slice(1)
        .map((l) => Number(l.split(",")[1]));
      const mean = equity.reduce((a, b) => a + b, 0) / equity.length;
      expect(r.behaviour.turnover).toBeCloseTo(fill.price / mean, 12);
      expect(r.behaviour.avgHoldingBars).toBeGreaterThan(0);
    }
  });

  it("shows window, data, strategy and model, and warns only when they differ", () => {
    expect(c.warnings).toEqual([]);
    const text = formatCompare(c);
    expect(text).not.toContain("warning:");
    const row = (label: string) => text.split("\n").find((l) => l.trim().startsWith(label));
    expect(row("window")).toContain("1999-11-01..1999-11-12");
    expect(row("model")).toContain("gpt-4o-mini");
    expect(row("data")).toMatch(/SPY [0-9a-f]{12}/);
    expect(row("writes")?.trim().split(/\s+/).slice(1)).toEqual(["1", "1", "1"]);
    expect(row("recalls")?.trim().split(/\s+/).slice(1)).toEqual(["1", "1", "1"]);
  });

  it("warns when the windows differ", async () => {
    const { dir } = await runLlm({
      baseURL: server.url,
      data: [spy],
      runsRoot,
      to: "1999-11-10",
      agent: { modelCutoff: "1990-01-01" },
    });
    const other = compareRuns([dirs[0] as string, dir]);
    expect(other.warnings).toEqual([expect.stringMatching(/different windows/)]);
    expect(formatCompare(other).split("\n")[0]).toMatch(/^warning: .*different windows/);
  });

  it("--html overlays every run's equity curve in an offline page", () => {
    const html = renderComparePage(c);
    expect(html.match(/<polyline /g)).toHaveLength(3);
    for (const r of c.runs) expect(html).toContain(`<title>${r.id} (${r.memorySystem})</title>`);
    expect(html).not.toMatch(/<script|src="http/);
  });
});

describe("compare --html of 6 runs with long names (the CLI)", () => {
  it("writes its page under the default name (the ids joined were too long a file name)", () => {
    const dir = fs.mkdtempSync(path.join(work, "six-"));
    const runs = path.join(dir, "runs");
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const r = cli(
        [
          ...runArgs("strategies/sma-crossover.ts", path.join(DATA, "GOOG.csv"), runs),
          "--to",
          "2004-10-31",
          "--name",
          `rsi-mean-reversion-memory-experiment-${i}`,
          "--json",
        ],
        dir,
      );
      expect(r.status, r.stderr).toBe(0);
      ids.push(JSON.parse(r.stdout).id);
    }
    expect(`compare-${ids.join("-")}.html`.length).toBeGreaterThan(255);
    const r = cli(["compare", ...ids, "--runs-dir", runs, "--html"], dir);
    expect(r.status, r.stderr).toBe(0);
    const page = path.join(dir, defaultPageName(ids));
    expect(r.stderr).toContain(`Wrote ${page}`);
    expect(fs.readFileSync(page, "utf8").match(/<polyline /g)).toHaveLength(6);
  });
});

describe("compare --html's default file name", () => {
  it("stays short for many runs, and differs for other runs", () => {
    const ids = Array.from(
      { length: 6 },
      (_, i) => `20261127-1439${i}4-945-rsi-mean-reversion-87e${i}`,
    );
    const name = defaultPageName(ids);
    expect(name).toMatch(/^compare-6-runs-[0-9a-f]{10}\.html$/);
    expect(defaultPageName(ids.slice(1))).not.toBe(name);
    const file = path.join(work, name);
    fs.writeFileSync(file, "x");
    expect(fs.existsSync(file)).toBe(true);
  });
});
