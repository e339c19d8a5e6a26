import { describeOrder } from "../../report/decision-lines.js";
import type { DecisionView, ShowAtOutput } from "../../rundir/schemas.js";
import { HOOK_NAMES } from "../../strategy/hook-names.js";
import { clip, inline, textWidth, WIDTH } from "./text-layout.js";

/** Lines of the system message shown without --full: enough to recognise it. */
const SYSTEM_PREVIEW_LINES = 8;

/** `show <run> --at <date>`: each line of that bar, or the nearest dates that have some. */
export function formatDecisionsAt(s: ShowAtOutput, full: boolean): string {
  if (!s.found) {
    const lines = [`No decision at ${s.at} in run ${s.id}.`];
    if (s.nearby.before.length + s.nearby.after.length === 0) {
      lines.push("The run recorded no decisions at all.");
    } else {
      lines.push("Nearest dates with decisions:");
      if (s.nearby.before.length) lines.push(`  before: ${s.nearby.before.join(", ")}`);
      if (s.nearby.after.length) lines.push(`  after:  ${s.nearby.after.join(", ")}`);
    }
    return lines.join("\n");
  }
  const lines = [`Run ${s.id} at ${s.at}: ${s.decisions.length} line(s) in decisions.jsonl`];
  for (const d of s.decisions) lines.push("", ...formatDecision(d, full));
  return lines.join("\n");
}

function formatDecision(d: DecisionView, full: boolean): string[] {
  const kind = d.kind && d.kind !== d.type ? ` (${d.kind})` : "";
  const out = [`== ${d.time}  bar ${d.bar}  ${HOOK_NAMES[d.type] ?? d.type}${kind} ==`];
  if (d.contextHash) out.push(`Context hash  ${d.contextHash}`);
  if (d.tokens) {
    out.push(
      `Tokens        ${Object.entries(d.tokens)
        .map(([k, v]) => `${k} ${v}`)
        .join(", ")}`,
    );
  }
  if (d.tokensUnknownCalls) {
    out.push(
      `              unknown for ${d.tokensUnknownCalls} call(s): the server reported no usage`,
    );
  }
  if (d.error) out.push(`Error         ${inline(d.error, WIDTH - 14)}`);
  out.push(d.orders.length ? "Orders" : "Orders        none");
  for (const o of d.orders) {
    const extra = [
      o.stopLoss !== null ? `stop-loss ${o.stopLoss}` : "",
      o.takeProfit !== null ? `take-profit ${o.takeProfit}` : "",
      o.status ? `[${o.status}${o.reason ? `: ${o.reason}` : ""}]` : "",
      o.tag ? `"${o.tag}"` : "",
    ].filter(Boolean);
    out.push(clip(`  #${o.id ?? "?"} ${describeOrder(o)}  ${extra.join("  ")}`.trimEnd(), WIDTH));
  }
  if (d.cancels.length) out.push(`Cancels       ${d.cancels.map((c) => inline(c, 20)).join(", ")}`);
  if (d.memory.length)
    out.push(`Memory        ${clip(d.memory.map(memoryWrite).join(", "), WIDTH - 14)}`);
  if (d.toolCalls.length) out.push("Tool calls");
  for (const [i, c] of d.toolCalls.entries()) {
    const head = `  ${i + 1}. ${c.name}(`;
    out.push(`${head}${inline(c.args, WIDTH - textWidth(head) - 1)})`);
    if (c.error) out.push(`     error: ${inline(c.error, WIDTH - 12)}`);
    else out.push(`     -> ${inline(c.result, WIDTH - 8)}`);
  }
  if (d.reasoning) {
    // Long and rarely needed: its size, and the whole text with --full.
    if (full) {
      out.push(`Reasoning (${d.reasoning.chars} chars, kept apart from the rationale)`);
      out.push(...d.reasoning.text.split("\n").map((l) => `  ${l}`));
    } else out.push(`Reasoning     ${d.reasoning.chars} chars (--full shows it)`);
  }
  if (d.rationale !== null) {
    out.push("Rationale");
    out.push(...d.rationale.split("\n").map((l) => `  ${l}`));
  }
  for (const r of d.recalls) {
    out.push(`Recall "${clip(r.query, WIDTH - 20)}": ${r.citations.length} citation(s)`);
    for (const c of r.citations) {
      out.push(`  ${c.path}:${c.startLine}-${c.endLine}  score ${c.score.toFixed(3)}`);
      out.push(`    ${inline(c.snippet, WIDTH - 4)}`);
    }
  }
  if (d.context) {
    out.push(
      `Context the model saw (request ${d.context.requestHash.slice(0, 12)}, transcript #${d.context.seq})`,
    );
    for (const m of d.context.messages) out.push(...formatMessage(m, full));
  } else if (d.requestHashes.length) {
    out.push(
      "Context: its request is not in transcript.jsonl (deleted, or the run was cut short).",
    );
  }
  return out;
}

function formatMessage(m: { role: string; content: string }, full: boolean): string[] {
  const body = m.content.split("\n");
  const out = [`--- ${m.role} (${m.content.length} chars) ---`];
  if (m.role === "system" && !full && body.length > SYSTEM_PREVIEW_LINES) {
    out.push(...body.slice(0, SYSTEM_PREVIEW_LINES));
    out.push(`... ${body.length - SYSTEM_PREVIEW_LINES} more lines (--full shows all)`);
  } else out.push(...body);
  return out;
}

/** A memory write as people read it: `note position_GOOG (113 chars)`; anything else inline. */
function memoryWrite(m: unknown): string {
  if (typeof m !== "object" || m === null || typeof (m as { tool?: unknown }).tool !== "string") {
    return inline(m, 60);
  }
  const { tool, key, chars } = m as { tool: string; key?: unknown; chars?: unknown };
  const what = typeof key === "string" ? ` ${key}` : "";
  const size = typeof chars === "number" ? ` (${chars} chars)` : "";
  return `${tool}${what}${size}`;
}
