import {
  type ChatCompletionMessage,
  type ChatRequest,
  type ChatResponse,
  type LlmErrorType,
  REASONING_FIELDS,
  type ResponseSource,
  type TokenUsage,
} from "../types.js";
import { costUsd, type PriceTable, priceFor } from "./pricing.js";

/** One model call as the meter counts it. */
export interface MeteredCall {
  model: string;
  source: ResponseSource;
  usage: TokenUsage;
  latencyMs: number;
  /** The error type when the call failed for good. */
  error: LlmErrorType | null;
  /** A local estimate of the tokens of an answer whose server reported none (`usage.unknown`). */
  estimate?: EstimatedTokens | null;
}

/** Tokens estimated locally for calls whose server reported no usage. */
export interface EstimatedTokens {
  prompt: number;
  completion: number;
}

/**
 * The documented rule for a server that reports no usage: about 4 characters per token (OpenAI's
 * rule of thumb for English text; JSON and numbers run a little denser, so it leans low).
 */
export const CHARS_PER_TOKEN = 4;

/** Estimated tokens of a request (messages and tools as sent) and of its answer. */
export function estimateUsage(
  request: ChatRequest,
  message: ChatCompletionMessage,
): EstimatedTokens {
  const prompt =
    JSON.stringify(request.messages).length + JSON.stringify(request.tools ?? []).length;
  const completion =
    (message.content ?? "").length + JSON.stringify(message.tool_calls ?? []).length;
  const reasoning = REASONING_FIELDS.map(
    (k) => (message as unknown as Record<string, unknown>)[k],
  ).reduce<number>((n, v) => n + (typeof v === "string" ? v.length : 0), 0);
  return {
    prompt: Math.ceil(prompt / CHARS_PER_TOKEN),
    completion: Math.ceil((completion + reasoning) / CHARS_PER_TOKEN),
  };
}

export interface TokenTotals {
  prompt: number;
  completion: number;
  cached: number;
}

/** The `llm` usage block of result.json. */
export interface UsageSnapshot {
  calls: { total: number; network: number; cache: number; replay: number; failed: number };
  /** Tokens of every answered call, whatever its source: what the answers took to produce. */
  tokens: TokenTotals;
  /** Tokens of network calls only: what this run was billed for. */
  billedTokens: TokenTotals;
  /** Nearest-rank percentiles over successful network calls; null when there were none. */
  latencyMs: { p50: number | null; p95: number | null };
  errors: Partial<Record<LlmErrorType, number>>;
  /** Faults that a retry overcame (the call then succeeded), by type; a call that failed for good
   * counts in `errors` only. */
  retries: Partial<Record<LlmErrorType, number>>;
  /** USD of network calls (cache and replay answers cost nothing); null with a reason if unknown. */
  cost: { usd: number | null; reason: string | null };
  byModel: Record<string, { calls: number; billedTokens: TokenTotals; costUsd: number | null }>;
  /** Completion tokens spent reasoning, when servers reported any (absent otherwise). */
  reasoningTokens?: number;
  /**
   * Answers whose server reported no token usage (absent when every answer had it): their tokens
   * and cost are unknown, `calls` of them in all and `billedCalls` over the network, whose tokens
   * are `estimated` (CHARS_PER_TOKEN) for the budget.
   */
  usageUnknown?: { calls: number; billedCalls: number; estimated: EstimatedTokens };
}

interface ModelTally {
  calls: number;
  billed: TokenTotals;
}

/** Adds up the model calls of a run: tokens, sources, latency, errors and money. */
export class UsageMeter {
  private readonly calls = { total: 0, network: 0, cache: 0, replay: 0, failed: 0 };
  private readonly tokens = zeroTotals();
  private readonly billed = zeroTotals();
  private readonly latencies: number[] = [];
  private readonly errors: Partial<Record<LlmErrorType, number>> = {};
  private readonly retries: Partial<Record<LlmErrorType, number>> = {};
  private readonly models = new Map<string, ModelTally>();
  private reasoning = 0;
  private readonly unknown = { calls: 0, billedCalls: 0, estimated: { prompt: 0, completion: 0 } };
  private readonly estimatedByModel = new Map<string, EstimatedTokens>();

  constructor(private readonly prices: PriceTable) {}

  record(call: MeteredCall): void {
    this.calls.total += 1;
    this.calls[call.source] += 1;
    const tally = this.models.get(call.model) ?? { calls: 0, billed: zeroTotals() };
    tally.calls += 1;
    this.models.set(call.model, tally);
    if (call.error) {
      this.calls.failed += 1;
      this.errors[call.error] = (this.errors[call.error] ?? 0) + 1;
      return;
    }
    addTo(this.tokens, call.usage);
    this.reasoning += call.usage.reasoning ?? 0;
    if (call.usage.unknown) {
      this.unknown.calls += 1;
      if (call.source === "network") {
        this.unknown.billedCalls += 1;
        const e = call.estimate ?? { prompt: 0, completion: 0 };
        this.unknown.estimated.prompt += e.prompt;
        this.unknown.estimated.completion += e.completion;
        const m = this.estimatedByModel.get(call.model) ?? { prompt: 0, completion: 0 };
        m.prompt += e.prompt;
        m.completion += e.completion;
        this.estimatedByModel.set(call.model, m);
      }
    }
    if (call.source === "network") {
      addTo(this.billed, call.usage);
      addTo(tally.billed, call.usage);
      this.latencies.push(call.latencyMs);
    }
  }

