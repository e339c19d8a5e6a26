import path from "node:path";
import { UsageError } from "../errors/run-errors.js";
import { DEFAULT_MEMORY_SYSTEM } from "../memory/memory-registry.js";
import { COMPARED_METRICS, formatMetric, metricFormat } from "../metrics/metric-labels.js";
import {
  llmCostUsd,
  llmUsageUnknown,
  numberAt,
  type ResultFile,
  readResult,
} from "../rundir/run-record.js";
import { keyWords } from "../util/key-words.js";
import {
  type Behaviour,
  behaviour,
  type CommonMemory,
  commonMemory,
  identityWarnings,
  type RunIdentity,
  runIdentity,
} from "./compare-facts.js";
import { decisionLines } from "./decision-lines.js";
import { FLOW_KEYS, flowLabel, layeredFlow } from "./layered-flow.js";

export interface ComparedRun {
  id: string;
  dir: string;
  name: string;
  /** `--memory`'s system (files for runs recorded before memory systems). */
  memorySystem: string;
  status: string;
  metrics: Record<string, number | null>;
  /** Window, data, strategy, parameters and model: what must match for a fair comparison. */
  identity: RunIdentity;
  /** The system's statistics as it reports them (result.json `memory`). */
  memory: Record<string, number>;
  /** The counters every memory system gets, counted alike from decisions.jsonl. */
  common: CommonMemory;
  /** Decisions by outcome, turnover, holding time. */
  behaviour: Behaviour;
  /** The layered memory's flow counted from its layered.jsonl (layered-flow.ts); null for a
   * run without that log. */
  layeredFlow: Record<string, number> | null;
  /** Model calls, tokens and cost; null for a code strategy. */
  llm: {
    calls: number | null;
    promptTokens: number | null;
    completionTokens: number | null;
    cachedTokens: number | null;
    costUsd: number | null;
    /** Present (true) when the server reported no token usage: tokens and cost are unknown. */
    usageUnknown?: true;
  } | null;
}

export interface CompareOutput {
  runs: ComparedRun[];
  metrics: string[];
  /** Every memory statistic any run reports, in first-seen order. */
  memoryStats: string[];
  /** Every layered flow count any run has (FLOW_KEYS first, then first-seen); [] when none. */
  flowStats: string[];
  /** The runs differ in window, data or strategy: their figures are not like for like. */
  warnings: string[];
}

/** N runs side by side (`agenticbt compare`, and the end of `run --memory a,b`). */
export function compareRuns(dirs: readonly string[]): CompareOutput {
  if (dirs.length < 2) {
    throw new UsageError("compare needs at least two runs: agenticbt compare <runA> <runB> [...].");
  }
  const runs = dirs.map((dir) => comparedRun(dir, readResult(dir)));
  const memoryStats: string[] = [];
  for (const r of runs) {
    for (const key of Object.keys(r.memory)) if (!memoryStats.includes(key)) memoryStats.push(key);
  }
  const flowStats: string[] = [];
  for (const r of runs) {
    for (const key of Object.keys(r.layeredFlow ?? {})) {
      if (!flowStats.includes(key)) flowStats.push(key);
    }
  }
  // The fixed keys first, whatever order the logs gave.
  flowStats.sort((a, b) => rank(a) - rank(b));
  return {
    runs,
    metrics: [...COMPARED_METRICS],
    memoryStats,
    flowStats,
    warnings: identityWarnings(runs.map((r) => r.identity)),
  };
}

function comparedRun(dir: string, r: ResultFile): ComparedRun {
  const metrics: Record<string, number | null> = {};
  for (const key of COMPARED_METRICS) metrics[key] = numberAt(r.metrics, key);
  const system = (r as { memorySystem?: unknown }).memorySystem;
  // Read once: the memory counters and the behaviour both walk every decision.
  const decisions = decisionLines(dir);
  return {
    id: r.id,
    dir: path.resolve(dir),
    name: nameOf(r),
    memorySystem: typeof system === "string" ? system : DEFAULT_MEMORY_SYSTEM,
    status: r.status,
    metrics,
    identity: runIdentity(r),
    memory: { ...(r.memory ?? {}) },
    common: commonMemory(decisions, r),
    behaviour: behaviour(dir, decisions, r),
    layeredFlow: layeredFlow(dir),
    llm: llmOf(r),
  };
}

/** FLOW_KEYS in their order, then every other key (a stable sort keeps first-seen order). */
function rank(key: string): number {
  const i = (FLOW_KEYS as readonly string[]).indexOf(key);
  return i === -1 ? FLOW_KEYS.length : i;
}

function nameOf(r: ResultFile): string {
  const name = (r as { name?: unknown }).name;
  return typeof name === "string" ? name : r.strategy.name;
}

