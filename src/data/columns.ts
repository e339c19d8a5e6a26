import { DataError, DataOptionError, quoteCell } from "./data-error.js";

/** Where each field of a bar is in a row (indices into the header). */
export interface ColumnLayout {
  /** The date or datetime column. */
  readonly time: number;
  /** A separate time-of-day column (`Date,Time,…` exports), joined to `time` with a space. */
  readonly clock: number | null;
  readonly open: number;
  readonly high: number;
  readonly low: number;
  readonly close: number;
  /** Null when the file has no volume column (volume is then 0 on every bar). */
  readonly volume: number | null;
}

type Role = "date" | "clock" | "open" | "high" | "low" | "close" | "volume";

/** Aliases in normalised form (see `normalise`): `Date Time`, `date_time` and `DateTime` are all
 * `datetime`; `Close Price` and `close_price` are `close`. */
const ALIASES: Record<Role, readonly string[]> = {
  date: ["date", "datetime", "timestamp"],
  clock: ["time"],
  open: ["open", "o"],
  high: ["high", "h"],
  low: ["low", "l"],
  close: ["close", "c"],
  volume: ["volume", "vol", "v"],
};

/** The keys of `--columns`: `time` is a separate time-of-day column (`Date,Time,…` exports). */
export const COLUMN_KEYS = ["date", "time", "open", "high", "low", "close", "volume"] as const;
export type ColumnKey = (typeof COLUMN_KEYS)[number];
/** `--columns date=Datum,close=Schluss`: header names (any case) for some or all keys. */
export type ColumnMapping = Partial<Record<ColumnKey, string>>;

const ROLE_OF_KEY: Record<ColumnKey, Role> = {
  date: "date",
  time: "clock",
  open: "open",
  high: "high",
  low: "low",
  close: "close",
  volume: "volume",
};

const ROLE_BY_NAME = new Map<string, Role>(
  (Object.entries(ALIASES) as [Role, readonly string[]][]).flatMap(([role, names]) =>
    names.map((name): [string, Role] => [name, role]),
  ),
);

/**
 * The one rule for header names: lower-case, keep only letters and digits (spaces, `_`, `-`,
 * `.`, `/` and other punctuation go), then drop a trailing `price` when something precedes it.
 * So `Open Price`, `open_price` and `OpenPrice` are `open`; `Adj Close` stays `adjclose`.
 */
export function normalise(name: string): string {
  const n = name.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, "");
  return n.length > 5 && n.endsWith("price") ? n.slice(0, -5) : n;
}

/** pandas writes its index without a name, or as `Unnamed: 0` after a round trip. */
function isUnnamed(name: string): boolean {
  const n = name.trim().toLowerCase();
  return n === "" || n.startsWith("unnamed:");
}

/** Parses `--columns key=Header,…`; throws a DataOptionError naming an unknown or repeated key. */
export function parseColumnMapping(arg: string): ColumnMapping {
  const mapping: ColumnMapping = {};
  for (const part of arg.split(",")) {
    const eq = part.indexOf("=");
    const key = (eq < 0 ? part : part.slice(0, eq)).trim().toLowerCase();
    const value = eq < 0 ? "" : part.slice(eq + 1).trim();
    if (!(COLUMN_KEYS as readonly string[]).includes(key)) {
      throw new DataOptionError(
        `--columns: unknown key ${quoteCell(key)}. Use ${COLUMN_KEYS.join(", ")}, as in --columns date=Datum,close="Close Price".`,
      );
    }
    if (value === "") {
      throw new DataOptionError(
        `--columns: ${key} has no header name. Write ${key}=<header name>, as in --columns ${key}=Price.`,
      );
    }
    if (mapping[key as ColumnKey] !== undefined) {
      throw new DataOptionError(`--columns: ${key} is given twice. Map each key once.`);
    }
    mapping[key as ColumnKey] = value;
  }
  return mapping;
}

function displayName(name: string): string {
  return name.trim() === "" ? "(unnamed)" : name.trim();
}

/**
 * Finds the OHLCV columns of a header. `firstRow` (the first data row) decides whether an unnamed
 * first column is a date index (pandas export) or just a row number to skip.
 */
export function resolveColumns(
  file: string,
  header: readonly string[],
  firstRow: readonly string[] | undefined,
  isTimestamp: (cell: string) => boolean,
  mapping: ColumnMapping = {},
): ColumnLayout {
  const found = new Map<Role, number>();
  const mapped = new Set<number>();
  for (const key of COLUMN_KEYS) {
    const wanted = mapping[key];
    if (wanted === undefined) continue;
    const index = header.findIndex((h) => h.trim().toLowerCase() === wanted.trim().toLowerCase());
    if (index < 0) {
      throw new DataError({
        file,
        line: 1,
        column: null,
        problem: `--columns maps ${key} to ${quoteCell(wanted)}, but the header has no such column (found: ${header.map(displayName).join(", ")})`,
        fix: "Use a header name as written in the file (any case) in --columns.",
      });
    }
    if (mapped.has(index)) {
      throw new DataError({
        file,
        line: 1,
        column: header[index] ?? "",
        problem: `--columns maps two keys to the same column`,
        fix: "Map each key to its own column.",
      });
    }
    found.set(ROLE_OF_KEY[key], index);
    mapped.add(index);
  }
  header.forEach((name, index) => {
    const role = ROLE_BY_NAME.get(normalise(name));
    // A mapped column keeps its mapped role, and a mapped role ignores look-alike names.
    if (role === undefined || mapped.has(index) || mappedRole(mapping, role)) return;
    const previous = found.get(role);
    if (previous !== undefined) {
      throw new DataError({
        file,
        line: 1,
        column: name,
        problem: `columns ${displayName(header[previous] ?? "")} and ${displayName(name)} both name the ${role} column`,
        fix: "Rename or remove one of them.",
      });
    }
    found.set(role, index);
  });

  let time = found.get("date");
  let clock = found.get("clock") ?? null;
  if (time === undefined && clock !== null) {
    // A lone `Time` column holds full timestamps, not just the time of day.
    time = clock;
    clock = null;
  }
  if (time === undefined && header.length > 0 && isUnnamed(header[0] ?? "")) {
    const cell = firstRow?.[0];
    if (cell !== undefined && isTimestamp(cell)) time = 0;
  }

  const open = found.get("open");
  const high = found.get("high");
  const low = found.get("low");
  const close = found.get("close");
  if (
    time === undefined ||
    open === undefined ||
    high === undefined ||
    low === undefined ||
    close === undefined
  ) {
    const wanted: [string, number | undefined][] = [
      ["Date", time],
      ["Open", open],
      ["High", high],
      ["Low", low],
      ["Close", close],
    ];
    const missing = wanted.filter(([, index]) => index === undefined).map(([name]) => name);
    throw new DataError({
      file,
      line: 1,
      column: null,
      problem: `missing required column${missing.length > 1 ? "s" : ""} ${missing.join(", ")} (found: ${header.map(displayName).join(", ")})`,
      fix:
        "The header needs Date, Open, High, Low, Close and optionally Volume (any case; also " +
        "accepted: datetime/timestamp/time or an unnamed first date column, o/h/l/c, vol/v, " +
        'names ending in "price"), or map them with --columns date=…,open=…,high=…,low=…,close=….',
    });
  }
  return { time, clock, open, high, low, close, volume: found.get("volume") ?? null };
}

function mappedRole(mapping: ColumnMapping, role: Role): boolean {
  return COLUMN_KEYS.some((key) => ROLE_OF_KEY[key] === role && mapping[key] !== undefined);
}
