import { shownRationale } from "../agent/rationale.js";
import { runFile } from "../rundir/layout.js";
import { damagedRunFile, readJsonLines } from "../rundir/run-files.js";
import { readResult } from "../rundir/run-record.js";
import type { DecisionView, OrderView, ToolCallView } from "../rundir/schemas.js";
import { isJsonObject } from "../util/json-object.js";

type Rec = Record<string, unknown>;

const str = (v: unknown): string | null => (typeof v === "string" ? v : null);
const num = (v: unknown): number | null => (typeof v === "number" ? v : null);
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/**
 * decisions.jsonl as views, in file order (bar order). Code runs write `kind` (bar, month_end…);
 * LLM runs add `type` (decision | moment), tool calls, rationale, hashes and tokens. Every line has
 * a time and a bar: one without is damage.
 */
export function readDecisions(dir: string): DecisionView[] {
  return decisionLines(dir).map((line, i) => {
    const view = toView(line);
    if (view === null) {
      throw damagedRunFile(
        runFile(dir, "decisions"),
        `has a line without a time and a bar (line ${i + 1})`,
      );
    }
    return view;
  });
}

/**
 * decisions.jsonl's lines as objects. Every run that finished wrote it (empty when nothing was
 * decided), so a completed run without it is damaged; a run stopped before its outputs has none.
 */
export function decisionLines(dir: string): Rec[] {
  const file = runFile(dir, "decisions");
  const lines = readJsonLines(file);
  if (lines !== null) return lines;
  if (readResult(dir).status === "completed") {
    throw damagedRunFile(file, "is missing, though result.json says the run completed");
  }
  return [];
}

function toView(l: Rec): DecisionView | null {
  const time = str(l.time);
  const bar = num(l.bar);
  if (time === null || bar === null) return null;
  const kind = str(l.kind);
  return {
    time,
    bar,
    type: str(l.type) ?? kind ?? "decision",
    kind,
    contextHash: str(l.contextHash),
    toolCalls: arr(l.toolCalls).filter(isJsonObject).map(toolCall),
    orders: arr(l.orders).filter(isJsonObject).map(order),
    cancels: arr(l.cancels),
    memory: arr(l.memory),
    rationale: rationaleOf(l),
    ...reasoningOf(l),
    ...(num(l.tokensUnknownCalls) ? { tokensUnknownCalls: num(l.tokensUnknownCalls) ?? 0 } : {}),
    recalls: arr(l.recalls)
      .filter(isJsonObject)
      .map((r) => ({
        query: str(r.query) ?? "",
        seq: num(r.seq),
        citations: arr(r.citations)
          .filter(isJsonObject)
          .map((c) => ({
            path: str(c.path) ?? "?",
            startLine: num(c.startLine) ?? 0,
            endLine: num(c.endLine) ?? 0,
            score: num(c.score) ?? 0,
            snippet: str(c.snippet) ?? "",
            source: str(c.source),
          })),
      })),
    tokens: isJsonObject(l.tokens)
      ? Object.fromEntries(
          Object.entries(l.tokens).filter((e): e is [string, number] => typeof e[1] === "number"),
        )
      : null,
    error: l.error ?? null,
    requestHashes: arr(l.requestHashes).filter((h): h is string => typeof h === "string"),
    context: null,
  };
}

function reasoningOf(l: Rec): { reasoning?: { text: string; chars: number } } {
  const text = str(l.reasoning);
  if (text === null || text === "") return {};
  const chars = num(l.reasoningChars) ?? text.length;
  return { reasoning: { text: shownRationale(text, chars), chars } };
}

/** Clipped, with a note, when long: a runaway answer is read from transcript.jsonl, not here. */
function rationaleOf(l: Rec): string | null {
  const text = str(l.rationale);
  if (text === null) return null;
  const clipped = isJsonObject(l.rationaleClipped) ? num(l.rationaleClipped.chars) : null;
  return shownRationale(text, clipped);
}

function toolCall(c: Rec): ToolCallView {
  return {
    name: str(c.name) ?? "?",
    args: c.args ?? null,
    result: c.result ?? null,
    error: c.error ?? null,
  };
}

function order(o: Rec): OrderView {
  return {
    id: num(o.id),
    symbol: str(o.symbol) ?? "?",
    side: str(o.side),
    type: str(o.type) ?? "?",
    size: o.size ?? null,
    limitPrice: num(o.limitPrice),
    stopPrice: num(o.stopPrice),
    stopLoss: num(o.stopLoss),
    takeProfit: num(o.takeProfit),
    status: str(o.status),
    reason: str(o.reason),
    tag: str(o.tag),
  };
}

/** "buy market fraction 1 SPY" — an order as a short phrase, for the terminal and for diffs. */
export function describeOrder(o: OrderView): string {
  const side = o.side ?? "target";
  const price = [
    o.limitPrice !== null ? `limit ${o.limitPrice}` : "",
    o.stopPrice !== null ? `stop ${o.stopPrice}` : "",
  ]
    .filter(Boolean)
    .join(" ");
  return [side, o.type, describeSize(o.size), o.symbol, price].filter(Boolean).join(" ");
}

function describeSize(size: unknown): string {
  if (!isJsonObject(size)) return "";
  const kind = str(size.kind);
  if (kind === null) return JSON.stringify(size);
  const value = size[kind];
  return value === undefined ? kind : `${kind} ${JSON.stringify(value)}`;
}