function llmOf(r: ResultFile): ComparedRun["llm"] {
  if (!r.llm) return null;
  const usage = r.llm.usage as
    | { calls?: Record<string, unknown>; tokens?: Record<string, unknown> }
    | null
    | undefined;
  // Counts the server never reported are unknown, not the zeros they were added up as.
  const unknown = llmUsageUnknown(r);
  const tokens = (key: string) => (unknown ? null : numberAt(usage?.tokens, key));
  return {
    calls: numberAt(usage?.calls, "total"),
    promptTokens: tokens("prompt"),
    completionTokens: tokens("completion"),
    cachedTokens: tokens("cached"),
    costUsd: llmCostUsd(r),
    ...(unknown ? { usageUnknown: true as const } : {}),
  };
}

/** The comparison as rows (label, one value per run), for the text table and the HTML page. */
export function compareRows(
  c: CompareOutput,
): { section: string; rows: [string, ...unknown[]][] }[] {
  const per = (f: (r: ComparedRun) => unknown) => c.runs.map(f);
  return [
    {
      section: "Run",
      rows: [
        ["name", ...per((r) => r.name)],
        ["window", ...per((r) => r.identity.window)],
        ["data", ...per((r) => r.identity.data)],
        ["strategy", ...per((r) => r.identity.strategy)],
        ["parameters", ...per((r) => r.identity.params)],
        ["model", ...per((r) => r.identity.model)],
        ["memory", ...per((r) => r.memorySystem)],
        ["status", ...per((r) => r.status)],
      ],
    },
    {
      section: "Metrics",
      rows: c.metrics.map((k) => [
        metricFormat(k).label,
        ...per((r) => {
          const v = r.metrics[k] ?? null;
          return v === null ? null : formatMetric(k, v);
        }),
      ]),
    },
    {
      section: "Behaviour",
      rows: [
        ["decisions with orders", ...per((r) => r.behaviour.decisions.orders)],
        ["holds", ...per((r) => r.behaviour.decisions.hold)],
        ["failed decisions", ...per((r) => r.behaviour.decisions.failed)],
        ["every order rejected", ...per((r) => r.behaviour.decisions.allRejected)],
        ["turnover", ...per((r) => round(r.behaviour.turnover, 2))],
        ["avg holding bars", ...per((r) => round(r.behaviour.avgHoldingBars, 1))],
      ],
    },
    {
      section: "Memory (every system)",
      rows: [
        ["writes", ...per((r) => r.common.writes)],
        ["recalls", ...per((r) => r.common.recalls)],
        ["citations returned", ...per((r) => r.common.citations)],
        ["memory share of prompt", ...per((r) => percent(r.common.promptShare))],
        ["prompt-prefix hashes", ...per((r) => r.common.prefixHashes)],
        ["index health", ...per((r) => r.common.indexHealth)],
        ["index files", ...per((r) => r.common.index?.files ?? null)],
        ["index chunks", ...per((r) => r.common.index?.chunks ?? null)],
        ["index vectors", ...per((r) => r.common.index?.vectors ?? null)],
        ["index last sync", ...per((r) => r.common.index?.lastSync ?? null)],
      ],
    },
    ...(c.flowStats.length === 0
      ? []
      : [
          {
            section: "Memory flow (layered.jsonl)",
            rows: c.flowStats.map((k): [string, ...unknown[]] => [
              flowLabel(k),
              ...per((r) => (r.layeredFlow === null ? null : (r.layeredFlow[k] ?? 0))),
            ]),
          },
        ]),
    {
      section: "Memory (the system's own)",
      rows: c.memoryStats.map((k) => [keyWords(k), ...per((r) => r.memory[k] ?? null)]),
    },
    {
      section: "LLM",
      rows: [
        ["calls", ...per((r) => r.llm?.calls ?? null)],
        ["prompt tokens", ...per((r) => orUnknown(r, r.llm?.promptTokens))],
        ["completion tokens", ...per((r) => orUnknown(r, r.llm?.completionTokens))],
        ["cached tokens", ...per((r) => orUnknown(r, r.llm?.cachedTokens))],
        // An LLM run without a cost has a price unknown (or usage unknown): never $0 nor n/a.
        [
          "cost USD",
          ...per((r) => (r.llm && r.llm.costUsd === null ? "unknown" : (r.llm?.costUsd ?? null))),
        ],
      ],
    },
  ];
}

/** A figure, or "unknown" for a run whose server reported no token usage (n/a means no figure). */
function orUnknown(r: ComparedRun, value: number | null | undefined): number | string | null {
  if (r.llm?.usageUnknown && (value === null || value === undefined)) return "unknown";
  return value ?? null;
}

const round = (v: number | null, digits: number) =>
  v === null ? null : Math.round(v * 10 ** digits) / 10 ** digits;

const percent = (v: number | null) => (v === null ? null : `${(v * 100).toFixed(1)}%`);
