import path from "node:path";
import { DEFAULT_MAX_RETRY_WAIT_MS, RATE_WINDOW_MS } from "../util/backoff.js";
import { DEFAULT_BASE_URL } from "./base-url.js";
import {
  choice,
  defaultsOf,
  list,
  num,
  optionalNum,
  type Setting,
  switchOf,
  text,
  textWithDefault,
  type ValuesOf,
} from "./setting.js";

// Every setting of `agenticbt run`, once: its flag, default, range or choices, unit and help.
// The command line's options, the zod schema the library's values go through
// (settings-schema.ts), the defaults and README's table are made from these. Each group's key
// order is the order config.json writes its keys in.

/** Memory moments, in the order the agent is prompted at them. */
export const MOMENT_KINDS = ["fill", "close", "eod", "week", "month", "run_end"] as const;
export type MomentKind = (typeof MOMENT_KINDS)[number];

/** Units of epoch timestamps. */
export const TIME_UNITS = ["s", "ms"] as const;
export type TimeUnit = (typeof TIME_UNITS)[number];

/** The default runs root, as `agenticbt run` uses it. */
export const DEFAULT_RUNS_DIR = path.join(".agenticbt", "runs");
export const DEFAULT_MEMORY_SYSTEM = "files";
/** The persistent memory store's namespace when --memory-namespace is not given. */
export const DEFAULT_NAMESPACE = "default";
/** `--hook-timeout`'s default for code strategies, in seconds (10 minutes); LLM runs have none. */
export const DEFAULT_HOOK_TIMEOUT_S = 600;
/** Bars between checkpoints when --checkpoint-every is not given. */
export const DEFAULT_CHECKPOINT_EVERY = { llm: 1, code: 1000 } as const;
/**
 * And a code run's checkpoints (unless `--checkpoint-every` was given) at least this many ms apart:
 * a cheap bar makes 1000 bars a millisecond, and a checkpoint costs about one beyond what it appends
 * (which the files take once however often they are written), so 100 ms keeps checkpoints near 1%
 * of a run and a kill loses at most a tenth of a second of bars.
 */
export const DEFAULT_CODE_CHECKPOINT_MIN_MS = 100;
/** Hybrid recall only: below this merged score a hit is noise (every chunk has some cosine). */
export const DEFAULT_HYBRID_MIN_SCORE = 0.1;
/** The LLM response cache's directory under the working directory. */
export const DEFAULT_CACHE_DIR = path.join(".agenticbt", "cache");
/** Hybrid recall weighs keywords and vectors evenly unless told otherwise. */
const EVEN_WEIGHT = 0.5;

const fraction = "fraction";

export const RISK_SETTINGS = {
  maxPositionWeight: optionalNum({
    group: "broker",
    flag: "--max-position-weight",
    arg: "<fraction>",
    help: "risk limit: max |position| / equity per symbol",
    unit: fraction,
    min: 0,
  }),
  maxOpenPositions: optionalNum({
    group: "broker",
    flag: "--max-open-positions",
    arg: "<n>",
    help: "risk limit: max number of open positions",
    min: 1,
    integer: true,
  }),
  maxGrossExposure: optionalNum({
    group: "broker",
    flag: "--max-gross-exposure",
    arg: "<fraction>",
    help: "risk limit: max (long + short) / equity",
    unit: fraction,
    min: 0,
  }),
  haltDrawdown: optionalNum({
    group: "broker",
    flag: "--halt-drawdown",
    arg: "<fraction>",
    help: "flatten and stop trading once drawdown reaches this fraction",
    unit: fraction,
    above: 0,
    max: 1,
  }),
};

