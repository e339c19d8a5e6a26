import { z } from "zod";

// The `--json` outputs of `list`, `show`, `diff` and `recall`, and result.json (`run --json`). The
// report functions return these types, so what a script reads is exactly what the schema says
// (tests validate the printed JSON with them).

const num = z.number().nullable();

/** One `list` row; a run whose result.json cannot be read is a row with status "unreadable". */
export const runListEntrySchema = z.object({
  id: z.string(),
  dir: z.string(),
  startedAt: z.string().nullable(),
  /** The run's name (`--name`, default the strategy's name). */
  name: z.string().nullable(),
  symbols: z.array(z.string()),
  /** `--param` overrides and non-default broker options, e.g. `fast=10 slow=30 comm=0.001`. */
  keyParams: z.string(),
  strategy: z.string().nullable(),
  model: z.string().nullable(),
  status: z.string(),
  finishedAt: z.string().nullable(),
  returnPct: num,
  buyHoldReturnPct: num,
  trades: num,
  costUsd: num,
  /** Present (true) when the model server reported no token usage: tokens and cost are unknown. */
  usageUnknown: z.literal(true).optional(),
  /** Why the run could not be read, or null. */
  error: z.string().nullable(),
});
export type RunListEntry = z.infer<typeof runListEntrySchema>;

export const listOutputSchema = z.object({
  runsRoot: z.string(),
  runs: z.array(runListEntrySchema),
});
export type ListOutput = z.infer<typeof listOutputSchema>;

/** A run `rm` or `prune` deleted (or, with `--dry-run`, would delete). */
export const removedRunSchema = z.object({ id: z.string(), dir: z.string(), status: z.string() });
export type RemovedRun = z.infer<typeof removedRunSchema>;

/** `rm` and `prune`: the runs deleted; none when the user declined. */
export const removeOutputSchema = z.object({
  runsRoot: z.string(),
  dryRun: z.boolean(),
  runs: z.array(removedRunSchema),
});
export type RemoveOutput = z.infer<typeof removeOutputSchema>;

/** Health of a run's recall index (index.sqlite), as `RecallIndex.health()` reports it. */
export const recallHealthSchema = z.object({
  files: z.number(),
  chunks: z.number(),
  lastSync: z.string().nullable(),
  errors: z.array(z.string()),
  embeddings: z.object({ model: z.string(), baseURL: z.string(), vectors: z.number() }).nullable(),
});
export type RecallHealthView = z.infer<typeof recallHealthSchema>;

export const runFileSchema = z.object({
  path: z.string(),
  kind: z.enum(["file", "dir"]),
  /** Bytes of a file; number of files (recursively) in a directory. */
  size: z.number(),
});
export type RunFile = z.infer<typeof runFileSchema>;

/** `show <run>`: result.json and config.json as recorded, plus what the report derived. */
export const showOutputSchema = z.object({
  id: z.string(),
  dir: z.string(),
  /** result.json's status, or `interrupted (process gone)` for a `running` run whose process
   * is dead (its run.lock). */
  status: z.string(),
  highlights: z.array(z.object({ label: z.string(), value: z.string() })),
  result: z.looseObject({
    status: z.string(),
    metrics: z.record(z.string(), z.unknown()).nullable(),
    benchmark: z.looseObject({ metrics: z.record(z.string(), z.unknown()).nullable() }),
  }),
  config: z.record(z.string(), z.unknown()),
  memory: z.record(z.string(), z.number()).nullable(),
  /** Recall index health from result.json; null for runs written before it was recorded. */
  index: recallHealthSchema.nullable(),
  llm: z.record(z.string(), z.unknown()).nullable(),
  files: z.array(runFileSchema),
  /** How far a run got that has no simulated period in result.json (killed, or still running):
   * its last checkpoint's bar, as bars of the window and the bar's label; null when result.json
   * has the period, or no checkpoint was saved. */
  reached: z.object({ bars: z.number().int(), time: z.string(), savedAt: z.string() }).nullable(),
});
export type ShowOutput = z.infer<typeof showOutputSchema>;

export const citationSchema = z.object({
  path: z.string(),
  startLine: z.number(),
  endLine: z.number(),
  score: z.number(),
  snippet: z.string(),
  source: z.string().nullable(),
});

export const orderViewSchema = z.object({
  id: z.number().nullable(),
  symbol: z.string(),
  side: z.string().nullable(),
  type: z.string(),
  size: z.unknown(),
  limitPrice: num,
  stopPrice: num,
  stopLoss: num,
  takeProfit: num,
  status: z.string().nullable(),
  reason: z.string().nullable(),
  tag: z.string().nullable(),
});
export type OrderView = z.infer<typeof orderViewSchema>;

export const toolCallViewSchema = z.object({
  name: z.string(),
  args: z.unknown(),
  result: z.unknown(),
  error: z.unknown(),
});
export type ToolCallView = z.infer<typeof toolCallViewSchema>;

