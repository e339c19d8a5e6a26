import { createHash } from "node:crypto";
import v8 from "node:v8";
import type { BrokerState } from "../engine/broker.js";
import type { Order } from "../engine/types.js";
import type { IndicatorUse } from "../indicators/indicator-use.js";
import type { StateOutcome } from "../rundir/checkpoint.js";
import type { SettledCounts } from "../rundir/state-files.js";
import type { ReportedTrade } from "../rundir/write-outputs.js";
import type { BacktestContext, IndicatorSpec } from "../strategy/context.js";

/**
 * A code run's state after a bar, as a resume continues from it: the broker (the orders not yet
 * settled, working orders, portfolio, lots) and the strategy's `state`. What only grows (the
 * curves, the records, the settled orders, trades and rejected orders) is in the appended files
 * (state-files.ts), `settled` says how much of it. The indicators are not in it: they are computed
 * over the whole series when first asked for, so the resumed run asks for them again.
 */
export interface RunState {
  version: typeof RUN_STATE_VERSION;
  /** The last bar whose close and hooks were processed. */
  bar: number;
  /** Its `orders` from position `settled.orders` on. */
  broker: BrokerState;
  settled: SettledCounts;
  endsClosed: number;
  stopRequest: BacktestContext["stopRequest"];
  /** The strategy's state as JSON (indicator views as their `ctx.indicator` arguments), and the
   * sha256 of that text: the resumed run's state must encode to the same. */
  strategyState: string;
  strategyStateSha256: string;
  /** The indicators `ctx.indicator` created so far, in the order first created (indicators.json):
   * reviving the state makes its views again, but not those it no longer holds, nor in order. */
  indicatorsUsed: IndicatorUse[];
}

const RUN_STATE_VERSION = 3;

/** A saved state with what only grows, read from the files it was appended to (state-files.ts):
 * equity, cash and exposure at each close from the window's first bar to `bar`, and the lines. */
export interface RunRestore {
  state: RunState;
  equity: Float64Array;
  cash: Float64Array;
  exposed: Uint8Array;
  orderLines: string[];
  decisionLines: string[];
  /** The same lines as bytes (each ending in \n), for the checkpoint's digests. */
  orderBytes: Uint8Array;
  decisionBytes: Uint8Array;
  /** The settled orders (the broker's first), and every trade and rejected order so far. */
  settled: { orders: Order[]; trades: ReportedTrade[]; rejected: number[] };
}

/** What a run hands over to save its state, or why it cannot. */
export type StateParts = Omit<
  RunState,
  "version" | "strategyState" | "strategyStateSha256" | "indicatorsUsed"
> & {
  strategyState: unknown;
};

export function encodeRunState(parts: StateParts, ctx: BacktestContext): StateOutcome {
  const encoded = encodeStrategyState(parts.strategyState, ctx);
  if ("skipped" in encoded) return encoded;
  const state: RunState = {
    ...parts,
    version: RUN_STATE_VERSION,
    strategyState: encoded.json,
    strategyStateSha256: sha256(encoded.json),
    indicatorsUsed: ctx.indicatorsUsed(),
  };
  return { bytes: v8.serialize(state) };
}

/** A saved state read back (the caller checked the file's header id and size against the
 * checkpoint's). */
export function decodeRunState(bytes: Uint8Array): RunState {
  const state = v8.deserialize(bytes) as RunState;
  if (state?.version !== RUN_STATE_VERSION) {
    throw new Error(`not a run state of version ${RUN_STATE_VERSION}`);
  }
  return state;
}

/** The strategy's state again, its indicator views made anew by `ctx` (which stands at the
 * state's bar), checked by encoding it back: the same text, by sha256, or an error. */
export function reviveStrategyState(state: RunState, ctx: BacktestContext): unknown {
  const value = revive(JSON.parse(state.strategyState) as unknown, ctx);
  const again = encodeStrategyState(value, ctx);
  if ("skipped" in again || sha256(again.json) !== state.strategyStateSha256) {
    throw new Error(
      "the strategy's state saved at the checkpoint does not read back to the same value " +
        `(${"skipped" in again ? again.skipped : "its sha256 differs"})`,
    );
  }
  ctx.restoreIndicatorsUsed(state.indicatorsUsed);
  return value;
}