export const BROKER_SETTINGS = {
  initialCash: num({
    group: "broker",
    flag: "--cash",
    arg: "<amount>",
    help: "initial cash",
    unit: "currency of the data",
    default: 10_000,
    above: 0,
  }),
  commissionRate: num({
    group: "broker",
    flag: "--commission",
    arg: "<rate>",
    help: "commission as a fraction of notional, e.g. 0.001 = 0.1%",
    unit: fraction,
    default: 0,
    min: 0,
    max: 0.5,
  }),
  commissionFixed: num({
    group: "broker",
    flag: "--commission-fixed",
    arg: "<amount>",
    help: "fixed commission per order (charged on its first fill)",
    unit: "currency of the data",
    default: 0,
    min: 0,
  }),
  slippageRate: num({
    group: "broker",
    flag: "--slippage",
    arg: "<rate>",
    help: "adverse slippage as a fraction of price (market and stop fills)",
    unit: fraction,
    default: 0,
    min: 0,
    max: 0.5,
  }),
  slippageTicks: num({
    group: "broker",
    flag: "--slippage-ticks",
    arg: "<n>",
    help: "adverse slippage in ticks instead of a fraction (used when > 0)",
    unit: "ticks",
    default: 0,
    min: 0,
  }),
  tickSize: num({
    group: "broker",
    flag: "--tick-size",
    arg: "<size>",
    help: "price tick for --slippage-ticks",
    unit: "price",
    default: 0.01,
    above: 0,
  }),
  tradeOnClose: switchOf({
    group: "broker",
    flag: "--trade-on-close",
    help: "fill market orders at the decision bar's close instead of the next open",
  }),
  fractional: switchOf({
    group: "broker",
    flag: "--fractional",
    help: "allow fractional units (crypto, FX)",
  }),
  allowShort: switchOf({
    group: "broker",
    flag: "--allow-short",
    help: "allow short positions (margin-checked)",
  }),
  shortMargin: num({
    group: "broker",
    flag: "--short-margin",
    arg: "<fraction>",
    help: "margin held against shorts, as a fraction of their notional",
    unit: fraction,
    default: 0.5,
    min: 0,
    max: 10,
  }),
  volumeCap: optionalNum({
    group: "broker",
    flag: "--volume-cap",
    arg: "<fraction>",
    help: "fill at most this fraction of a bar's volume; the rest stays working",
    unit: fraction,
    above: 0,
    max: 1,
  }),
};

/** The data to load and how to read it (a library's `backtest()` takes from, to, strict, tz). */
export const DATA_SETTINGS = {
  data: list({
    default: undefined,
    group: "data",
    flag: "--data",
    short: "-d",
    arg: "<csv...>",
    help: "OHLCV CSV file(s); SYM=path names the symbol (by default the file name up to the first -, _ or ., upper-cased)",
    variadic: true,
  }),
  from: text({
    group: "data",
    flag: "--from",
    arg: "<date>",
    help: "first bar to trade (earlier bars are history for indicators)",
  }),
  to: text({
    group: "data",
    flag: "--to",
    arg: "<date>",
    help: "last bar (later bars are not loaded)",
  }),
  param: list({
    default: undefined,
    group: "data",
    flag: "--param",
    short: "-p",
    arg: "<key=value>",
    help: "strategy parameter (repeatable); the value takes the type of the strategy's default",
  }),
  strict: switchOf({
    group: "data",
    flag: "--strict",
    help: "reject unsorted data instead of sorting it with a warning",
  }),
  tz: text({
    group: "data",
    flag: "--tz",
    arg: "<zone>",
    help: "IANA time zone that timestamps with a UTC offset, and epoch timestamps, are converted to",
  }),
  timeUnit: choice({
    choices: TIME_UNITS,
    default: undefined,
    group: "data",
    flag: "--time-unit",
    arg: "<s|ms>",
    help: "unit of epoch timestamps (by default detected from the digits)",
  }),
  dateFormat: text({
    group: "data",
    flag: "--date-format",
    arg: "<format>",
    help: "day-first or month-first dates, e.g. DD/MM/YYYY or MM/DD/YYYY HH:MM",
  }),
  columns: text({
    group: "data",
    flag: "--columns",
    arg: "<key=header,...>",
    help: "map header names: keys date, time, open, high, low, close, volume",
  }),
};

/** The run itself: its name, where it goes, its bounds and checkpoints. */
export const RUN_SETTINGS = {
  name: text({
    group: "run",
    flag: "--name",
    arg: "<name>",
    help: "run name (by default the strategy's name)",
  }),
  runsDir: textWithDefault({
    group: "run",
    flag: "--runs-dir",
    arg: "<dir>",
    help: "where run directories are",
    default: DEFAULT_RUNS_DIR,
  }),
  hookTimeout: optionalNum({
    group: "run",
    flag: "--hook-timeout",
    arg: "<seconds>",
    help: `fail the run when a strategy hook's promise stays pending this long (default ${DEFAULT_HOOK_TIMEOUT_S} for code strategies, none for LLM ones)`,
    unit: "s",
    min: 0.1,
    max: 86_400,
  }),
  checkpointEvery: optionalNum({
    group: "run",
    flag: "--checkpoint-every",
    arg: "<bars>",
    help: `bars between checkpoints for \`agenticbt resume\` (default ${DEFAULT_CHECKPOINT_EVERY.llm} for an LLM agent, ${DEFAULT_CHECKPOINT_EVERY.code} for code, at most one each ${DEFAULT_CODE_CHECKPOINT_MIN_MS} ms)`,
    unit: "bars",
    min: 1,
    integer: true,
  }),
  preset: list({
    default: undefined,
    group: "run",
    flag: "--preset",
    arg: "<target=path>",
    help: "seed a memory file before the run, e.g. notes/experience.md=./exp.md (repeatable)",
  }),
};

