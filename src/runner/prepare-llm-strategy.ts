import fs from "node:fs";
import path from "node:path";
import type { AgentEventListener } from "../agent/agent-events.js";
import { anonymizeStrategy } from "../agent/anonymize/anonymized-strategy.js";
import type { Anonymizer } from "../agent/anonymize/anonymizer.js";
import type { ResumedCalls } from "../agent/llm/resumed-calls.js";
import {
  type AgentStats,
  agentEndWarning,
  BudgetExhaustedError,
  createLlmStrategy,
  emptyAgentStats,
  emptyToolUse,
  type LlmStrategySettings,
  neverDecided,
} from "../agent/llm-strategy.js";
import { withoutCredentials } from "../config/base-url.js";
import { contextWindowOf } from "../config/context-window.js";
import type { BrokerConfig } from "../engine/broker-config.js";
import { StrategyLoadError, UsageError } from "../errors/run-errors.js";
import type { MemoryModel, MemorySystem } from "../memory/memory-system.js";
import { runFile } from "../rundir/layout.js";
import type { LlmRunInfo } from "../rundir/run-result.js";
import type { Strategy } from "../strategy/types.js";
import { type AgentOptions, DEFAULT_AGENT_OPTIONS } from "./agent-options.js";

export interface PreparedLlm {
  name: string;
  prompt: string;
  /** Builds the strategy once the run directory exists (its transcript goes there). */
  create(args: {
    runDir: string;
    startIndex: number;
    totalBars: number;
    timeLabelOf: (t: number) => string;
    broker: BrokerConfig;
    /** The agent's live events (decisions, model calls, retries). */
    onEvent?: AgentEventListener;
    /** A resumed run: the calls it made before it was killed, answered first as recorded. */
    resumed?: ResumedCalls | null;
    /** A warning for the user now (an answer the cache could not store). */
    onWarning?: (message: string) => void;
    /** `--anonymize`: the translation of everything the model sees, or null. */
    anonymizer?: Anonymizer | null;
    /** The master timeline's real times (the anonymized calendar is computed from them). */
    realTimes?: Float64Array;
    /** The run's memory system. */
    memory: MemorySystem;
  }): Promise<Strategy<unknown>>;
  /** For the checkpoint: the usage counters (result.json's llm.usage) and the transcript's
   * length so far, once the strategy exists. */
  progress(): { usage: unknown; transcript: { bytes: number; lines: number } } | null;
  /** Usage and settings for result.json (after the run). */
  info(): LlmRunInfo | null;
  /** What the user was warned of about the model server and the agent, for result.json. */
  warnings(): string[];
  /** Once, at the end of a completed run: a warning about the agent's tool use, or null (it is
   * then among warnings()). */
  endWarning(): string | null;
  /** Why a run that reached its end is still a failure (the agent never decided), or null. */
  endFailure(): { type: string; message: string } | null;
  /** The run is stopping (a stop signal): model calls and their waits end now. */
  stop(): void;
  /** Whether a model call was cut short (stop(), or a wait over the cap): the bar is not whole. */
  cutShort(): boolean;
  /** The memory system's port to the run's model (its own judgements), once the strategy exists;
   * null before. Same client, cache, transcript, budget and replay as the decisions. */
  memoryModel(): MemoryModel | null;
}

/**
 * Everything about an LLM strategy that can be checked before a run directory exists: the prompt
 * file, the endpoint URL, the price table, a budget's price, the recording to replay. A problem is
 * bad input (exit code 2) and nothing is created.
 */
