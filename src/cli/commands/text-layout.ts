// Plain-text layout shared by list, show and diff: fits a 100-column terminal, no escape codes.

export const WIDTH = 100;

export interface Column {
  header: string;
  align: "left" | "right";
  /** May be cut (with "…") to make the table fit the width; others keep their full width. */
  shrink?: boolean;
}

/** Cuts `s` to `max` characters, marking the cut. */
export function clip(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, Math.max(0, max - 1))}…`;
}

/** A table with a header row; shrinkable columns give up width until it fits `width`. */
export function table(columns: Column[], rows: string[][], width = WIDTH, gap = 2): string {
  const widths = columns.map((c, i) =>
    Math.max(c.header.length, ...rows.map((r) => (r[i] ?? "").length)),
  );
  const total = () => widths.reduce((x, y) => x + y, 0) + gap * (columns.length - 1);
  // Shave the widest shrinkable column one character at a time, down to its header's width.
  while (total() > width) {
    let widest = -1;
    for (const [i, c] of columns.entries()) {
      const w = widths[i] as number;
      if (
        c.shrink &&
        w > Math.max(c.header.length, 6) &&
        (widest < 0 || w > (widths[widest] as number))
      )
        widest = i;
    }
    if (widest < 0) break;
    widths[widest] = (widths[widest] as number) - 1;
  }
  const line = (cells: string[]) =>
    columns
      .map((c, i) => {
        const w = widths[i] as number;
        const cell = clip(cells[i] ?? "", w);
        return c.align === "right" ? cell.padStart(w) : cell.padEnd(w);
      })
      .join(" ".repeat(gap))
      .trimEnd();
  return [line(columns.map((c) => c.header)), ...rows.map(line)].join("\n");
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

/** Words joined into lines of at most `width` characters, each line starting with `indent`. */
export function wrap(items: string[], indent: string, width = WIDTH, sep = ", "): string[] {
  const lines: string[] = [];
  let current = "";
  for (const item of items) {
    const next = current === "" ? item : `${current}${sep}${item}`;
    if (current !== "" && indent.length + next.length + sep.trimEnd().length > width) {
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