export const MEMORY_SETTINGS = {
  memory: textWithDefault({
    group: "memory",
    flag: "--memory",
    arg: "<names>",
    help: "memory system: files, layered, …; a comma list runs one backtest per system and compares them",
    default: DEFAULT_MEMORY_SYSTEM,
  }),
  memoryNamespace: textWithDefault({
    group: "memory",
    flag: "--memory-namespace",
    arg: "<name>",
    help: "persistent memory: the store .agenticbt/memory/<name>/",
    default: DEFAULT_NAMESPACE,
  }),
  policyOverrides: text({
    group: "memory",
    flag: "--policy-overrides",
    arg: "<file.json>",
    help: "memory policy values over agenticbt.config.json's memory block (retrieve_limit, recent_days, …)",
  }),
  policyFrom: text({
    group: "memory",
    flag: "--policy-from",
    arg: "<run>",
    help: "start from another run's memory policy (its policy_overrides.json, evolved or rolled back)",
  }),
  memoryFrom: text({
    group: "memory",
    flag: "--memory-from",
    arg: "<run>",
    help: "start from another run's playbook, notes and reviews",
  }),
};

/** Settings of the library's `backtest()` alone: no flag (`agenticbt run` always has a run
 * directory for its memory). */
export const BACKTEST_SETTINGS = {
  memoryDir: text({
    group: "memory",
    help: "keep the strategy's memory (journal, notes, reviews, playbook, recall index) in this directory; by default it is written to a temporary directory removed after the run",
    rule: { ok: (s) => s.trim() !== "", message: "it is empty: pass a directory." },
  }),
};

/** Each of `--recall-weights`' two settings (w_fts, w_vec): the same but for its place. */
const RECALL_WEIGHT = {
  group: "recall",
  flag: "--recall-weights",
  arg: "<fts,vec>",
  help: "hybrid recall weights w_fts,w_vec",
  default: EVEN_WEIGHT,
  min: 0,
  max: 1,
} as const;

/** Sources recall may search besides the run's own memory files (`--recall-sources`). */
export const RECALL_EXTRA_SOURCES = ["reports", "traces"] as const;

/** How memory recall searches (BM25 alone, or hybrid with embeddings). */
export const RECALL_SETTINGS = {
  embedModel: text({
    group: "recall",
    flag: "--embed-model",
    arg: "<name>",
    help: "hybrid recall: embeddings model (BM25 alone without it)",
  }),
  embedBaseURL: text({
    group: "recall",
    flag: "--embed-base-url",
    arg: "<url>",
    help: "hybrid recall: OpenAI-compatible /embeddings endpoint",
  }),
  // One flag, two settings: `--recall-weights fts,vec`.
  weightFts: num({ ...RECALL_WEIGHT }),
  weightVec: num({ ...RECALL_WEIGHT }),
  minScore: optionalNum({
    group: "recall",
    flag: "--recall-min-score",
    arg: "<s>",
    help: `drop citations scoring below this (by default ${DEFAULT_HYBRID_MIN_SCORE} with --embed-model, else 0)`,
    min: 0,
    max: 1,
  }),
  sources: list({
    group: "recall",
    flag: "--recall-sources",
    arg: "<list>",
    help: "more recall sources: reports (each finished run in --runs-dir, from the end of its period), traces (each decision's orders, outcomes, rationale)",
    choices: RECALL_EXTRA_SOURCES,
    default: [],
  }),
  perSourceCap: optionalNum({
    group: "recall",
    flag: "--recall-per-source",
    arg: "<n>",
    help: "at most this many citations of one source (playbook, journal, note, review, report, trace) per recall; the next best of others fill the limit",
    min: 1,
    integer: true,
  }),
  halfLifeDays: optionalNum({
    group: "recall",
    flag: "--recall-half-life",
    arg: "<days>",
    help: "extra decay of older memories by age, on top of the tiers",
    unit: "days",
    min: 0.001,
  }),
};

/** How an LLM strategy runs: the model, its bounds and budgets, cache and replay. No secrets:
 * the API key is read from the environment when the run starts and never stored. */
