import { UsageError } from "../errors/run-errors.js";
import type { Params, ParamValue } from "../strategy/types.js";
import { DECIMAL_NOTATION, parseDecimal } from "../util/parse-decimal.js";

/** Parses `key=value` pairs from `--param`. Values stay strings until matched to a default. */
export function parseParamArgs(args: readonly string[]): Params {
  const out: Params = {};
  for (const arg of args) {
    const eq = arg.indexOf("=");
    if (eq <= 0)
      throw new UsageError(
        `--param ${JSON.stringify(arg)} must look like key=value, e.g. --param fast=10.`,
      );
    out[arg.slice(0, eq).trim()] = arg.slice(eq + 1).trim();
  }
  return out;
}

/** Merges overrides over the strategy's defaults, converting each to the default's type. */
export function resolveParams(defaults: Params, overrides: Params): Params {
  const out: Params = { ...defaults };
  for (const [key, raw] of Object.entries(overrides)) {
    if (!(key in defaults)) {
      const known = Object.keys(defaults);
      throw new UsageError(
        `Unknown parameter ${JSON.stringify(key)}. ${known.length ? `This strategy takes: ${known.join(", ")}.` : "This strategy takes no parameters."}`,
      );
    }
    out[key] = convert(key, raw, defaults[key] as ParamValue);
  }
  return out;
}

function convert(key: string, raw: ParamValue, like: ParamValue): ParamValue {
  if (typeof like === "number") {
    const n =
      typeof raw === "number" ? raw : typeof raw === "string" ? parseDecimal(raw) : Number.NaN;
    if (!Number.isFinite(n)) {
      throw new UsageError(
        `Parameter ${key} must be a decimal number (got ${JSON.stringify(raw)}): ${DECIMAL_NOTATION}.`,
      );
    }
    return n;
  }
  if (typeof like === "boolean") {
    if (typeof raw === "boolean") return raw;
    if (raw === "true" || raw === "1" || raw === "yes") return true;
    if (raw === "false" || raw === "0" || raw === "no") return false;
    throw new UsageError(`Parameter ${key} must be true or false (got ${JSON.stringify(raw)}).`);
  }
  return String(raw);
}
