import fs from "node:fs";
import path from "node:path";
import { type BrokerConfig, brokerConfig } from "../../src/engine/broker-config.js";
import type { RunResult } from "../../src/rundir/run-result.js";
import { type AgentOptions, DEFAULT_AGENT_OPTIONS } from "../../src/runner/agent-options.js";
import { runBacktest } from "../../src/runner/run-backtest.js";
import {
  DEFAULT_RECALL_OPTIONS,
  type MemoryChoice,
  type RecallOptions,
  type RunConfig,
} from "../../src/runner/run-config.js";
import type { RunEventListener } from "../../src/runner/run-events.js";
import type { RecordedRequest } from "./scripted-openai-server.js";

/** Writes the first `rows` data rows of a bundled CSV to `dir` and returns the path. */
export function sliceCsv(
  source: string,
  rows: number,
  dir: string,
  name = path.basename(source),
): string {
  const lines = fs.readFileSync(source, "utf8").trim().split("\n");
  const file = path.join(dir, name);
  fs.writeFileSync(file, `${lines.slice(0, rows + 1).join("\n")}\n`);
  return file;
}

export interface LlmRunArgs {
  baseURL: string;
  data: string[];
  runsRoot: string;
  prompt?: string;
  agent?: Partial<AgentOptions>;
  broker?: Partial<BrokerConfig>;
  presets?: { target: string; file: string }[];
  memoryFrom?: string;
  recall?: Partial<RecallOptions>;
  /** `--memory`: the system and its resolved config (default files). */
  memory?: MemoryChoice;
  /** The run's live events. */
  onEvent?: RunEventListener;
  /** The resolved memory policy (default: none, the defaults). */
  memoryPolicy?: RunConfig["memoryPolicy"];
  /** The simulated window (`--from`, `--to`). */
  from?: string;
  to?: string;
}

/** Runs an LLM strategy in process against a scripted server (real client, real HTTP). */
export async function runLlm(a: LlmRunArgs): Promise<{ result: RunResult; dir: string }> {
  const config: RunConfig = {
    strategyPath: "(--prompt)",
    data: a.data.map((file) => ({ file })),
    broker: brokerConfig(a.broker ?? {}),
    params: {},
    from: a.from ?? null,
    to: a.to ?? null,
    name: "llm-test",
    runsRoot: a.runsRoot,
    strict: false,
    tz: null,
    agent: {
      ...DEFAULT_AGENT_OPTIONS,
      model: "gpt-4o-mini",
      baseURL: a.baseURL,
      timeoutMs: 5000,
      maxRetries: 2,
      prompt: a.prompt ?? "Trade the RSI: buy when oversold, sell when overbought.",
      // Beside the runs, in the test's temp dir: never the repository's .agenticbt/cache.
      cacheDir: path.join(path.dirname(a.runsRoot), "cache"),
      ...a.agent,
    },
    presets: a.presets ?? [],
    memoryFrom: a.memoryFrom ?? null,
    recall: { ...DEFAULT_RECALL_OPTIONS, ...a.recall },
    ...(a.memory ? { memory: a.memory } : {}),
    ...(a.memoryPolicy ? { memoryPolicy: a.memoryPolicy } : {}),
  };
  const result = await runBacktest(config, a.onEvent ? { onEvent: a.onEvent } : {});
  return { result, dir: path.join(a.runsRoot, result.id) };
}

export interface ChatBody {
  model: string;
  messages: {
    role: string;
    content: string | null;
    tool_calls?: unknown[];
    tool_call_id?: string;
  }[];
  tools?: { function: { name: string } }[];
}

export const chatBody = (r: RecordedRequest) => r.body as ChatBody;
export const systemOf = (r: RecordedRequest) => chatBody(r).messages[0]?.content ?? "";
export const userOf = (r: RecordedRequest) => chatBody(r).messages[1]?.content ?? "";
/** Tool names offered in a request: all nine for a decision, three memory tools for a moment. */
export const toolNames = (r: RecordedRequest) =>
  (chatBody(r).tools ?? []).map((t) => t.function.name);
export const isMoment = (r: RecordedRequest) => !toolNames(r).includes("place_order");
/** The bar number in "Bar N of M" of a request's context. */
export const barOf = (r: RecordedRequest) => Number(/Bar (\d+) of/.exec(userOf(r))?.[1] ?? -1);
/** Messages after the context: the answers and tool results of this turn so far. */
export const turnMessages = (r: RecordedRequest) => chatBody(r).messages.slice(2);

export const readJsonl = (file: string) =>
  fs.existsSync(file)
    ? fs
        .readFileSync(file, "utf8")
        .trim()
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>)
    : [];