export const AGENT_SETTINGS = {
  model: textWithDefault({
    group: "agent",
    flag: "--model",
    short: "-m",
    arg: "<name>",
    help: "model name",
    default: "gpt-4o-mini",
    env: "AGENTICBT_MODEL",
  }),
  baseURL: text({
    group: "agent",
    flag: "--base-url",
    arg: "<url>",
    help: `OpenAI-compatible endpoint (default $OPENAI_BASE_URL or ${DEFAULT_BASE_URL}); the key is read from $OPENAI_API_KEY`,
  }),
  temperature: optionalNum({
    group: "agent",
    flag: "--temperature",
    arg: "<t>",
    help: "sampling temperature",
    min: 0,
    max: 2,
  }),
  seed: optionalNum({
    group: "agent",
    flag: "--seed",
    arg: "<n>",
    help: "sampling seed, for providers that honour it",
    integer: true,
  }),
  maxOutputTokens: optionalNum({
    group: "agent",
    flag: "--max-output-tokens",
    arg: "<n>",
    help: "max tokens per model answer",
    unit: "tokens",
    min: 1,
    integer: true,
  }),
  contextWindow: optionalNum({
    group: "agent",
    flag: "--context-window",
    arg: "<tokens>",
    help: "the model's context window, for the policy's session_summary_token_percent; without it, the model table's size, none for an unlisted model",
    unit: "tokens",
    min: 1000,
    max: 10_000_000,
    integer: true,
  }),
  timeoutMs: num({
    group: "agent",
    flag: "--timeout",
    arg: "<ms>",
    help: "request timeout in milliseconds",
    unit: "ms",
    default: 60_000,
    min: 1,
    integer: true,
  }),
  maxRetries: num({
    group: "agent",
    flag: "--max-retries",
    arg: "<n>",
    help: "retries on 429, 5xx and timeouts (exponential backoff, honours Retry-After)",
    default: 4,
    min: 0,
    max: 20,
    integer: true,
  }),
  maxRetryWaitS: num({
    group: "agent",
    flag: "--max-retry-wait",
    arg: "<seconds>",
    help: "longest wait before a model call's retry; a server asking for more (Retry-After) ends the run interrupted, to resume later",
    unit: "s",
    default: DEFAULT_MAX_RETRY_WAIT_MS / 1000,
    min: 0,
    max: 86_400,
  }),
  concurrency: num({
    group: "agent",
    flag: "--concurrency",
    arg: "<n>",
    help: "max model requests in flight at the provider (base URL + model), shared by every run of the process; an LLM experiment (sweep): also its runs in flight, unless --jobs",
    default: 4,
    min: 1,
    max: 64,
    integer: true,
  }),
  rpm: optionalNum({
    group: "agent",
    flag: "--rpm",
    arg: "<n>",
    help: "the provider's requests per minute, shared by every run of the process; without it a 429's Retry-After still pauses every run",
    unit: "requests/min",
    min: 1,
    integer: true,
  }),
  tpm: optionalNum({
    group: "agent",
    flag: "--tpm",
    arg: "<n>",
    help: "the provider's tokens per minute (prompt + completion), shared by every run of the process: a request counts its estimated prompt, then what it was billed",
    unit: "tokens/min",
    min: 1,
    integer: true,
  }),
  rateWindowS: num({
    group: "agent",
    flag: "--rate-window",
    arg: "<seconds>",
    help: "the window --rpm and --tpm are counted over: 60, or less for a provider that enforces its minute in slices (--rpm 60 --rate-window 1: at most 1 request in any second)",
    unit: "s",
    default: RATE_WINDOW_MS / 1000,
    min: 0.01,
    max: 3600,
  }),
  maxSteps: num({
    group: "agent",
    flag: "--max-steps",
    arg: "<n>",
    help: "max model calls per decision (the tool loop's bound)",
    default: 8,
    min: 1,
    max: 100,
    integer: true,
  }),
  maxFailedDecisions: num({
    group: "agent",
    flag: "--max-failed-decisions",
    arg: "<n>",
    help: "fail the run after this many failed decisions in a row (model errors, empty replies)",
    default: 3,
    min: 1,
    integer: true,
  }),
  every: num({
    group: "agent",
    flag: "--every",
    arg: "<n>",
    help: "decide every n bars",
    unit: "bars",
    default: 1,
    min: 1,
    integer: true,
  }),
  contextBars: num({
    group: "agent",
    flag: "--context-bars",
    arg: "<n>",
    help: "bars of each symbol shown in every decision's context",
    unit: "bars",
    default: 20,
    min: 1,
    max: 500,
    integer: true,
  }),
  moments: list({
    group: "agent",
    flag: "--moments",
    arg: "<list>",
    help: `memory moments: any of ${MOMENT_KINDS.join(",")} (default all)`,
    choices: MOMENT_KINDS,
    default: [...MOMENT_KINDS],
    negate: { help: "no memory moments", both: true },
  }),
  maxTokens: optionalNum({
    group: "agent",
    flag: "--max-tokens",
    arg: "<n>",
    help: "stop the run cleanly once this many tokens are used (status budget_exhausted)",
    unit: "tokens",
    min: 1,
    integer: true,
  }),
  maxCost: optionalNum({
    group: "agent",
    flag: "--max-cost",
    arg: "<usd>",
    help: "stop the run cleanly once the estimated cost reaches this (USD)",
    unit: "USD",
    min: 0,
  }),
  pricesFile: text({
    group: "agent",
    flag: "--prices",
    arg: "<file>",
    help: "JSON price table overriding the built-in one (USD per 1M tokens)",
  }),
  cache: switchOf({
    group: "agent",
    flag: "--cache",
    help: "answer identical requests from the response cache",
    default: true,
    negate: { help: "do not answer identical requests from the response cache", both: false },
  }),
  workspaceState: switchOf({
    group: "agent",
    flag: "--workspace-state",
    help: "when the memory policy's session summary compacts a turn, append the run's tool-call counts as a user message",
    default: true,
    negate: { help: "compact turns without the tool-call counts", both: false },
  }),
  cacheDir: text({
    group: "agent",
    flag: "--cache-dir",
    arg: "<dir>",
    help: `the response cache's directory (by default ${DEFAULT_CACHE_DIR})`,
    rule: { ok: (s) => s.trim() !== "", message: "it is empty: pass a directory." },
  }),
  replay: text({
    group: "agent",
    flag: "--replay",
    arg: "<run>",
    help: "re-run a recorded LLM run from its transcript, with zero network calls",
  }),
  prompt: text({
    group: "agent",
    flag: "--prompt",
    arg: "<text>",
    help: "an inline strategy prompt instead of a .md file",
  }),
  anonymize: switchOf({
    group: "agent",
    flag: "--anonymize",
    help: "the model sees ASSET_A… for tickers, a synthetic calendar in 2300, prices and volumes at hidden scales and a cash of 100000; it trades fractional units (results stay real)",
  }),
  modelCutoff: text({
    group: "agent",
    flag: "--model-cutoff",
    arg: "<date>",
    help: "the model's training cut-off (YYYY-MM-DD); by default a built-in table of common models",
  }),
};