/** The messages of the first model request of a decision: exactly what the model saw. */
export const modelContextSchema = z.object({
  requestHash: z.string(),
  seq: z.number(),
  messages: z.array(z.object({ role: z.string(), content: z.string() })),
});
export type ModelContext = z.infer<typeof modelContextSchema>;

export const decisionViewSchema = z.object({
  time: z.string(),
  bar: z.number(),
  /** "decision" or "moment" for LLM runs; the hook kind ("bar", "month_end"…) for code. */
  type: z.string(),
  kind: z.string().nullable(),
  contextHash: z.string().nullable(),
  toolCalls: z.array(toolCallViewSchema),
  orders: z.array(orderViewSchema),
  cancels: z.array(z.unknown()),
  memory: z.array(z.unknown()),
  rationale: z.string().nullable(),
  /** The model's reasoning kept apart from the rationale (`<think>`, `reasoning_content`), and its
   * whole length; absent when the model gave none. */
  reasoning: z.object({ text: z.string(), chars: z.number() }).optional(),
  /** Model calls of the decision whose server reported no token usage (absent: none). */
  tokensUnknownCalls: z.number().optional(),
  recalls: z.array(
    z.object({
      query: z.string(),
      /** The memory write sequence the recall saw; null in runs recorded before it was. */
      seq: z.number().nullable(),
      citations: z.array(citationSchema),
    }),
  ),
  tokens: z.record(z.string(), z.number()).nullable(),
  error: z.unknown(),
  requestHashes: z.array(z.string()),
  context: modelContextSchema.nullable(),
});
export type DecisionView = z.infer<typeof decisionViewSchema>;

/** `show <run> --at <date>`: the lines of that bar, or the nearest dates that have some. */
export const showAtOutputSchema = z.object({
  id: z.string(),
  dir: z.string(),
  at: z.string(),
  found: z.boolean(),
  decisions: z.array(decisionViewSchema),
  nearby: z.object({ before: z.array(z.string()), after: z.array(z.string()) }),
});
export type ShowAtOutput = z.infer<typeof showAtOutputSchema>;

const changeSchema = z.object({ key: z.string(), a: z.unknown(), b: z.unknown() });

export const configDiffSchema = z.object({
  changed: z.array(changeSchema),
  added: z.array(z.object({ key: z.string(), b: z.unknown() })),
  removed: z.array(z.object({ key: z.string(), a: z.unknown() })),
});
export type ConfigDiff = z.infer<typeof configDiffSchema>;

export const metricRowSchema = z.object({
  key: z.string(),
  a: num,
  b: num,
  /** b − a, or null when either is missing. */
  delta: num,
});
export type MetricRow = z.infer<typeof metricRowSchema>;

export const memoryDiffSchema = z.object({
  added: z.array(z.string()),
  removed: z.array(z.string()),
  changed: z.array(z.string()),
  unchanged: z.number(),
});
export type MemoryDiff = z.infer<typeof memoryDiffSchema>;

export const journalStatsSchema = z.object({
  days: z.number(),
  entries: z.number(),
  words: z.number(),
  wordsPerDay: z.number().nullable(),
});
export type JournalStats = z.infer<typeof journalStatsSchema>;

export const tradeKeySchema = z.object({
  symbol: z.string(),
  side: z.string(),
  entryTime: z.string(),
  exitTime: z.string(),
  qty: z.number(),
  returnPct: num,
});
export type TradeKey = z.infer<typeof tradeKeySchema>;

export const divergenceSchema = z.object({
  /** False when the decisions never differ. */
  diverged: z.boolean(),
  time: z.string().nullable(),
  barA: num,
  barB: num,
  a: z.string().nullable(),
  b: z.string().nullable(),
});
export type Divergence = z.infer<typeof divergenceSchema>;

/** One accepted memory-policy proposal, as evolution writes it to `policy_snapshots/`. */
export const policySnapshotSchema = z.looseObject({
  month: z.string(),
  effectiveFrom: z.string(),
  reason: z.string(),
  changes: z.array(z.object({ key: z.string(), before: z.unknown(), after: z.unknown() })),
});

/** A key the agent changed at a month end, in force from `effectiveFrom`. */
export const policyChangeSchema = z.object({
  month: z.string(),
  effectiveFrom: z.string(),
  key: z.string(),
  before: z.unknown(),
  after: z.unknown(),
  reason: z.string(),
});
export type PolicyChange = z.infer<typeof policyChangeSchema>;

