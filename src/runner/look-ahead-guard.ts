import { Anonymizer } from "../agent/anonymize/anonymizer.js";
import { shiftedMemoryPort } from "../agent/anonymize/shifted-memory-port.js";
import { isIntraday, timeLabel } from "../engine/calendar.js";
import { unitStep } from "../engine/sizing.js";
import type { MarketData } from "../engine/types.js";
import type { RunResult } from "../rundir/run-result.js";
import type { MemoryPort } from "../strategy/types.js";
import { cutoffWarning, modelCutoff } from "./model-cutoff.js";
import type { RunConfig } from "./run-config.js";

export interface LookAheadGuard {
  /** The translation of everything the model sees under --anonymize, or null. */
  anonymizer: Anonymizer | null;
  /** The training cut-off warning of a plain run, or null. */
  warning: string | null;
  /** result.json `lookAhead` (absent for code strategies). */
  record: RunResult["lookAhead"];
  /** The memory's clock: shifted under --anonymize. */
  memoryPort(port: MemoryPort): MemoryPort;
  /** The bar times the recall index counts trading days by, on the memory's clock. */
  memoryTimes(times: Float64Array): Float64Array;
}

/**
 * The two guards against the model remembering the real history (docs/anonymize.md): `--anonymize`
 * builds the translation of everything the model sees; otherwise a test window that starts on or
 * before the model's training cut-off (`--model-cutoff`, or the built-in table) is warned about.
 * Both are recorded in result.json.
 */
export function lookAheadGuard(
  config: RunConfig,
  data: MarketData,
  startIndex: number,
): LookAheadGuard {
  const agent = config.agent;
  const intraday = isIntraday(data.times);
  const b = config.broker;
  const anonymizer = agent?.anonymize
    ? new Anonymizer(data, intraday, startIndex, b.initialCash, unitStep(b))
    : null;
  const guard: LookAheadGuard = {
    anonymizer,
    warning: null,
    record: undefined,
    memoryPort: (port) => (anonymizer ? shiftedMemoryPort(port, anonymizer) : port),
    memoryTimes: (times) => (anonymizer ? times.map((t) => anonymizer.time(t)) : times),
  };
  if (!agent) return guard;
  const cutoff = modelCutoff(agent.model, agent.modelCutoff);
  // The test window: the first simulated bar on (the bars before --from are history).
  const first = data.times[startIndex];
  const start = first === undefined ? null : timeLabel(first, intraday);
  guard.warning = anonymizer ? null : cutoffWarning(agent.model, cutoff, start);
  guard.record = {
    anonymized: anonymizer?.describe() ?? null,
    modelCutoff: cutoff,
    overlapsTrainingData: cutoff && start ? start.slice(0, 10) <= cutoff.date : null,
  };
  return guard;
}
