/**
 * The LLM agent's framework overhead per decision: a year of daily SPY bars traded by the real
 * LLM strategy (real `openai` client, real HTTP, no response cache, every memory moment on)
 * against the scripted server answering instantly.
 *
 * How the overhead is isolated, with no change to src/:
 * - HTTP time: `globalThis.fetch` is wrapped before the run (the `openai` client takes the global
 *   fetch when LlmClient is built). Each call is timed from the request to its body having fully
 *   arrived; the in-process server's own work happens inside that window, so it counts as the
 *   "model" and is excluded. Everything else (building the request, the SDK's JSON encode and
 *   decode, hashing, the transcript append) is framework and stays in.
 * - Turn boundaries: `BacktestContext.prototype.annotate` is wrapped. The LLM strategy annotates
 *   `{type: "decision" | "moment"}` right before it assembles a turn's context, and annotates the
 *   turn's summary (`contextHash`…) when the tool loop has finished: those two calls bracket the
 *   turn. The counts are checked against result.json so a change in src cannot go unnoticed.
 * - Overhead of a turn = its wall time − the HTTP windows inside it. Work between turns (engine
 *   steps, order and decision records) is reported separately, and the all-in figure
 *   (simulateMs − all HTTP time) / decisions as a cross-check that needs no turn boundaries.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { LlmClient } from "../src/agent/llm/llm-client.js";
import type { ChatRequest, ChatResponse } from "../src/agent/types.js";
import { brokerConfig } from "../src/engine/broker-config.js";
import { DEFAULT_AGENT_OPTIONS } from "../src/runner/agent-options.js";
import { runBacktest } from "../src/runner/run-backtest.js";
import { DEFAULT_RECALL_OPTIONS, type RunConfig } from "../src/runner/run-config.js";
import { BacktestContext } from "../src/strategy/context.js";
import { barOf, chatBody, isMoment, turnMessages, userOf } from "../test/helpers/llm-run.js";
import {
  type RecordedRequest,
  type ScriptedToolCall,
  type Step,
  startScriptedServer,
} from "../test/helpers/scripted-openai-server.js";

const ROOT = path.resolve(import.meta.dirname, "..");
const GOAL_P50_MS = 5;
const USAGE = { prompt: 2500, completion: 40, cached: 1800 };

const call = (name: string, args: unknown): ScriptedToolCall => ({
  name,
  arguments: JSON.stringify(args),
});

/** The write a memory moment makes: the monthly or weekly review, the position note, or the journal. */
function momentWrite(user: string): ScriptedToolCall {
  const month = /month_\d{4}-\d{2}/.exec(user)?.[0];
  if (month) return call("memory_note", { key: month, content: "Month: flat to up, 1 trade." });
  const week = /week_\d{4}-W\d{2}/.exec(user)?.[0];
  if (week) return call("memory_note", { key: week, content: "Week: RSI mid-range, no edge." });
  if (user.includes("position_<SYMBOL>")) {
    return call("memory_note", {
      key: "position_SPY",
      content: "Long SPY on RSI dip; exit on RSI > 70 or 3% stop.",
    });
  }
  return call("memory_log", { content: "Quiet day; RSI neutral. Watching for a dip below 30." });
}

/**
 * An instant, realistic agent: every decision reads the RSI and the account, then answers; one
 * decision in 20 also places an order (alternately all in, and out), so fills, position notes and
 * closes happen. A memory moment writes once, then answers.
 */
function agentScript(req: RecordedRequest): Step {
  const done = turnMessages(req).filter((m) => m.role === "tool").length;
  if (isMoment(req)) {
    if (done > 0) return { content: "Wrote the review.", usage: USAGE };
    return { toolCalls: [momentWrite(userOf(req))], usage: USAGE };
  }
  if (done === 0) {
    const args = { name: "rsi", symbol: "SPY", params: { period: 14 }, n: 5 };
    return { toolCalls: [call("get_indicator", args)], usage: USAGE };
  }
  if (done === 1) return { toolCalls: [call("get_account", {})], usage: USAGE };
  const bar = barOf(req);
  if (done === 2 && bar % 20 === 10) {
    const order =
      bar % 40 === 10
        ? { symbol: "SPY", side: "buy", fraction_of_equity: 1, reason: "RSI dip in an uptrend." }
        : { symbol: "SPY", target_weight: 0, reason: "RSI recovered: exit." };
    return { toolCalls: [call("place_order", order)], usage: USAGE };
  }
  return { content: "RSI is neutral and nothing changed: holding.", usage: USAGE };
}