export async function prepareLlmStrategy(
  strategyPath: string,
  o: AgentOptions,
  source: string = strategyPath,
): Promise<PreparedLlm> {
  const { missingKeyWarning, normaliseBaseUrl, resolveLlmSettings, LlmSettingsError } =
    await import("../agent/llm/llm-settings.js");
  const { DEFAULT_PRICE_TABLE, loadPriceTable, priceFor } = await import("../agent/llm/pricing.js");
  const { ReplaySource } = await import("../agent/llm/replay-source.js");
  const prompt = o.prompt ?? readPrompt(source);
  const name = o.prompt !== null ? "prompt" : path.basename(strategyPath).replace(/\.[^.]+$/, "");
  let settings: ReturnType<typeof resolveLlmSettings>;
  try {
    settings = resolveLlmSettings({ model: o.model, baseURL: o.baseURL ?? undefined }, process.env);
  } catch (err) {
    if (err instanceof LlmSettingsError) throw new UsageError(err.message);
    throw err;
  }
  let prices = DEFAULT_PRICE_TABLE;
  if (o.pricesFile) {
    try {
      prices = loadPriceTable(o.pricesFile);
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
  }
  if (o.maxCost !== null && priceFor(prices, o.model) === null) {
    throw new UsageError(
      `--max-cost needs a price for model "${o.model}", and the price table has none. Add it with --prices <file.json> ({"${o.model}": {"input": 0.15, "cachedInput": 0.075, "output": 0.6}} in USD per 1M tokens).`,
    );
  }
  let replay: InstanceType<typeof ReplaySource> | null = null;
  if (o.replay) {
    try {
      replay = ReplaySource.fromRun(o.replay);
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
  }

  let info: (() => LlmRunInfo) | null = null;
  let stats: AgentStats | null = null;
  let progress: PreparedLlm["progress"] = () => null;
  let stopCalls = () => {};
  let cutShort = () => false;
  let memoryPort: MemoryModel | null = null;
  const warnings: string[] = [];
  let endWarning: () => string | null = () => null;
  return {
    name,
    prompt,
    info: () => (info ? info() : null),
    progress: () => progress(),
    endFailure: () => (stats ? neverDecided(stats) : null),
    warnings: () => [...warnings],
    endWarning: () => {
      const end = endWarning();
      endWarning = () => null;
      if (end !== null) warnings.push(end);
      return end;
    },
    stop: () => stopCalls(),
    cutShort: () => cutShort(),
    memoryModel: () => memoryPort,
    async create(args) {
      const { LlmClient } = await import("../agent/llm/llm-client.js");
      const { limiterStoreFromEnv, providerLimiterFor } = await import(
        "../agent/llm/limiter-store.js"
      );
      const { DEFAULT_CACHE_DIR, ResponseCache } = await import("../agent/llm/response-cache.js");
      const { TranscriptWriter } = await import("../agent/llm/transcript.js");
      const { CHARS_PER_TOKEN, UsageMeter } = await import("../agent/llm/usage-meter.js");
      const { WorkspaceState } = await import("../agent/workspace-state.js");
      const meter = new UsageMeter(prices);
      // Said now, and kept for result.json's warnings.
      const warn = (message: string) => {
        warnings.push(message);
        args.onWarning?.(message);
      };
      const agentStats = emptyAgentStats();
      const noKey = missingKeyWarning(settings, replay !== null);
      if (noKey !== null) args.onWarning?.(noKey);
      stats = agentStats;
      const toolUse = emptyToolUse();
      endWarning = () => agentEndWarning(agentStats, toolUse);
      const cacheDir = path.resolve(o.cacheDir ?? DEFAULT_CACHE_DIR);
      const transcript = new TranscriptWriter(runFile(args.runDir, "transcript"));
      progress = () => ({
        usage: meter.snapshot(),
        transcript: { bytes: transcript.bytes, lines: transcript.lines },
      });
      let warned = false;
      const cache =
        o.cache && !replay
          ? new ResponseCache(cacheDir, (file, err) => {
              // Once: every later failure is counted in result.json (llm.cacheWriteFailures).
              if (warned) return;
              warned = true;
              args.onWarning?.(
                `The LLM cache could not store an answer (${file}: ${(err as Error).message}); the run goes on, and result.json counts every answer not cached (llm.cacheWriteFailures).`,
              );
            })
          : null;
      // One limiter per provider for the whole process: the runs of an experiment share it. With
      // a store in the environment (a queue's worker), every process using it shares it too.
      const limiter = await providerLimiterFor(
        limiterStoreFromEnv(process.env),
        normaliseBaseUrl(settings.baseURL),
        o.model,
        {
          // An experiment's config.json written before these settings existed lacks them.
          concurrency: o.concurrency ?? DEFAULT_AGENT_OPTIONS.concurrency,
          rpm: o.rpm ?? null,
          tpm: o.tpm ?? null,
          windowMs: Math.round((o.rateWindowS ?? DEFAULT_AGENT_OPTIONS.rateWindowS) * 1000),
        },
      );
      const client = new LlmClient({
        resumed: args.resumed ?? null,
        model: o.model,
        baseURL: settings.baseURL,
        apiKey: settings.apiKey,
        timeoutMs: o.timeoutMs,
        maxRetries: o.maxRetries,
        maxRetryWaitMs: Math.round(o.maxRetryWaitS * 1000),
        limiter,
        cache,
        replay,
        transcript,
        meter,
        onEvent: args.onEvent ?? null,
        onWarning: warn,
      });
      stopCalls = () => client.stop();
      cutShort = () => client.cutShort;
      info = () => ({
        model: o.model,
        baseURL: withoutCredentials(settings.baseURL),
        apiKeySource: settings.apiKeySource,
        maxSteps: o.maxSteps,
        maxFailedDecisions: o.maxFailedDecisions,
        every: o.every,
        moments: o.moments,
        cache: cache !== null,
        cacheDir: cache === null ? null : cacheDir,
        cacheWriteFailures: cache?.stats().writeFailures ?? 0,
        replayOf: o.replay,
        agent: agentStats,
        usage: meter.snapshot(),
      });
      // A server that reports no usage is held to the budget by the local estimate, said so.
      const estimated = () =>
        meter.unknownUsageCalls() > 0
          ? ` (estimated locally at ${CHARS_PER_TOKEN} characters per token for the ${meter.unknownUsageCalls()} call(s) whose server reported no usage)`
          : "";
      const checkBudget = () => {
        const tokens = meter.budgetTokenCount();
        if (o.maxTokens !== null && tokens >= o.maxTokens) {
          throw new BudgetExhaustedError(
            `token budget spent: ${tokens} billed tokens${estimated()} >= --max-tokens ${o.maxTokens}`,
          );
        }
        const cost = meter.budgetCostUsd();
        if (o.maxCost !== null && cost !== null && cost >= o.maxCost) {
          const about = meter.unknownUsageCalls() > 0 ? "~" : "";
          throw new BudgetExhaustedError(
            `cost budget spent: ${about}$${cost.toFixed(4)}${estimated()} >= --max-cost ${o.maxCost}`,
          );
        }
      };
      const anon = args.anonymizer ?? null;
      const settingsForStrategy = llmStrategySettings(name, prompt, o, args.broker, anon);
      const { memoryModel } = await import("../agent/memory-model.js");
      memoryPort = memoryModel(
        client,
        {
          model: settingsForStrategy.model,
          ...(settingsForStrategy.temperature === undefined
            ? {}
            : { temperature: settingsForStrategy.temperature }),
          ...(settingsForStrategy.maxOutputTokens === undefined
            ? {}
            : { maxTokens: settingsForStrategy.maxOutputTokens }),
          ...(settingsForStrategy.seed === undefined ? {} : { seed: settingsForStrategy.seed }),
        },
        checkBudget,
      );
      const strategy = createLlmStrategy(settingsForStrategy, {
        stats: agentStats,
        model: client,
        onResponse: () => {},
        checkBudget,
        timeLabelOf: args.timeLabelOf,
        startIndex: args.startIndex,
        totalBars: args.totalBars,
        memory: args.memory,
        onWarning: warn,
        toolUse,
        ...(o.workspaceState ? { state: new WorkspaceState() } : {}),
        ...(args.onEvent ? { onEvent: args.onEvent } : {}),
      }) as Strategy<unknown>;
      return anon
        ? anonymizeStrategy(strategy, anon, args.realTimes ?? new Float64Array())
        : strategy;
    },
  };
}

/** The agent's settings from the run's options (a probe of the first prompt builds the same). */
export function llmStrategySettings(
  name: string,
  prompt: string,
  o: AgentOptions,
  broker: BrokerConfig,
  anon: Anonymizer | null,
): LlmStrategySettings {
  const settings: LlmStrategySettings = {
    name,
    prompt: anon ? anon.text(prompt) : prompt,
    model: o.model,
    maxSteps: o.maxSteps,
    maxFailedDecisions: o.maxFailedDecisions,
    every: o.every,
    contextBars: o.contextBars,
    moments: new Set(o.moments),
    tradingTerms: anon ? anonymizedTradingTerms(broker, anon) : tradingTerms(broker),
  };
  if (o.temperature !== null) settings.temperature = o.temperature;
  if (o.seed !== null) settings.seed = o.seed;
  if (o.maxOutputTokens !== null) settings.maxOutputTokens = o.maxOutputTokens;
  settings.contextWindow = contextWindowOf(o.model, o.contextWindow).tokens;
  return settings;
}

function readPrompt(file: string): string {
  try {
    const text = fs.readFileSync(file, "utf8");
    if (text.trim() === "")
      throw new StrategyLoadError(`${file} is empty: write the strategy prompt in it.`);
    return text;
  } catch (err) {
    if (err instanceof StrategyLoadError) throw err;
    throw new StrategyLoadError(`Cannot read strategy prompt ${file}: ${(err as Error).message}`);
  }
}

/** One line telling the model the terms it trades on (stable for the whole run). */
export function tradingTerms(b: BrokerConfig): string {
  const pct = (x: number) => `${Number((x * 100).toFixed(4))}%`;
  const parts = [
    `Starting cash ${b.initialCash}.`,
    `Commission ${pct(b.commissionRate)} of notional${b.commissionFixed ? ` plus ${b.commissionFixed} per order` : ""} on every fill.`,
    b.slippageTicks > 0
      ? `Slippage ${b.slippageTicks} tick(s) of ${b.tickSize} against you on market and stop fills.`
      : `Slippage ${pct(b.slippageRate)} against you on market and stop fills.`,
    `Market orders fill at the ${b.tradeOnClose ? "close of the decision bar" : "next bar's open"}.`,
    b.fractional ? "Fractional quantities allowed." : "Whole units only.",
    b.allowShort
      ? "Short selling allowed (margin-checked)."
      : "No short selling: sells cannot exceed what you hold.",
  ];
  return parts.join(" ");
}

/**
 * The trading terms as an anonymized model reads them: in shown money, with fractional units (a
 * quantity is converted to the real units and rounded), and with slippage in ticks but not the
 * tick's size (0.01 in shown prices would give the price factor away).
 */
function anonymizedTradingTerms(b: BrokerConfig, a: Anonymizer): string {
  const shown = tradingTerms({
    ...b,
    initialCash: a.money(b.initialCash),
    commissionFixed: a.money(b.commissionFixed),
    fractional: true,
  });
  return shown
    .replace(/ tick\(s\) of [^ ]+ against you/, " price tick(s) against you")
    .replace(
      "Fractional quantities allowed.",
      "Quantities are in fractional units: each order is executed in the nearest amount the market trades, and its fill says how much.",
    );
}
