// Plain-text layout shared by list, show and diff: fits a 100-column terminal, no escape codes.
import { clip, fitTable, textWidth } from "./fit-table.js";

export { clip, pad, textWidth } from "./fit-table.js";

export const WIDTH = 100;

export interface Column {
  header: string;
  align: "left" | "right";
  /** May be cut (with "…") to make the table fit the width; others keep their full width. */
  shrink?: boolean;
}

/** A table with a header row; shrinkable columns give up width (down to their header's width, and
 * at least 6) until it fits `width`: `fitTable` without dropped columns. */
export function table(columns: Column[], rows: string[][], width = WIDTH, gap = 2): string {
  const fit = columns.map((c) => ({
    header: c.header,
    align: c.align,
    ...(c.shrink ? { min: Math.max(textWidth(c.header), 6) } : {}),
  }));
  return fitTable(fit, rows, width, gap);
}

/** A fixed-decimals number, or "n/a". */
export function fixed(v: number | null | undefined, digits = 2): string {
  return v === null || v === undefined || !Number.isFinite(v) ? "n/a" : v.toFixed(digits);
}

/** A number with an explicit sign, for deltas. */
export function signed(v: number | null, digits = 2): string {
  if (v === null || !Number.isFinite(v)) return "n/a";
  const s = v.toFixed(digits);
  // A delta that rounds to zero prints as zero, not "-0.00".
  if (Number(s) === 0) return (0).toFixed(digits);
  return v > 0 ? `+${s}` : s;
}

/** Words joined into lines of at most `width` columns, each line starting with `indent`. */
export function wrap(items: string[], indent: string, width = WIDTH, sep = ", "): string[] {
  const lines: string[] = [];
  let current = "";
  for (const item of items) {
    const next = current === "" ? item : `${current}${sep}${item}`;
    if (current !== "" && textWidth(indent + next + sep.trimEnd()) > width) {
      lines.push(`${indent}${current}${sep.trimEnd()}`);
      current = item;
    } else current = next;
  }
  if (current !== "") lines.push(`${indent}${current}`);
  return lines;
}

/** A value from JSON on one line, cut to fit. */
export function inline(value: unknown, max: number): string {
  const text = typeof value === "string" ? value : (JSON.stringify(value) ?? "null");
  return clip(text.replace(/\s+/g, " "), max);
}

export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} kB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}
