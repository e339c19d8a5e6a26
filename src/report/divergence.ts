import type { DecisionView, Divergence } from "../rundir/schemas.js";
import { describeOrder } from "./decision-lines.js";

interface BarDecision {
  bar: number;
  /** What is compared: the orders placed and the decision turns' tool calls. */
  signature: string;
  description: string;
}

/**
 * What a run decided at each bar (by time label). Orders are compared by symbol, side, type and
 * size (ids and tags are bookkeeping). For LLM runs the decision turns' tool calls (name and
 * arguments) count too; memory moments do not, they are bookkeeping of what was decided.
 */
function byBar(lines: DecisionView[]): Map<string, BarDecision> {
  const out = new Map<string, BarDecision>();
  const grouped = new Map<string, DecisionView[]>();
  for (const l of lines) grouped.set(l.time, [...(grouped.get(l.time) ?? []), l]);
  for (const [time, ls] of grouped) {
    const orders = ls.flatMap((l) => l.orders);
    const calls = ls.filter((l) => l.type === "decision").flatMap((l) => l.toolCalls);
    const signature = JSON.stringify({
      orders: orders.map((o) => [o.symbol, o.side, o.type, o.size]),
      calls: calls.map((c) => [c.name, c.args]),
    });
    const parts = [
      orders.length ? orders.map(describeOrder).join("; ") : "no orders",
      calls.length ? `tools ${calls.map((c) => `${c.name}(${brief(c.args)})`).join(", ")}` : "",
    ];
    out.set(time, {
      bar: (ls[0] as DecisionView).bar,
      signature,
      description: parts.filter(Boolean).join("; "),
    });
  }
  return out;
}

const EMPTY = JSON.stringify({ orders: [], calls: [] });

function brief(args: unknown): string {
  const text = JSON.stringify(args) ?? "";
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/**
 * The first bar, in time order, where the two runs' decisions differ; a bar one run has no line
 * for counts as "no orders, no tool calls", so an extra order in one run is a divergence.
 */
export function firstDivergence(a: DecisionView[], b: DecisionView[]): Divergence {
  const da = byBar(a);
  const db = byBar(b);
  const times = [...new Set([...da.keys(), ...db.keys()])].sort();
  for (const time of times) {
    const x = da.get(time);
    const y = db.get(time);
    if ((x?.signature ?? EMPTY) === (y?.signature ?? EMPTY)) continue;
    return {
      diverged: true,
      time,
      barA: x?.bar ?? null,
      barB: y?.bar ?? null,
      a: x?.description ?? "no decision line (nothing done)",
      b: y?.description ?? "no decision line (nothing done)",
    };
  }
  return { diverged: false, time: null, barA: null, barB: null, a: null, b: null };
}