/** The key that marks an indicator view in the saved state. */
const VIEW = "$agenticbt.indicator";
/** The state `undefined` (a strategy without `init`), which JSON has no text for. */
const UNDEFINED = { "$agenticbt.undefined": true };

class NotSaved extends Error {}

/**
 * The strategy's state as JSON, only when JSON holds it exactly: plain objects and arrays (no
 * holes, no shared or circular references), strings, booleans, null and finite numbers (not -0),
 * and the views `ctx.indicator` made. Anything else (a Map, a class instance, a function, NaN…)
 * would read back as another value: the run is then not continued from its state.
 */
export function encodeStrategyState(
  state: unknown,
  ctx: BacktestContext,
): { json: string } | { skipped: string } {
  try {
    const value = state === undefined ? UNDEFINED : encode(state, ctx, new Set(), "state");
    return { json: JSON.stringify(value) };
  } catch (err) {
    if (err instanceof NotSaved) return { skipped: err.message };
    throw err;
  }
}

function encode(v: unknown, ctx: BacktestContext, seen: Set<object>, at: string): unknown {
  switch (typeof v) {
    case "string":
    case "boolean":
      return v;
    case "number":
      if (!Number.isFinite(v) || Object.is(v, -0)) {
        throw new NotSaved(`${at} is ${Object.is(v, -0) ? "-0" : v}, which JSON cannot hold`);
      }
      return v;
    case "object": {
      if (v === null) return null;
      if (seen.has(v)) throw new NotSaved(`${at} is a shared or circular reference`);
      seen.add(v);
      const spec = ctx.indicatorSpecOf(v);
      if (spec !== undefined) return { [VIEW]: spec };
      if (Array.isArray(v)) {
        const out: unknown[] = [];
        for (let k = 0; k < v.length; k++) {
          if (!(k in v)) throw new NotSaved(`${at} has a hole at ${k}`);
          out.push(encode(v[k], ctx, seen, `${at}[${k}]`));
        }
        return out;
      }
      if (Object.getPrototypeOf(v) !== Object.prototype) {
        const name = (v as { constructor?: { name?: string } }).constructor?.name ?? "object";
        throw new NotSaved(`${at} is a ${name || "object"}, not a plain object`);
      }
      if (Object.getOwnPropertySymbols(v).length) throw new NotSaved(`${at} has symbol keys`);
      const out: Record<string, unknown> = {};
      for (const key of Object.getOwnPropertyNames(v)) {
        const d = Object.getOwnPropertyDescriptor(v, key);
        if (!d || !("value" in d) || !d.enumerable) {
          throw new NotSaved(`${at}.${key} is an accessor or hidden property`);
        }
        if (key === VIEW || key in UNDEFINED || key === "__proto__")
          throw new NotSaved(`${at} has the key ${key}`);
        out[key] = encode(d.value, ctx, seen, `${at}.${key}`);
      }
      return out;
    }
    default:
      throw new NotSaved(`${at} is ${typeof v === "undefined" ? "undefined" : `a ${typeof v}`}`);
  }
}

function revive(v: unknown, ctx: BacktestContext): unknown {
  if (v === null || typeof v !== "object") return v;
  if (Array.isArray(v)) return v.map((x) => revive(x, ctx));
  const o = v as Record<string, unknown>;
  const spec = o[VIEW] as IndicatorSpec | undefined;
  if (spec !== undefined) {
    return ctx.indicator(spec.name, spec.params, {
      ...(spec.symbol !== null ? { symbol: spec.symbol } : {}),
      ...(spec.output !== null ? { output: spec.output } : {}),
    });
  }
  if (Object.keys(o).length === 1 && o["$agenticbt.undefined"] === true) return undefined;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(o)) out[k] = revive(x, ctx);
  return out;
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
