import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import fse from "fs-extra";
import { afterAll, describe, expect, it } from "vitest";
import { BIN, cliRun, comparableResult, DATA, ROOT, tempDir } from "../helpers/cli.js";
import { barOf, isMoment, sliceCsv, turnMessages } from "../helpers/llm-run.js";
import {
  type RecordedRequest,
  type Step,
  startScriptedServer,
} from "../helpers/scripted-openai-server.js";

const work = tempDir();
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

/**
 * Buys every 5th bar and sells 2 bars later, journals in moments; each answer takes 15 ms. Tool
 * call ids are named by the bar (the server's default counts its requests, which differ between
 * a killed-and-resumed run and an uninterrupted one: the answers would not be the same).
 */
function trader(req: RecordedRequest): Step {
  const usage = { prompt: 300, completion: 30, cached: 0 };
  if (turnMessages(req).some((m) => m.role === "tool")) return { content: "ok", usage };
  if (isMoment(req)) {
    return {
      delayMs: 15,
      answer: {
        toolCalls: [{ name: "memory_log", arguments: '{"content":"noted"}', id: `m${barOf(req)}` }],
        usage,
      },
    };
  }
  const bar = barOf(req);
  const order =
    bar % 5 === 1
      ? '{"symbol":"SPY","side":"buy","fraction_of_equity":0.5}'
      : bar % 5 === 3
        ? '{"symbol":"SPY","side":"sell","target_weight":0}'
        : null;
  if (order === null) return { delayMs: 15, answer: { content: "hold", usage } };
  const call = { name: "place_order", arguments: order, id: `o${bar}` };
  return { delayMs: 15, answer: { toolCalls: [call], usage } };
}

/** Complete lines (a cut last line is not one). */
const lines = (file: string) =>
  fs.existsSync(file) ? fs.readFileSync(file, "utf8").split("\n").length - 1 : 0;

/** decisions.jsonl without the wall-clock latency of each turn. */
const withoutLatency = (file: string) =>
  fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => {
      const d = JSON.parse(l);
      delete d.latencyMs;
      return JSON.stringify(d);
    });

/** comparableResult, and the model's latency. */
function comparable(dir: string): unknown {
  const r = comparableResult(dir);
  delete (r.llm as { usage: { latencyMs?: unknown } }).usage.latencyMs;
  return r;
}

describe("resuming a live LLM run", () => {
  it("asks the model only the calls its transcript lacks, and ends as the uninterrupted run did (latency aside)", async () => {
    const server = await startScriptedServer(trader);
    const chats = () => server.requests.filter((r) => r.path.endsWith("/chat/completions")).length;
    try {
      const spy = sliceCsv(path.join(DATA, "SPY_D.csv"), 30, work, "SPY.csv");
      const args = (runs: string) => [
        "run",
        "--prompt",
        "swing trade",
        "--data",
        spy,
        "--base-url",
        server.url,
        "--model",
        "gpt-4o-mini",
        "--no-cache",
        "--runs-dir",
        runs,
        "--json",
        "-q",
      ];
      const ref = await cliRun(args(path.join(work, "ref")), ROOT);
      expect(ref.status, ref.stderr).toBe(0);
      const refDir = path.join(work, "ref", JSON.parse(ref.stdout).id);
      const callsUninterrupted = chats();

      const runs = path.join(work, "killed");
      const child = spawn(process.execPath, [BIN, ...args(runs)], { cwd: ROOT, stdio: "ignore" });
      const before = chats();
      // Killed once 20 calls are recorded: in the middle of the run.
      let dir = "";
      for (;;) {
        const ids = fs.existsSync(runs) ? fs.readdirSync(runs) : [];
        dir = ids[0] ? path.join(runs, ids[0]) : "";
        if (dir && lines(path.join(dir, "transcript.jsonl")) >= 20) break;
        await new Promise((r) => setTimeout(r, 2));
      }
      child.kill("SIGKILL");
      await new Promise((r) => child.once("exit", r));
      const recorded = lines(path.join(dir, "transcript.jsonl"));
      expect(JSON.parse(fs.readFileSync(path.join(dir, "result.json"), "utf8")).status).toBe(
        "running",
      );
      const askedBeforeKill = chats() - before;
      // A kill in the middle of a long line's write leaves its first bytes (Linux stops a write
      // between pages on SIGKILL): the resume must cut them off, not glue the next call to them.
      const transcript = path.join(dir, "transcript.jsonl");
      const last = fs.readFileSync(transcript, "utf8").trimEnd().split("\n").at(-1) ?? "";
      fs.appendFileSync(transcript, last.slice(0, Math.floor(last.length / 2)));

      // A copy whose transcript lost calls recorded before the checkpoint cannot be resumed.
      const copy = path.join(work, "truncated", path.basename(dir));
      fse.copySync(dir, copy);
      fs.writeFileSync(path.join(copy, "transcript.jsonl"), "");
      const refused = await cliRun(["resume", copy], ROOT);
      expect(refused.status).toBe(2);
      expect(refused.stderr).toMatch(
        /transcript\.jsonl has 0 complete model calls, but \d+ were recorded at the checkpoint/,
      );
      expect(chats() - before).toBe(askedBeforeKill);

      const resumed = await cliRun(["resume", dir, "--json", "-q"], ROOT);
      expect(resumed.status, resumed.stderr).toBe(0);
      // Every call the transcript held was answered from it: the resume asked only the rest.
      expect(chats() - before - askedBeforeKill).toBe(callsUninterrupted - recorded);
      const after = fs.readFileSync(transcript, "utf8");
      expect(after.endsWith("\n")).toBe(true);
      expect(
        after
          .split("\n")
          .filter(Boolean)
          .map((l) => JSON.parse(l).seq),
      ).toEqual(Array.from({ length: callsUninterrupted }, (_, i) => i + 1));
      for (const f of ["trades.csv", "equity.csv", "orders.jsonl"]) {
        expect(fs.readFileSync(path.join(dir, f), "utf8"), f).toBe(
          fs.readFileSync(path.join(refDir, f), "utf8"),
        );
      }
      expect(withoutLatency(path.join(dir, "decisions.jsonl"))).toEqual(
        withoutLatency(path.join(refDir, "decisions.jsonl")),
      );
      expect(comparable(dir)).toEqual(comparable(refDir));
    } finally {
      await server.close();
    }
  }, 120_000);
});