/** What the command prints. */
export const OUTPUT_SETTINGS = {
  json: switchOf({
    group: "output",
    flag: "--json",
    help: "print result.json alone on stdout (progress goes to stderr)",
  }),
  quiet: switchOf({ group: "output", flag: "--quiet", short: "-q", help: "no progress output" }),
  metrics: choice({
    choices: ["headline", "all"],
    group: "output",
    flag: "--metrics",
    arg: "<set>",
    help: "metrics in the summary: the headline 12, or all of result.json's",
    default: "headline",
  }),
  ui: switchOf({
    group: "output",
    flag: "--ui",
    help: "live view on a terminal (the default; plain lines when not a TTY, in CI, with TERM=dumb or under 40 columns)",
    default: true,
    negate: {
      help: "plain progress lines (start, every 5 s, warnings, end), even on a terminal",
      both: true,
    },
  }),
};

export type RiskLimits = ValuesOf<typeof RISK_SETTINGS>;
/** Everything that decides how orders fill. Defaults describe a plain cash account. */
export type BrokerConfig = ValuesOf<typeof BROKER_SETTINGS> & { risk: RiskLimits };
export type AgentOptions = ValuesOf<typeof AGENT_SETTINGS>;
export type RecallOptions = ValuesOf<typeof RECALL_SETTINGS>;

export const DEFAULT_BROKER_CONFIG: BrokerConfig = {
  ...defaultsOf(BROKER_SETTINGS),
  risk: defaultsOf(RISK_SETTINGS),
};
export const DEFAULT_AGENT_OPTIONS: AgentOptions = defaultsOf(AGENT_SETTINGS);
export const DEFAULT_RECALL_OPTIONS: RecallOptions = defaultsOf(RECALL_SETTINGS);

/** Every group, in the order `run --help` and README's table list them. */
export const SETTING_GROUPS: readonly Readonly<Record<string, Setting>>[] = [
  DATA_SETTINGS,
  BROKER_SETTINGS,
  RISK_SETTINGS,
  RUN_SETTINGS,
  MEMORY_SETTINGS,
  RECALL_SETTINGS,
  AGENT_SETTINGS,
  OUTPUT_SETTINGS,
];