interface Window {
  start: number;
  end: number;
}
interface Turn extends Window {
  kind: "decision" | "moment";
  httpMs: number;
  calls: number;
  /** Time inside LlmClient.complete (HTTP included). */
  clientMs: number;
}

/** Nearest-rank percentile of an unsorted list. */
function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)] ?? Number.NaN;
}
const r2 = (x: number) => Math.round(x * 100) / 100;
const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);
const mean = (xs: readonly number[]) => sum(xs) / xs.length;
const dist = (xs: readonly number[]) => ({
  p50: r2(percentile(xs, 0.5)),
  p95: r2(percentile(xs, 0.95)),
  mean: r2(mean(xs)),
  max: r2(Math.max(...xs)),
});

/** Times every fetch from the request until its body has fully arrived. */
function instrumentFetch(windows: Window[]): () => void {
  const real = globalThis.fetch;
  globalThis.fetch = async (input: string | URL | Request, init?: RequestInit) => {
    const start = performance.now();
    const res = await real(input, init);
    const body = await res.arrayBuffer();
    windows.push({ start, end: performance.now() });
    return new Response(body, {
      status: res.status,
      statusText: res.statusText,
      headers: res.headers,
    });
  };
  return () => {
    globalThis.fetch = real;
  };
}

/** Times every LlmClient.complete call (the client's own work around the HTTP call). */
function instrumentClient(windows: Window[]): () => void {
  const proto = LlmClient.prototype;
  const real = proto.complete;
  proto.complete = async function (this: LlmClient, request: ChatRequest): Promise<ChatResponse> {
    const start = performance.now();
    try {
      return await real.call(this, request);
    } finally {
      windows.push({ start, end: performance.now() });
    }
  };
  return () => {
    proto.complete = real;
  };
}

/** Brackets each agent turn by the strategy's own annotate calls (see the file comment). */
function instrumentTurns(turns: Turn[]): () => void {
  const proto = BacktestContext.prototype;
  const real = proto.annotate;
  proto.annotate = function (this: BacktestContext, details: Record<string, unknown>): void {
    const t = performance.now();
    real.call(this, details);
    if (details.type === "decision" || details.type === "moment") {
      turns.push({
        kind: details.type,
        start: t,
        end: Number.NaN,
        httpMs: 0,
        calls: 0,
        clientMs: 0,
      });
    } else if ("contextHash" in details) {
      const turn = turns.at(-1);
      if (turn) turn.end = performance.now();
    }
  };
  return () => {
    proto.annotate = real;
  };
}

export interface LlmOverheadFigures {
  bars: number;
  decisions: number;
  moments: number;
  calls: number;
  orders: number;
  fills: number;
  tradesClosed: number;
  simulateMs: number;
  overheadMs: {
    decision: ReturnType<typeof dist>;
    /** Of the decision overhead: inside LlmClient.complete around HTTP, and the rest of the turn. */
    decisionClient: ReturnType<typeof dist>;
    decisionRest: ReturnType<typeof dist>;
    moment: ReturnType<typeof dist>;
    betweenTurnsPerBar: number;
    allInPerDecision: number;
  };
  decisionWallMs: ReturnType<typeof dist>;
  httpPerCallMs: ReturnType<typeof dist>;
  prompt: {
    decisionTurns: number;
    totalChars: { mean: number; min: number; max: number };
    prefixChars: { mean: number; min: number; max: number };
    prefixShare: { mean: number; min: number; max: number };
    distinctPrefixes: number;
    toolsJsonChars: number;
  };
  /** The decision overhead p50 of every run; the figures are those of the median run. */
  runsDecisionP50Ms: number[];
  goalP50Ms: number;
}

/**
 * Runs the year `runs` times (the machine is shared and noisy) and returns the run with the median
 * decision overhead p50.
 */
export async function measureLlmOverhead(runs = 3): Promise<LlmOverheadFigures> {
  const all: LlmOverheadFigures[] = [];
  for (let k = 0; k < runs; k++) all.push(await measureOnce());
  const byP50 = [...all].sort((a, b) => a.overheadMs.decision.p50 - b.overheadMs.decision.p50);
  const median = byP50[Math.floor((byP50.length - 1) / 2)] as LlmOverheadFigures;
  return { ...median, runsDecisionP50Ms: all.map((f) => f.overheadMs.decision.p50) };
}

