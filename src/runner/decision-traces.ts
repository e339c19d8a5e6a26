import type { Order, OrderSize } from "../engine/types.js";
import type { ContextActivity } from "../strategy/context.js";
import { assertNever } from "../util/assert-never.js";

// Decision traces as memory (`--recall-sources traces`): after each recorded decision the
// framework appends one line to traces/<day>.md, so a later recall finds what was decided, what
// the broker made of it and why. Written after the decision, a trace is never seen by the
// decision it describes.

/** Characters of a rationale kept in its trace: the gist, not the essay. */
export const TRACE_RATIONALE_CHARS = 300;

/**
 * One decision's trace: its hook, the orders with their outcome (status, and the reason of a
 * rejection), the cancels, a failed turn's error type and the rationale's start. Memory calls and
 * recalls are left out: the memory holds them already, and a trace of each recall would match
 * every later recall of the same words. null when the decision placed, cancelled and said nothing,
 * and for an agent's memory moment.
 */
export function traceText(kind: string, a: ContextActivity): string | null {
  // An agent's memory turn (a moment) decides nothing about trading: its writes are the memory.
  if (a.details?.type === "moment") return null;
  const parts: string[] = [];
  for (const o of a.orders) parts.push(orderText(o));
  for (const id of a.cancels) parts.push(`cancel order #${id}`);
  const details = a.details ?? {};
  const error = details.error;
  if (error !== null && typeof error === "object" && "type" in error) {
    parts.push(`failed: ${String(error.type)}`);
  }
  const rationale = typeof details.rationale === "string" ? oneLine(details.rationale) : "";
  if (parts.length === 0 && rationale === "") return null;
  if (a.orders.length === 0 && a.cancels.length === 0 && details.rationale !== undefined) {
    parts.unshift("no order");
  }
  const why =
    rationale === ""
      ? ""
      : `; why: ${rationale.length > TRACE_RATIONALE_CHARS ? `${rationale.slice(0, TRACE_RATIONALE_CHARS)}…` : rationale}`;
  // An agent's decision says so (its hook is the bar's); a code strategy's names its hook.
  const label = typeof details.type === "string" ? details.type : kind;
  return `${label}: ${parts.join("; ")}${why}`;
}

function orderText(o: Order): string {
  const price = o.limitPrice !== null ? ` @ ${o.limitPrice}` : "";
  const stop = o.stopPrice !== null ? ` stop @ ${o.stopPrice}` : "";
  const outcome = o.reason === null ? o.status : `${o.status} (${o.reason})`;
  return `${o.side ?? "close"} ${sizeText(o.size)} ${o.symbol} ${o.type}${price}${stop} -> ${outcome}`;
}

function sizeText(size: OrderSize): string {
  switch (size.kind) {
    case "qty":
      return String(size.qty);
    case "fraction":
      return `${size.fraction * 100}% of equity`;
    case "weight":
      return `weight ${size.weight}`;
    default:
      return assertNever(size);
  }
}

const oneLine = (text: string) => text.replace(/\s+/g, " ").trim();
