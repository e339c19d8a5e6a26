import { secondsText } from "../util/seconds-text.js";
import type { LlmErrorType, ResponseSource, TokenUsage } from "./types.js";

/**
 * What an LLM agent reports while it runs (part of the run's events, src/runner/run-events.ts):
 * decisions as they start and end, each model call, each retry. Emitted the moment they happen.
 */
export type AgentEvent = DecisionStartedEvent | DecisionFinishedEvent | LlmCallEvent | RetryEvent;

export type AgentEventListener = (event: AgentEvent) => void;

/** An LLM decision (or memory turn) begins: the model is about to be asked. */
export interface DecisionStartedEvent {
  type: "decision_started";
  time: string;
  bar: number;
  /** "decision" for a trading decision, "moment" for a memory turn (end of day, fill...). */
  kind: "decision" | "moment";
  /** The memory moments of a "moment" turn (eod, week, month, fill, close, run_end). */
  moments?: string[];
}

/** An LLM decision ended, well or not. A failed one carries its typed error at once. */
export interface DecisionFinishedEvent {
  type: "decision_finished";
  time: string;
  bar: number;
  kind: "decision" | "moment";
  /** The model's closing text (its reason), or null. */
  rationale: string | null;
  toolCalls: { name: string; error: string | null }[];
  /** Model calls made in this decision, their tokens and wall time. */
  calls: number;
  tokens: TokenUsage;
  latencyMs: number;
  /** The typed failure (empty_reply, timeout, max_steps, budget_exhausted...), null if none. */
  error: { type: string; message: string } | null;
  /** Whether it counts as a failed decision (some errors, like budget_exhausted, do not). */
  failed: boolean;
}

/** One model call, answered or failed for good (after its retries). */
export interface LlmCallEvent {
  type: "llm_call";
  model: string;
  source: ResponseSource;
  tokens: TokenUsage;
  /** USD of this call (0 for cache and replay); null when the model's price is unknown. */
  costUsd: number | null;
  latencyMs: number;
  attempts: number;
  error: LlmErrorType | null;
}

/** A model call failed and waits `delayMs` (at most the client's cap) before its next attempt. */
export interface RetryEvent {
  type: "retry";
  model: string;
  error: LlmErrorType;
  message: string;
  /** The attempt that failed (1 = the first). */
  attempt: number;
  /** How long the call waits now, before its next attempt. */
  delayMs: number;
  /** Where the wait's length comes from: the server's Retry-After, or our backoff. Absent in
   * events from before this field existed. */
  waitFrom?: "server" | "backoff";
}

/** A retry's wait in words, as the progress output shows it. */
export function retryWaitLine(e: RetryEvent): string {
  const from =
    e.waitFrom === "server" ? "as the server asked" : e.waitFrom === "backoff" ? "backoff" : "";
  const seconds = secondsText(e.delayMs);
  return `waiting ${seconds} s${from ? ` (${from})` : ""} to retry ${e.model} after ${e.error} on attempt ${e.attempt}`;
}