const chars = (content: string | null | undefined) => (content ?? "").length;
const range = (xs: readonly number[], digits = 0) => {
  const f = 10 ** digits;
  const round = (x: number) => Math.round(x * f) / f;
  return { mean: round(mean(xs)), min: round(Math.min(...xs)), max: round(Math.max(...xs)) };
};

async function measureOnce(): Promise<LlmOverheadFigures> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "agenticbt-bench-llm-"));
  const server = await startScriptedServer((req) => agentScript(req));
  const windows: Window[] = [];
  const completes: Window[] = [];
  const turns: Turn[] = [];
  const config: RunConfig = {
    strategyPath: "(--prompt)",
    data: [{ file: path.join(ROOT, "data", "SPY_D.csv") }],
    broker: brokerConfig({ commissionRate: 0.001 }),
    params: {},
    from: "2010-01-01",
    to: "2010-12-31",
    name: "bench-llm",
    runsRoot: path.join(tmp, "runs"),
    strict: false,
    tz: null,
    agent: {
      ...DEFAULT_AGENT_OPTIONS,
      model: "gpt-4o-mini",
      baseURL: server.url,
      timeoutMs: 10_000,
      // A retry would put a backoff sleep into the overhead: a failed call fails the bench instead.
      maxRetries: 0,
      cache: false,
      prompt:
        "Trade SPY on the RSI: buy when RSI(14) is oversold in an uptrend, exit when it recovers above 70.",
    },
    presets: [],
    memoryFrom: null,
    recall: DEFAULT_RECALL_OPTIONS,
  };
  const restoreFetch = instrumentFetch(windows);
  const restoreClient = instrumentClient(completes);
  const restoreTurns = instrumentTurns(turns);
  let result: Awaited<ReturnType<typeof runBacktest>>;
  try {
    result = await runBacktest(config);
  } finally {
    restoreTurns();
    restoreClient();
    restoreFetch();
    await server.close();
  }
  fs.rmSync(tmp, { recursive: true, force: true });

  const agent = result.llm?.agent;
  if (result.status !== "completed" || !agent) {
    throw new Error(`LLM bench run ended ${result.status}: ${JSON.stringify(result.error)}`);
  }
  if (Object.keys(agent.turnErrors).length || Object.keys(agent.toolErrors).length) {
    throw new Error(
      `LLM bench run had errors: turns ${JSON.stringify(agent.turnErrors)}, tools ${JSON.stringify(agent.toolErrors)}`,
    );
  }
  if (turns.length !== agent.decisions + agent.moments || turns.some((t) => !(t.end >= t.start))) {
    throw new Error(
      `turn brackets do not match result.json (${turns.length} vs ${agent.decisions} decisions + ${agent.moments} moments): has the strategy's annotate protocol changed?`,
    );
  }
  // Attribute each HTTP window to the turn that contains it (both lists are in time order).
  let w = 0;
  for (const turn of turns) {
    while (w < windows.length && (windows[w] as Window).start < turn.start) w++;
    while (w < windows.length && (windows[w] as Window).end <= turn.end) {
      const win = windows[w] as Window;
      turn.httpMs += win.end - win.start;
      turn.calls++;
      w++;
    }
  }
  if (completes.length !== windows.length) {
    // E.g. the bench loaded as CommonJS while src imports LlmClient as ESM: two classes.
    throw new Error(
      `${completes.length} LlmClient.complete calls timed for ${windows.length} HTTP calls: the client wrapper missed`,
    );
  }
  let c = 0;
  for (const turn of turns) {
    while (c < completes.length && (completes[c] as Window).start < turn.start) c++;
    while (c < completes.length && (completes[c] as Window).end <= turn.end) {
      const win = completes[c] as Window;
      turn.clientMs += win.end - win.start;
      c++;
    }
  }
  const inTurns = sum(turns.map((t) => t.calls));
  if (inTurns !== windows.length) {
    throw new Error(`${windows.length - inTurns} HTTP calls fell outside any turn`);
  }
  const overhead = (kind: Turn["kind"]) =>
    turns.filter((t) => t.kind === kind).map((t) => t.end - t.start - t.httpMs);
  const decisionTurns = turns.filter((t) => t.kind === "decision");
  // The overhead split: the model client's own work around its HTTP calls (canonical request and
  // hash, the SDK's encode and decode, the transcript append), and the rest of the turn (context
  // assembly, tool dispatch, memory writes, the decision's summary).
  const clientPart = decisionTurns.map((t) => t.clientMs - t.httpMs);
  const agentPart = decisionTurns.map((t) => t.end - t.start - t.clientMs);
  const httpTotal = sum(windows.map((x) => x.end - x.start));
  const turnWall = sum(turns.map((t) => t.end - t.start));
  const simulateMs = result.timings.simulateMs;

  // Prompt size: the first request of each decision turn (system + context, no answers yet).
  const firsts = server.requests
    .filter((r) => r.path === "/v1/chat/completions" && !isMoment(r))
    .map(chatBody)
    .filter((b) => b.messages.length === 2);
  const totals = firsts.map((b) => sum(b.messages.map((m) => chars(m.content))));
  const prefixes = firsts.map((b) => chars(b.messages[0]?.content));
  const shares = firsts.map((_, i) => (prefixes[i] as number) / (totals[i] as number));
  const distinct = new Set(firsts.map((b) => b.messages[0]?.content ?? "")).size;

  return {
    bars: result.period.bars,
    decisions: agent.decisions,
    moments: agent.moments,
    calls: windows.length,
    orders: result.orders.submitted,
    fills: result.orders.filled,
    tradesClosed: result.trades.closed,
    simulateMs,
    overheadMs: {
      decision: dist(overhead("decision")),
      decisionClient: dist(clientPart),
      decisionRest: dist(agentPart),
      moment: dist(overhead("moment")),
      betweenTurnsPerBar: r2((simulateMs - turnWall) / result.period.bars),
      allInPerDecision: r2((simulateMs - httpTotal) / agent.decisions),
    },
    decisionWallMs: dist(decisionTurns.map((t) => t.end - t.start)),
    httpPerCallMs: dist(windows.map((x) => x.end - x.start)),
    prompt: {
      decisionTurns: firsts.length,
      totalChars: range(totals),
      prefixChars: range(prefixes),
      prefixShare: range(shares, 3),
      distinctPrefixes: distinct,
      toolsJsonChars: JSON.stringify(firsts[0]?.tools ?? []).length,
    },
    runsDecisionP50Ms: [],
    goalP50Ms: GOAL_P50_MS,
  };
}

