import { INDICATOR_NAMES, INDICATORS, type IndicatorName } from "./catalogue.js";
import { IndicatorError } from "./indicator-error.js";

export interface ResolvedIndicator {
  name: IndicatorName;
  /** Every param of the indicator, defaults filled in, keys in sorted order. */
  params: Record<string, number>;
}

function isIndicatorName(name: string): name is IndicatorName {
  return (INDICATOR_NAMES as readonly string[]).includes(name);
}

/** The accepted names, for messages and tool descriptions. */
export function describeIndicatorNames(): string {
  return INDICATOR_NAMES.join(", ");
}

/** "period (default 14), stddev (default 2)", or "none" for an indicator without params. */
export function describeIndicatorParams(name: IndicatorName): string {
  const defaults = INDICATORS[name].params.parse({});
  const entries = Object.entries(defaults);
  if (entries.length === 0) return "none";
  return entries.map(([key, value]) => `${key} (default ${value})`).join(", ");
}

/**
 * Checks a name and params coming from a strategy or a model. Names are matched case-insensitively
 * (the model is told "RSI" as often as "rsi"); missing params take their defaults; unknown params
 * or invalid values throw, since silently ignoring them would compute something else than asked.
 */
export function resolveIndicator(rawName: string, rawParams?: unknown): ResolvedIndicator {
  const name = rawName.trim().toLowerCase();
  if (!isIndicatorName(name)) {
    throw new IndicatorError(
      `Unknown indicator ${JSON.stringify(rawName)}. Valid names: ${describeIndicatorNames()}.`,
    );
  }
  const parsed = INDICATORS[name].params.safeParse(rawParams ?? {});
  if (!parsed.success) {
    const problems = parsed.error.issues
      .map((issue) => {
        const where = issue.path.length > 0 ? `${issue.path.join(".")}: ` : "";
        return `${where}${issue.message}`;
      })
      .join("; ");
    throw new IndicatorError(
      `Invalid params for indicator ${name}: ${problems}. Valid params: ${describeIndicatorParams(name)}.`,
    );
  }
  const params: Record<string, number> = {};
  for (const key of Object.keys(parsed.data).sort()) params[key] = parsed.data[key]!;
  return { name, params };
}

/** A stable text form of normalised params, for cache keys. */
export function paramsKey(params: Record<string, number>): string {
  return Object.keys(params)
    .sort()
    .map((key) => `${key}=${params[key]}`)
    .join(",");
}
