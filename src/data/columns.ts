import { DataError } from "./data-error.js";
import { parseTimestamp } from "./parse-timestamp.js";

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

const ALIASES: Record<Role, readonly string[]> = {
  date: ["date", "datetime", "date time", "timestamp"],
  clock: ["time"],
  open: ["open", "o"],
  high: ["high", "h"],
  low: ["low", "l"],
  close: ["close", "c", "close price"],
  volume: ["volume", "vol", "v"],
};

const ROLE_BY_NAME = new Map<string, Role>(
  (Object.entries(ALIASES) as [Role, readonly string[]][]).flatMap(([role, names]) =>
    names.map((name): [string, Role] => [name, role]),
  ),
);

/** Header names compare case-insensitively, ignoring surrounding space and `_` vs space. */
function normalise(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/[\s_]+/g, " ");
}

/** pandas writes its index without a name, or as `Unnamed: 0` after a round trip. */
function isUnnamed(name: string): boolean {
  const n = normalise(name);
  return n === "" || n.startsWith("unnamed:");
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
): ColumnLayout {
  const found = new Map<Role, number>();
  header.forEach((name, index) => {
    const role = ROLE_BY_NAME.get(normalise(name));
    if (role === undefined) return;
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
    if (cell !== undefined && !Number.isNaN(parseTimestamp(cell))) time = 0;
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
        "accepted: datetime/timestamp/time or an unnamed first date column, o/h/l/c, vol/v).",
    });
  }
  return { time, clock, open, high, low, close, volume: found.get("volume") ?? null };
}
