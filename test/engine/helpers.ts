import { alignSeries } from "../../src/engine/align-series.js";
import type { Broker } from "../../src/engine/broker.js";
import {
  type BrokerConfig,
  brokerConfig,
  DEFAULT_BROKER_CONFIG,
  type RiskLimits,
} from "../../src/engine/broker-config.js";
import type { FeeModel } from "../../src/engine/fee-model.js";
import type { FillModel } from "../../src/engine/fill-model.js";
import type { Simulation } from "../../src/engine/simulation.js";
import type {
  ClosedTrade,
  EngineEvent,
  EngineEventType,
  Fill,
  Order,
  SymbolSeries,
} from "../../src/engine/types.js";
import { simulateSync } from "../../src/runner/simulate.js";
import type { Strategy } from "../../src/strategy/types.js";

/** `[date, open, high, low, close, volume]`; date is `YYYY-MM-DD`, `YYYY-MM-DDTHH:MM` or ms. */
export type Row = readonly [string | number, number, number, number, number, number];

/** Wall-clock time as written, read as UTC (the engine's convention). */
export function utc(date: string | number): number {
  if (typeof date === "number") return date;
  const iso = date.length === 10 ? `${date}T00:00:00Z` : `${date}:00Z`;
  const t = Date.parse(iso);
  if (Number.isNaN(t)) throw new Error(`bad test date ${date}`);
  return t;
}

export function series(symbol: string, rows: readonly Row[]): SymbolSeries {
  const col = (k: number): Float64Array =>
    Float64Array.from(rows, (r) => (k === 0 ? utc(r[0]) : (r[k] as number)));
  return {
    symbol,
    source: `${symbol}.csv`,
    length: rows.length,
    time: col(0),
    open: col(1),
    high: col(2),
    low: col(3),
    close: col(4),
    volume: col(5),
  };
}

/** Daily rows on consecutive calendar days from `start`, each `[o, h, l, c]` with volume 1e6. */
export function daily(
  start: string,
  bars: ReadonlyArray<readonly [number, number, number, number]>,
): Row[] {
  const t0 = utc(start);
  return bars.map((b, k) => [t0 + k * 86_400_000, b[0], b[1], b[2], b[3], 1_000_000] as const);
}

export type Step = (broker: Broker, i: number) => void;
export type Script = Readonly<Record<number, Step>>;

export interface RunResult {
  events: EngineEvent[];
  equity: number[];
  trades: ClosedTrade[];
  fills: Fill[];
  orders: Order[];
  broker: Broker;
  sim: Simulation;
}

/** Broker overrides; risk limits may be given one at a time. */
export type TestConfig = Omit<Partial<BrokerConfig>, "risk"> & { risk?: Partial<RiskLimits> };

/**
 * Runs the script through the one core every run uses (`simulateSync`, the loop of `simulate()`):
 * each bar opens (working orders fill), `script[i]` acts on the broker as the bar's decision, and
 * the bar closes. Every engine event is collected as emitted; an engine error is thrown as is.
 */
export function run(
  input: SymbolSeries | readonly SymbolSeries[],
  config: TestConfig,
  script: Script,
  fees?: FeeModel,
  fillModel?: FillModel,
): RunResult {
  const list = Array.isArray(input) ? (input as readonly SymbolSeries[]) : [input as SymbolSeries];
  const data = alignSeries(list);
  const events: EngineEvent[] = [];
  let sim: Simulation | null = null;
  const broker = () => (sim as Simulation).broker;
  const strategy: Strategy<unknown> = {
    name: "engine-test-script",
    onBar(ctx) {
      script[ctx.index]?.(broker(), ctx.index);
    },
  };
  simulateSync(
    {
      data,
      broker: brokerConfig({ ...config, risk: { ...DEFAULT_BROKER_CONFIG.risk, ...config.risk } }),
      strategy,
      records: false,
      ...(fees ? { fees } : {}),
      ...(fillModel ? { fills: fillModel } : {}),
    },
    {
      onEvent: (e) => events.push(e),
      onReady: (s) => {
        sim = s;
      },
    },
  );
  const done = sim as unknown as Simulation;
  const fills: Fill[] = [];
  const trades: ClosedTrade[] = [];
  for (const e of events) {
    if (e.type === "fill") fills.push(e.fill);
    else if (e.type === "trade_closed") trades.push(e.trade);
  }
  return {
    events,
    equity: Array.from(done.equity),
    trades,
    fills,
    orders: done.broker.orders,
    broker: done.broker,
    sim: done,
  };
}

export function ofType<T extends EngineEventType>(
  events: readonly EngineEvent[],
  type: T,
): Extract<EngineEvent, { type: T }>[] {
  return events.filter((e): e is Extract<EngineEvent, { type: T }> => e.type === type);
}

export function orderById(r: RunResult, id: number): Order {
  const o = r.orders.find((x) => x.id === id);
  if (!o) throw new Error(`no order ${id}`);
  return o;
}

export function only<T>(xs: readonly T[]): T {
  if (xs.length !== 1) throw new Error(`expected exactly one element, got ${xs.length}`);
  return xs[0] as T;
}