export const diffOutputSchema = z.object({
  a: z.object({ id: z.string(), dir: z.string() }),
  b: z.object({ id: z.string(), dir: z.string() }),
  config: configDiffSchema,
  metrics: z.array(metricRowSchema),
  /** Unified diff of playbook.md, A → B; "" when identical. */
  playbookDiff: z.string(),
  notes: memoryDiffSchema,
  reviews: memoryDiffSchema,
  journal: z.object({ a: journalStatsSchema, b: journalStatsSchema }),
  trades: z.object({
    onlyA: z.array(tradeKeySchema),
    onlyB: z.array(tradeKeySchema),
    common: z.number(),
    /** Of onlyA (and as many of onlyB): the same trade in the other run with another quantity. */
    resized: z.number(),
  }),
  divergence: divergenceSchema,
  /** Memory-policy changes made during each run (evolution); the starting policies are in config. */
  policy: z.object({ a: z.array(policyChangeSchema), b: z.array(policyChangeSchema) }),
});
export type DiffOutput = z.infer<typeof diffOutputSchema>;

/** `recall <run> "<query>"`: the citations, and how they were searched. */
export const recallOutputSchema = z.object({
  run: z.object({ id: z.string(), dir: z.string() }),
  query: z.string(),
  /** The simulated time searched as of (`--as-of`, as a run time label), or null: all memory. */
  asOf: z.string().nullable(),
  /** The memory write sequence answered at (with asOf), null for the user's view. */
  seq: z.number().nullable(),
  /** keywords or hybrid (files), or the memory system that answered (layered…). */
  mode: z.string(),
  citations: z.array(citationSchema),
  index: recallHealthSchema,
});
export type RecallOutput = z.infer<typeof recallOutputSchema>;

const metricsSchema = z.looseObject({
  start: z.string().nullable(),
  end: z.string().nullable(),
  bars: z.number(),
  equityFinal: num,
  returnPct: num,
  buyHoldReturnPct: num,
  sharpe: num,
  maxDrawdownPct: num,
  trades: z.number(),
  winRatePct: num,
  commissions: num,
  slippage: num,
});

/** result.json as `run` writes it (and `run --json` prints it). Loose: new fields pass through. */
export const runResultSchema = z.looseObject({
  schemaVersion: z.number().int().positive(),
  id: z.string(),
  name: z.string(),
  status: z.enum(["running", "completed", "failed", "interrupted", "budget_exhausted", "stopped"]),
  error: z
    .object({
      type: z.string(),
      message: z.string(),
      /** The bar being processed when it was thrown; null: in init. */
      at: z.string().nullable().optional(),
      /** `file:line:column` in the strategy file. */
      location: z.string().nullable().optional(),
    })
    .nullable(),
  strategy: z.object({
    kind: z.enum(["code", "llm"]),
    path: z.string(),
    name: z.string(),
    params: z.record(z.string(), z.unknown()),
    /** The strategy's copy in the run directory (newer runs). */
    file: z.string().optional(),
    sha256: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .optional(),
  }),
  data: z.array(
    z.object({
      symbol: z.string(),
      file: z.string(),
      sha256: z.string().regex(/^[0-9a-f]{64}$/),
      bars: z.number().int().nonnegative(),
      first: z.string().nullable(),
      last: z.string().nullable(),
    }),
  ),
  period: z.object({
    start: z.string().nullable(),
    end: z.string().nullable(),
    bars: z.number().int().nonnegative(),
    warmupBars: z.number().int().nonnegative(),
    /** The window asked for; start/end/bars above are what was simulated. */
    requested: z.object({
      start: z.string().nullable(),
      end: z.string().nullable(),
      bars: z.number().int().nonnegative(),
    }),
  }),
  metrics: metricsSchema.nullable(),
  nullReasons: z.record(z.string(), z.string()),
  benchmark: z.looseObject({
    kind: z.literal("buy_and_hold"),
    symbols: z.array(z.string()),
    metrics: z.looseObject({ returnPct: num, maxDrawdownPct: num }).nullable(),
    nullReasons: z.record(z.string(), z.string()),
  }),
  trades: z.object({
    closed: z.number(),
    openAtEnd: z.number(),
    /** Written by newer runners only. */
    dataEnded: z.number().optional(),
  }),
  orders: z.object({
    submitted: z.number(),
    filled: z.number(),
    rejected: z.number(),
    cancelled: z.number(),
    expired: z.number(),
    working: z.number(),
    /** Rejections grouped by reason, most frequent first. */
    rejectReasons: z.array(
      z.object({ reason: z.string(), count: z.number(), example: z.string() }),
    ),
  }),
  memory: z.record(z.string(), z.number()).nullable(),
  /** Written by newer runners only. */
  index: recallHealthSchema.nullable().optional(),
  warnings: z.array(z.string()),
  timings: z.object({
    loadMs: z.number(),
    simulateMs: z.number(),
    writeMs: z.number(),
    totalMs: z.number(),
  }),
  startedAt: z.string(),
  finishedAt: z.string().nullable(),
  agenticbt: z.object({ version: z.string(), node: z.string() }),
  llm: z.looseObject({ model: z.string(), baseURL: z.string(), usage: z.unknown() }).nullable(),
});
