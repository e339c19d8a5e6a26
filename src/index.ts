/**
 * The library entry: `import { backtest, type Strategy } from "agenticbt"`. The CLI never imports
 * this file (its `--help` stays fast); everything here is also what the `agenticbt` command runs.
 */
export type { AgentEvent, AgentEventListener } from "./agent/agent-events.js";
export { type LoadCsvOptions, type LoadedCsv, loadCsv } from "./data/load-csv.js";
export { alignSeries } from "./engine/align-series.js";
export {
  type BrokerConfig,
  brokerConfig,
  DEFAULT_BROKER_CONFIG,
  type RiskLimits,
} from "./engine/broker-config.js";
export {
  brokerFees,
  type FeeFunction,
  type FeeModel,
  FeeModelError,
  feeFunction,
} from "./engine/fee-model.js";
export {
  type BarPrices,
  DEFAULT_FILL_MODEL,
  type FillModel,
  type PriceMatch,
} from "./engine/fill-model.js";
export type {
  Bar,
  ClosedTrade,
  EngineEvent,
  Fill,
  MarketData,
  Order,
  OrderRequest,
  OrderSize,
  OrderStatus,
  OrderType,
  Position,
  Side,
  SymbolSeries,
  TimeInForce,
} from "./engine/types.js";
export { UsageError } from "./errors/usage-error.js";
export type { BenchmarkMetrics, Metrics } from "./metrics/types.js";
export type { RunError, RunResult, RunStatus } from "./rundir/run-result.js";
export type { ReportedTrade } from "./rundir/write-outputs.js";
export { type AgentOptions, DEFAULT_AGENT_OPTIONS } from "./runner/agent-options.js";
export {
  type BacktestOptions,
  type BacktestResult,
  type BacktestTrade,
  backtest,
} from "./runner/backtest.js";
export { type RunOptions, runBacktest } from "./runner/run-backtest.js";
export {
  type DataSpec,
  DEFAULT_RECALL_OPTIONS,
  type RecallOptions,
  type RunConfig,
} from "./runner/run-config.js";
export type * from "./runner/run-events.js";
export { type RunHandle, type Simulated, type SimulateInput, simulate } from "./runner/simulate.js";
export {
  type Citation,
  defineStrategy,
  type IndicatorView,
  type OrderOptions,
  type OrderUpdate,
  type Params,
  type ParamValue,
  type RecallAnswer,
  type Strategy,
  type StrategyContext,
} from "./strategy/types.js";
export {
  type CombinationOutcome,
  type SweepOptions,
  type SweepOutput,
  type SweepSummary,
  sweep,
  type WalkForwardResult,
} from "./sweep/sweep.js";
export { VERSION } from "./version.js";