/** The bench's lines for these figures. */
export function describeLlmOverhead(f: LlmOverheadFigures): string[] {
  const o = f.overheadMs;
  const p = f.prompt;
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  const n = (x: number) => x.toLocaleString("en-US");
  return [
    `LLM agent, ${f.bars} daily bars (SPY 2010), scripted server answering instantly, no cache: ${f.decisions} decisions, ${f.moments} memory moments, ${f.calls} HTTP calls, ${f.fills} fills, ${f.tradesClosed} trades closed; simulate ${(f.simulateMs / 1000).toFixed(2)} s (median of ${f.runsDecisionP50Ms.length} runs)`,
    `  overhead per decision turn: p50 ${o.decision.p50} ms, p95 ${o.decision.p95} ms, max ${o.decision.max} ms (p50 of each run: ${f.runsDecisionP50Ms.join(" / ")})`,
    `    model client around HTTP (request hash, SDK encode/decode, transcript append) p50 ${o.decisionClient.p50} ms; context, tools, memory, summary p50 ${o.decisionRest.p50} ms`,
    `    decision wall incl. HTTP p50 ${f.decisionWallMs.p50} ms; HTTP round trip per call p50 ${f.httpPerCallMs.p50} ms`,
    `  overhead per memory moment turn: p50 ${o.moment.p50} ms, p95 ${o.moment.p95} ms; between turns ${o.betweenTurnsPerBar} ms per bar; all-in (simulate - HTTP) / decisions ${o.allInPerDecision} ms`,
    `  prompt per decision: ${n(p.totalChars.mean)} chars mean (${n(p.totalChars.min)}..${n(p.totalChars.max)}), stable prefix (system) ${n(p.prefixChars.mean)} chars = ${pct(p.prefixShare.mean)} (${pct(p.prefixShare.min)}..${pct(p.prefixShare.max)}); ${p.distinctPrefixes} distinct prefix(es) over ${p.decisionTurns} decisions; tool schemas ${n(p.toolsJsonChars)} chars on top`,
  ];
}
