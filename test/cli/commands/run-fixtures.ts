import fs from "node:fs";
import path from "node:path";

export interface FakeRun {
  id: string;
  status?: string;
  name?: string;
  strategy?: string;
  symbols?: string[];
  returnPct?: number | null;
  trades?: number;
  costUsd?: number | null;
  model?: string;
  startedAt?: string;
  finishedAt?: string | null;
  params?: Record<string, unknown>;
  paramOverrides?: Record<string, unknown>;
  broker?: Record<string, unknown>;
}

/**
 * A run directory with the result.json and config.json fields `list`, `rm` and `prune` read,
 * written the way the runner writes them (without the simulation behind them).
 */
export function writeRun(runsRoot: string, r: FakeRun): string {
  const dir = path.join(runsRoot, r.id);
  fs.mkdirSync(dir, { recursive: true });
  const strategy = r.strategy ?? "sma-crossover";
  const startedAt =
    r.startedAt ?? `${r.id.slice(0, 4)}-${r.id.slice(4, 6)}-${r.id.slice(6, 8)}T00:00:00.000Z`;
  const metrics =
    r.returnPct === null ? null : { returnPct: r.returnPct ?? 1, trades: r.trades ?? 0 };
  const result = {
    schemaVersion: 1,
    id: r.id,
    name: r.name ?? strategy,
    status: r.status ?? "completed",
    error: null,
    strategy: {
      kind: r.model ? "llm" : "code",
      path: `strategies/${strategy}.ts`,
      name: strategy,
      params: r.params ?? {},
    },
    data: (r.symbols ?? ["GOOG"]).map((symbol) => ({ symbol })),
    period: { start: "2010-01-04", end: "2010-12-31", bars: 252 },
    metrics,
    benchmark: { metrics: metrics && { returnPct: 5 } },
    startedAt,
    finishedAt: r.finishedAt === undefined ? startedAt : r.finishedAt,
    llm:
      r.model === undefined
        ? null
        : { model: r.model, usage: { cost: { usd: r.costUsd ?? null, reason: null } } },
  };
  const config = {
    id: r.id,
    strategyPath: `strategies/${strategy}.ts`,
    name: r.name ?? null,
    params: r.params ?? {},
    ...(r.paramOverrides ? { paramOverrides: r.paramOverrides } : {}),
    broker: r.broker ?? {},
  };
  fs.writeFileSync(path.join(dir, "result.json"), JSON.stringify(result));
  fs.writeFileSync(path.join(dir, "config.json"), JSON.stringify(config));
  return dir;
}
