import type { Order } from "../engine/types.js";

/** Rejections grouped by reason: numbers are folded (`…`) so that "insufficient cash: needs 120.50"
 * and "…needs 99.10" count as one reason. `reason` is the text itself when every rejection of the
 * group said exactly the same; `example` is the first one's full text. */
export interface RejectReason {
  reason: string;
  count: number;
  example: string;
}

/** result.json `orders`: every order placed, by final status, and why orders were rejected. */
export interface OrderCounts {
  submitted: number;
  filled: number;
  rejected: number;
  cancelled: number;
  expired: number;
  working: number;
  /** Most frequent first (ties: first seen first), at most MAX_REASONS groups. */
  rejectReasons: RejectReason[];
}

const MAX_REASONS = 10;
/** How many reasons the run summary and the warning name. */
const TOP_REASONS = 3;

const fold = (reason: string) => reason.replace(/-?\d+(?:\.\d+)?/g, "…");

export function countOrders(orders: readonly Order[]): OrderCounts {
  const c: OrderCounts = {
    submitted: 0,
    filled: 0,
    rejected: 0,
    cancelled: 0,
    expired: 0,
    working: 0,
    rejectReasons: [],
  };
  const groups = new Map<string, RejectReason>();
  for (const o of orders) {
    c.submitted++;
    if (o.status === "filled") c.filled++;
    else if (o.status === "cancelled") c.cancelled++;
    else if (o.status === "expired") c.expired++;
    else if (o.status === "rejected") {
      c.rejected++;
      const text = o.reason ?? "(no reason recorded)";
      const key = fold(text);
      const g = groups.get(key);
      if (!g) groups.set(key, { reason: text, count: 1, example: text });
      else {
        g.count++;
        if (g.reason !== text) g.reason = key;
      }
    } else c.working++;
  }
  // A stable sort keeps first-seen order among equal counts.
  c.rejectReasons = [...groups.values()].sort((a, b) => b.count - a.count).slice(0, MAX_REASONS);
  return c;
}

/**
 * The warning a run with rejected orders gets (stderr and result.json `warnings`): how many of how
 * many (and, when none filled, what became of the others), and the top reasons with their counts.
 * Null when no order was rejected.
 */
export function rejectionWarning(c: OrderCounts): string | null {
  if (c.rejected === 0) return null;
  const head =
    c.rejected === c.submitted
      ? `every order was rejected (${c.rejected} of ${c.submitted}, none filled). Top reasons:`
      : c.filled === 0
        ? `no order filled: ${c.rejected} of ${c.submitted} orders were rejected, ${unfilled(c)}. Top reasons:`
        : `${c.rejected} of ${c.submitted} orders were rejected (${c.filled} filled). Top reasons:`;
  return [head, ...reasonLines(c)].join("\n");
}

/** What became of the orders neither filled nor rejected: "1 still working at the end". */
function unfilled(c: OrderCounts): string {
  return [
    c.working ? `${c.working} still working at the end` : "",
    c.cancelled ? `${c.cancelled} cancelled` : "",
    c.expired ? `${c.expired} expired` : "",
  ]
    .filter(Boolean)
    .join(", ");
}

/** `  89× reason` for the top reasons, and a line for the rest. */
export function reasonLines(c: {
  rejected: number;
  rejectReasons: readonly { reason: string; count: number }[];
}): string[] {
  const top = c.rejectReasons.slice(0, TOP_REASONS);
  const lines = top.map((g) => `  ${g.count}× ${g.reason}`);
  const rest = c.rejected - top.reduce((n, g) => n + g.count, 0);
  if (rest > 0) lines.push(`  (${rest} more rejection${rest === 1 ? "" : "s"} for other reasons)`);
  return lines;
}
