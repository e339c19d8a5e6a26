import stringWidth from "string-width";

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/** The columns `s` takes in a terminal: two for a CJK character or an emoji, none for a mark. */
export function textWidth(s: string): number {
  // Most cells are ASCII, and string-width's first call compiles its Unicode expressions.
  return PRINTABLE_ASCII.test(s) ? s.length : stringWidth(s);
}

/** `s` filled with spaces to `width` columns, on the right (left-aligned) or on the left. */
export function pad(s: string, width: number, align: "left" | "right" = "left"): string {
  const fill = " ".repeat(Math.max(0, width - textWidth(s)));
  return align === "right" ? fill + s : s + fill;
}

const graphemes = new Intl.Segmenter();

/** Cuts `s` to `max` columns, marking the cut; a wide character is never split. */
export function clip(s: string, max: number): string {
  if (textWidth(s) <= max) return s;
  let kept = "";
  let width = 0;
  for (const { segment } of graphemes.segment(s)) {
    const w = textWidth(segment);
    if (width + w > max - 1) break;
    kept += segment;
    width += w;
  }
  return `${kept}…`;
}

export interface FitColumn {
  header: string;
  align: "left" | "right";
  /** May be cut (with "…") down to this many columns; absent: never cut. */
  min?: number;
  /**
   * Instead of `min`: `[rank, min]` steps, cut to `min` only once the droppable columns ranked up
   * to `rank` are dropped, and then only when no column with a plain `min` can give (the run's
   * name: whole while it can be, then cut a little, then more).
   */
  cuts?: [rank: number, min: number][];
  /** Dropped when the table cannot fit otherwise; lower ranks go first. Absent: always shown. */
  drop?: number;
}

/**
 * A table with a header row that fits `width`: shrinkable columns are cut first (widest first,
 * down to their minimum); when that is not enough the lowest-ranked droppable column is left out
 * and the cutting starts again from full widths. Columns without `min` or `drop` (the run id) are
 * never touched; when even those do not fit, the line is longer than `width`.
 */
export function fitTable(columns: FitColumn[], rows: string[][], width: number, gap = 2): string {
  const natural = columns.map((c, i) =>
    Math.max(textWidth(c.header), ...rows.map((r) => textWidth(r[i] ?? ""))),
  );
  const dropOrder = columns
    .map((c, i) => ({ i, rank: c.drop }))
    .filter((d): d is { i: number; rank: number } => d.rank !== undefined)
    .sort((a, b) => a.rank - b.rank)
    .map((d) => d.i);
  let visible = columns.map((_, i) => i);
  let dropped = 0;
  let widths = shaveWidths(columns, natural, visible, dropped, width, gap);
  for (const i of dropOrder) {
    if (total(widths, visible, gap) <= width) break;
    visible = visible.filter((v) => v !== i);
    dropped = columns[i]?.drop ?? dropped;
    widths = shaveWidths(columns, natural, visible, dropped, width, gap);
  }
  const line = (cells: string[]) =>
    visible
      .map((i) => {
        const w = widths[i] as number;
        return pad(clip(cells[i] ?? "", w), w, columns[i]?.align);
      })
      .join(" ".repeat(gap))
      .trimEnd();
  return [line(columns.map((c) => c.header)), ...rows.map(line)].join("\n");
}

const total = (widths: number[], visible: number[], gap: number) =>
  visible.reduce((s, i) => s + (widths[i] as number), 0) + gap * Math.max(0, visible.length - 1);

/**
 * Natural widths, then the widest shrinkable visible column shaved one character at a time
 * (columns with `cuts` only when no other column can give).
 */
function shaveWidths(
  columns: FitColumn[],
  natural: number[],
  visible: number[],
  dropped: number,
  width: number,
  gap: number,
): number[] {
  const widths = [...natural];
  while (total(widths, visible, gap) > width) {
    let widest = -1;
    for (const last of [false, true]) {
      for (const i of visible) {
        const c = columns[i];
        const w = widths[i] as number;
        const min = c === undefined ? undefined : minOf(c, dropped);
        if (min === undefined || (c?.cuts !== undefined) !== last || w <= min) continue;
        if (widest < 0 || w > (widths[widest] as number)) widest = i;
      }
      if (widest >= 0) break;
    }
    if (widest < 0) break;
    widths[widest] = (widths[widest] as number) - 1;
  }
  return widths;
}

/** How narrow a column may be once the columns ranked up to `dropped` are left out. */
function minOf(c: FitColumn, dropped: number): number | undefined {
  if (c.cuts === undefined) return c.min;
  const allowed = c.cuts.filter(([rank]) => rank <= dropped).map(([, min]) => min);
  return allowed.length ? Math.min(...allowed) : undefined;
}
