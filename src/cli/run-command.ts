import path from "node:path";
import { parseSymbolArg } from "../data/symbol-name.js";
import { brokerConfig } from "../engine/broker-config.js";
import { parseParamArgs } from "../runner/resolve-params.js";
import type { RunHandle } from "../runner/run-backtest.js";
import type { RunConfig } from "../runner/run-config.js";
import { UsageError } from "../runner/run-errors.js";
import { formatSummary } from "./format-summary.js";
import { numberOption } from "./parse-number.js";
import { plainRenderer } from "./plain-renderer.js";

export interface RunCommandOptions {
  data?: string[];
  cash?: string;
  commission?: string;
  commissionFixed?: string;
  slippage?: string;
  slippageTicks?: string;
  tickSize?: string;
  tradeOnClose?: boolean;
  fractional?: boolean;
  allowShort?: boolean;
  shortMargin?: string;
  volumeCap?: string;
  maxPositionWeight?: string;
  maxOpenPositions?: string;
  maxGrossExposure?: string;
  haltDrawdown?: string;
  from?: string;
  to?: string;
  param?: string[];
  name?: string;
  runsDir?: string;
  strict?: boolean;
  tz?: string;
  json?: boolean;
  quiet?: boolean;
}

/** Turns command-line options into a resolved run config, refusing bad values (exit code 2). */
export function buildRunConfig(strategy: string, o: RunCommandOptions): RunConfig {
  if (!o.data || o.data.length === 0) {
    throw new UsageError(
      "No data: pass --data <csv> (several files, or SYM=path, for several symbols).",
    );
  }
  const nullable = (v: number | undefined) => (v === undefined ? null : v);
  const broker = brokerConfig({
    initialCash: numberOption("--cash", o.cash, { min: 1e-9 }) ?? 10_000,
    commissionRate: numberOption("--commission", o.commission, { min: 0, max: 0.5 }) ?? 0,
    commissionFixed: numberOption("--commission-fixed", o.commissionFixed, { min: 0 }) ?? 0,
    slippageRate: numberOption("--slippage", o.slippage, { min: 0, max: 0.5 }) ?? 0,
    slippageTicks: numberOption("--slippage-ticks", o.slippageTicks, { min: 0 }) ?? 0,
    tickSize: numberOption("--tick-size", o.tickSize, { min: 1e-12 }) ?? 0.01,
    tradeOnClose: o.tradeOnClose === true,
    fractional: o.fractional === true,
    allowShort: o.allowShort === true,
    shortMargin: numberOption("--short-margin", o.shortMargin, { min: 0, max: 10 }) ?? 0.5,
    volumeCap: nullable(numberOption("--volume-cap", o.volumeCap, { min: 1e-9, max: 1 })),
    risk: {
      maxPositionWeight: nullable(
        numberOption("--max-position-weight", o.maxPositionWeight, { min: 0 }),
      ),
      maxOpenPositions: nullable(
        numberOption("--max-open-positions", o.maxOpenPositions, { min: 1, integer: true }),
      ),
      maxGrossExposure: nullable(
        numberOption("--max-gross-exposure", o.maxGrossExposure, { min: 0 }),
      ),
      haltDrawdown: nullable(
        numberOption("--halt-drawdown", o.haltDrawdown, { min: 1e-9, max: 1 }),
      ),
    },
  });
  return {
    strategyPath: strategy,
    data: o.data.map((arg) => {
      const { symbol, file } = parseSymbolArg(arg);
      return symbol ? { file, symbol } : { file };
    }),
    broker,
    params: parseParamArgs(o.param ?? []),
    from: o.from ?? null,
    to: o.to ?? null,
    name: o.name ?? null,
    runsRoot: path.resolve(o.runsDir ?? path.join(".agenticbt", "runs")),
    strict: o.strict === true,
    tz: o.tz ?? null,
  };
}

/** `agenticbt run`: returns the process exit code. */
export async function runCommand(strategy: string, o: RunCommandOptions): Promise<number> {
  const config = buildRunConfig(strategy, o);
  const { runBacktest } = await import("../runner/run-backtest.js");
  const render = o.json || o.quiet ? () => {} : plainRenderer(process.stderr);
  let handle: RunHandle | null = null;
  let interrupts = 0;
  const onSigint = () => {
    interrupts++;
    if (interrupts > 1) process.exit(130);
    process.stderr.write(
      "\nInterrupted: finishing the current bar and writing the run (Ctrl-C again to abort).\n",
    );
    handle?.interrupt();
  };
  process.on("SIGINT", onSigint);
  try {
    const result = await runBacktest(config, {
      onEvent: render,
      onStart: (h) => {
        handle = h;
      },
    });
    if (o.json) {
      process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    } else {
      process.stdout.write(
        `${formatSummary(result)}\n\nRun ${result.id}\n${path.relative(process.cwd(), path.join(config.runsRoot, result.id)) || "."}\n`,
      );
    }
    return result.status === "completed" ? 0 : 1;
  } finally {
    process.off("SIGINT", onSigint);
  }
}