  recordRetry(type: LlmErrorType): void {
    this.retries[type] = (this.retries[type] ?? 0) + 1;
  }

  recordResponse(
    model: string,
    response: ChatResponse,
    estimate: EstimatedTokens | null = null,
  ): void {
    this.record({
      model,
      source: response.source,
      usage: response.usage,
      latencyMs: response.latencyMs,
      error: null,
      estimate,
    });
  }

  /** USD of one answered call: 0 from the cache or a replay, null when the model has no price or
   * the server reported no usage. */
  callCost(model: string, source: ResponseSource, usage: TokenUsage): number | null {
    if (source !== "network") return 0;
    if (usage.unknown) return null;
    const price = priceFor(this.prices, model);
    return price ? costUsd(price, usage) : null;
  }

  /** USD billed so far, or null when a model that was called over the network has no price. */
  costUsd(): number | null {
    return this.cost().usd;
  }

  /** Billed tokens so far (prompt + completion), for a token budget. */
  billedTokenCount(): number {
    return this.billed.prompt + this.billed.completion;
  }

  /** Network calls whose server reported no usage so far. */
  unknownUsageCalls(): number {
    return this.unknown.billedCalls;
  }

  /** Billed tokens plus the local estimate for calls that reported none: what a budget checks. */
  budgetTokenCount(): number {
    return (
      this.billedTokenCount() + this.unknown.estimated.prompt + this.unknown.estimated.completion
    );
  }

  /**
   * USD of the billed tokens plus the estimated ones (priced as uncached input and output), or
   * null when a model has no price: what --max-cost checks.
   */
  budgetCostUsd(): number | null {
    let usd = 0;
    for (const [model, tally] of this.models) {
      const e = this.estimatedByModel.get(model) ?? { prompt: 0, completion: 0 };
      if (tally.billed.prompt + tally.billed.completion + e.prompt + e.completion === 0) continue;
      const price = priceFor(this.prices, model);
      if (!price) return null;
      usd += costUsd(price, tally.billed);
      usd += costUsd(price, { prompt: e.prompt, completion: e.completion, cached: 0 });
    }
    return Number.isFinite(usd) ? usd : null;
  }

  snapshot(): UsageSnapshot {
    const sorted = [...this.latencies].sort((a, b) => a - b);
    const byModel: UsageSnapshot["byModel"] = {};
    for (const [model, tally] of [...this.models].sort(([a], [b]) => a.localeCompare(b))) {
      const price = priceFor(this.prices, model);
      byModel[model] = {
        calls: tally.calls,
        billedTokens: { ...tally.billed },
        costUsd: price && !this.estimatedByModel.has(model) ? costUsd(price, tally.billed) : null,
      };
    }
    return {
      calls: { ...this.calls },
      tokens: { ...this.tokens },
      billedTokens: { ...this.billed },
      latencyMs: { p50: nearestRank(sorted, 50), p95: nearestRank(sorted, 95) },
      errors: { ...this.errors },
      retries: { ...this.retries },
      cost: this.cost(),
      byModel,
      // Only when there is something to say: a run whose server reports usage records what it did.
      ...(this.reasoning > 0 ? { reasoningTokens: this.reasoning } : {}),
      ...(this.unknown.calls > 0
        ? {
            usageUnknown: {
              calls: this.unknown.calls,
              billedCalls: this.unknown.billedCalls,
              estimated: { ...this.unknown.estimated },
            },
          }
        : {}),
    };
  }

  private cost(): { usd: number | null; reason: string | null } {
    let usd = 0;
    const unpriced: string[] = [];
    for (const [model, tally] of this.models) {
      if (tally.billed.prompt === 0 && tally.billed.completion === 0) continue;
      const price = priceFor(this.prices, model);
      if (price) usd += costUsd(price, tally.billed);
      else unpriced.push(model);
    }
    // Each call's counts are bounded (MAX_TOKENS_PER_CALL), so this holds for any sane price
    // table; if it ever does not, the figure is unknown with its reason, never a bare null.
    if (!Number.isFinite(usd)) {
      return {
        usd: null,
        reason: `the cost of the billed tokens is not a finite number (${usd}): check the prices`,
      };
    }
    if (this.unknown.billedCalls > 0) {
      const n = this.unknown.billedCalls;
      return {
        usd: null,
        reason: `the server reported no token usage for ${n} call${n === 1 ? "" : "s"}`,
      };
    }
    if (unpriced.length === 0) return { usd, reason: null };
    const names = unpriced.sort().map((m) => `"${m}"`);
    return {
      usd: null,
      reason:
        `no price known for model ${names.join(", ")}: pass --prices <file> with its input, ` +
        "cachedInput and output USD per 1M tokens",
    };
  }
}

/** Nearest-rank percentile of ascending `sorted` values: the ⌈p/100·n⌉-th smallest. */
export function nearestRank(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1] ?? null;
}

function zeroTotals(): TokenTotals {
  return { prompt: 0, completion: 0, cached: 0 };
}

function addTo(totals: TokenTotals, usage: TokenUsage): void {
  totals.prompt += usage.prompt;
  totals.completion += usage.completion;
  totals.cached += usage.cached;
}
