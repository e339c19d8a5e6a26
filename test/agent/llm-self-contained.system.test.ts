import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import fse from "fs-extra";
import { afterAll, describe, expect, it } from "vitest";
import { cliRun, DATA, ROOT, replayArgs, runArgs, tempDir } from "../helpers/cli.js";
import { barOf, isMoment, readJsonl, sliceCsv, turnMessages } from "../helpers/llm-run.js";
import {
  type RecordedRequest,
  type Step,
  startScriptedServer,
} from "../helpers/scripted-openai-server.js";

const work = tempDir();
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

const sha256 = (text: string | Buffer) => createHash("sha256").update(text).digest("hex");

/** Buys on bar 1 and sells on bar 4 of every 6, so the run has trades to compare. */
function swing(req: RecordedRequest): Step {
  if (turnMessages(req).some((m) => m.role === "tool")) return { content: "done" };
  if (isMoment(req)) return { content: "noted" };
  const bar = barOf(req);
  const side = bar % 6 === 1 ? "buy" : bar % 6 === 4 ? "sell" : null;
  if (side === null) return { content: "hold" };
  const args = side === "buy" ? { fraction_of_equity: 1 } : { target_weight: 0 };
  return {
    toolCalls: [
      { name: "place_order", arguments: JSON.stringify({ symbol: "SPY", side, ...args }) },
    ],
  };
}

describe("a run is self-contained: the strategy is stored in its directory", async () => {
  const server = await startScriptedServer(swing);
  afterAll(() => server.close());
  const spy = sliceCsv(path.join(DATA, "SPY_D.csv"), 14, work, "SPY.csv");
  const runsRoot = path.join(work, "runs");
  const chatCount = () =>
    server.requests.filter((r) => r.path.endsWith("/chat/completions")).length;
  const strategyFile = path.join(work, "swing.md");
  const promptText = "# Swing\n\nBuy SPY, then sell it three bars later.\n";
  fs.writeFileSync(strategyFile, promptText);

  const rec = await cliRun(
    [
      "run",
      strategyFile,
      "--data",
      spy,
      "--base-url",
      server.url,
      "--no-cache",
      "--runs-dir",
      runsRoot,
      "--json",
    ],
    work,
  );
  const original = JSON.parse(rec.stdout || "{}");
  const dir = path.join(runsRoot, original.id ?? "none");

  it("stores the prompt text as strategy.md, its sha256 in config.json and result.json", () => {
    expect(rec.status, rec.stderr).toBe(0);
    expect(fs.readFileSync(path.join(dir, "strategy.md"), "utf8")).toBe(promptText);
    const config = JSON.parse(fs.readFileSync(path.join(dir, "config.json"), "utf8"));
    expect(config.strategyCopy).toEqual({ file: "strategy.md", sha256: sha256(promptText) });
    expect(original.strategy).toMatchObject({ file: "strategy.md", sha256: sha256(promptText) });
    expect(readJsonl(path.join(dir, "orders.jsonl")).length).toBeGreaterThan(0);
  });

  for (const change of ["modified", "deleted"] as const) {
    it(`--replay reproduces the run from the stored copy with the original ${change}`, async () => {
      if (change === "modified") fs.writeFileSync(strategyFile, "# Something else entirely\n");
      else fs.rmSync(strategyFile, { force: true });
      const before = chatCount();
      const rep = await cliRun(replayArgs(original.id, runsRoot, "--json"), work);
      expect(rep.status, rep.stderr).toBe(0);
      const replayed = JSON.parse(rep.stdout);
      expect(chatCount()).toBe(before);
      expect(replayed.llm.usage.calls.network).toBe(0);
      expect(replayed.llm.usage.calls.replay).toBe(original.llm.usage.calls.total);
      const rdir = path.join(runsRoot, replayed.id);
      expect(fs.readFileSync(path.join(rdir, "trades.csv"), "utf8")).toBe(
        fs.readFileSync(path.join(dir, "trades.csv"), "utf8"),
      );
      expect(readJsonl(path.join(rdir, "orders.jsonl"))).toEqual(
        readJsonl(path.join(dir, "orders.jsonl")),
      );
      expect(replayed.metrics).toEqual(original.metrics);
      expect(replayed.strategy.sha256).toBe(sha256(promptText));
    });
  }

  it("refuses to replay from a stored prompt that was changed after the run (exit 2)", async () => {
    const copy = path.join(work, "tampered");
    fse.copySync(dir, copy);
    fs.appendFileSync(path.join(copy, "strategy.md"), "\nAlso short everything.\n");
    const rep = await cliRun(replayArgs(copy, runsRoot, "--json"), work);
    expect(rep.status, rep.stderr).toBe(2);
    expect(rep.stderr).toContain("strategy.md");
    expect(rep.stderr).toContain("sha256");
  });

  it("stores an inline --prompt the same way", async () => {
    const r = await cliRun(
      [
        "run",
        "--prompt",
        "hold forever",
        "--data",
        spy,
        "--base-url",
        server.url,
        "--no-cache",
        "--runs-dir",
        runsRoot,
        "--json",
        "--no-moments",
      ],
      work,
    );
    expect(r.status, r.stderr).toBe(0);
    const res = JSON.parse(r.stdout);
    expect(fs.readFileSync(path.join(runsRoot, res.id, "strategy.md"), "utf8")).toBe(
      "hold forever",
    );
    expect(res.strategy.sha256).toBe(sha256("hold forever"));
  });

  it("stores a code strategy's file, with its sha256", async () => {
    const source = path.join(ROOT, "strategies", "buy-and-hold.ts");
    const r = await cliRun(runArgs(source, spy, runsRoot, "--json"), work);
    expect(r.status, r.stderr).toBe(0);
    const res = JSON.parse(r.stdout);
    const code = fs.readFileSync(source);
    expect(fs.readFileSync(path.join(runsRoot, res.id, "strategy.ts"))).toEqual(code);
    expect(res.strategy).toMatchObject({ file: "strategy.ts", sha256: sha256(code) });
    const config = JSON.parse(fs.readFileSync(path.join(runsRoot, res.id, "config.json"), "utf8"));
    expect(config.strategyCopy).toEqual({ file: "strategy.ts", sha256: sha256(code) });
  });
});
