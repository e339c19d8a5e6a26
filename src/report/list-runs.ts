import fs from "node:fs";
import path from "node:path";
import { liveStatus } from "../rundir/run-lock.js";
import {
  llmCostUsd,
  llmModel,
  llmUsageUnknown,
  numberAt,
  readConfig,
  readResult,
} from "../rundir/run-record.js";
import type { ListOutput, RunListEntry } from "../rundir/schemas.js";
import { SymlinkError } from "../util/no-follow.js";
import { keyParams } from "./key-params.js";

/**
 * Every run directory under `runsRoot`, sorted by id (ids start with the creation time). A run
 * whose result.json cannot be read is listed as "unreadable" with the reason, never skipped: a
 * damaged or half-written run is exactly what a user listing runs wants to notice. A link there
 * is listed as refused, and nothing is read through it (every command refuses it).
 */
export function listRuns(runsRoot: string): ListOutput {
  const root = path.resolve(runsRoot);
  const ids = fs.existsSync(root)
    ? fs
        .readdirSync(root, { withFileTypes: true })
        .filter((e) => (e.isDirectory() || e.isSymbolicLink()) && !e.name.startsWith("."))
        .map((e) => ({ id: e.name, link: e.isSymbolicLink() }))
        .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    : [];
  return {
    runsRoot: root,
    runs: ids.map(({ id, link }) => {
      const dir = path.join(root, id);
      return link
        ? { ...unread(dir, id), error: new SymlinkError(dir).message }
        : listEntry(dir, id);
    }),
  };
}

function listEntry(dir: string, id: string): RunListEntry {
  try {
    const r = readResult(dir);
    return {
      id,
      dir,
      startedAt: r.startedAt,
      name: typeof r.name === "string" ? r.name : r.strategy.name,
      symbols: r.data.map((d) => d.symbol),
      keyParams: keyParamsOf(dir),
      strategy: r.strategy.name,
      model: llmModel(r),
      // A run whose process died (kill -9, a power cut) is not `running`: its lock says so.
      status: liveStatus(dir, r.status),
      finishedAt: r.finishedAt,
      returnPct: numberAt(r.metrics, "returnPct"),
      buyHoldReturnPct: numberAt(r.benchmark.metrics, "returnPct"),
      trades: numberAt(r.metrics, "trades"),
      costUsd: llmCostUsd(r),
      ...(llmUsageUnknown(r) ? { usageUnknown: true as const } : {}),
      error: null,
    };
  } catch (err) {
    return { ...fromConfig(dir, id), error: (err as Error).message };
  }
}

/** A row with nothing read yet: "unreadable" until a file says more. */
function unread(dir: string, id: string): RunListEntry {
  return {
    id,
    dir,
    startedAt: null,
    name: null,
    symbols: [],
    keyParams: "",
    strategy: null,
    model: null,
    status: "unreadable",
    finishedAt: null,
    returnPct: null,
    buyHoldReturnPct: null,
    trades: null,
    costUsd: null,
    error: null,
  };
}

/** What config.json still tells about a run without a readable result.json. */
function fromConfig(dir: string, id: string): RunListEntry {
  const entry = unread(dir, id);
  try {
    const config = readConfig(dir);
    entry.keyParams = keyParams(config);
    if (typeof config.name === "string") entry.name = config.name;
    const strategyPath = config.strategyPath;
    if (typeof strategyPath === "string") {
      entry.strategy = path.basename(strategyPath).replace(/\.[^.]+$/, "");
    }
    const agent = config.agent;
    if (agent !== null && typeof agent === "object" && "model" in agent) {
      entry.model = typeof agent.model === "string" ? agent.model : null;
    }
  } catch {
    // No usable config either: the row says "unreadable" with result.json's reason.
  }
  return entry;
}

/** config.json's key parameters; "" when it cannot be read (the row still lists the run). */
function keyParamsOf(dir: string): string {
  try {
    return keyParams(readConfig(dir));
  } catch {
    return "";
  }
}
