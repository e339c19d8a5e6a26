import { createHash } from "node:crypto";
import { UsageError } from "../../errors/usage-error.js";

// An LLM experiment's plan, pure: cells (the grid's combinations) × windows × repeats, each one
// full run. Everything here is decided before the first run, and again the same by a resume.

/** One axis of an experiment: `model`, `strategy`, `memory`, or a run/agent flag without `--`. */
export interface ExperimentAxis {
  name: string;
  values: string[];
}

/** A period every cell is run on (inclusive dates, as `--from`/`--to` take them). */
export interface ExperimentWindow {
  from: string;
  to: string;
}

/** One cell: a value for every axis, in the axes' order. */
export type CellSettings = Record<string, string>;

/** One run of the experiment. `key` names it in results.jsonl (stable across resumes). */
export interface PlannedRun {
  key: string;
  cell: number;
  window: number;
  /** 1-based. */
  repeat: number;
  /** The sampling seed sent to the provider: each repeat its own, the same across cells. */
  seed: number;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** The label of a window: `from:to`, as written on the command line. */
export const windowLabel = (w: ExperimentWindow) => `${w.from}:${w.to}`;

/**
 * `--windows a:b,c:d`: each window's first and last day (YYYY-MM-DD, from ≤ to), distinct.
 */
export function parseWindows(arg: string): ExperimentWindow[] {
  const out: ExperimentWindow[] = [];
  for (const part of arg.split(",").map((p) => p.trim())) {
    const m = /^(.+):(.+)$/.exec(part);
    const from = m?.[1]?.trim() ?? "";
    const to = m?.[2]?.trim() ?? "";
    if (
      !DAY.test(from) ||
      !DAY.test(to) ||
      Number.isNaN(Date.parse(from)) ||
      Number.isNaN(Date.parse(to))
    )
      throw new UsageError(
        `--windows ${JSON.stringify(part)}: a window is from:to in days, e.g. 2012-01-01:2012-06-30 (windows separated by commas).`,
      );
    if (from > to)
      throw new UsageError(`--windows ${part}: the window ends before it starts; write from:to.`);
    if (out.some((w) => w.from === from && w.to === to))
      throw new UsageError(`--windows names ${part} twice: name each window once.`);
    out.push({ from, to });
  }
  return out;
}

/**
 * `--windows rolling:<n>m` (or `<n>y`): consecutive windows of that many months from the first
 * day of `start`'s month, each ending the day before the next starts, the last one ending on or
 * before `end` (a shorter tail is left out: its figures would not compare).
 */
export function rollingWindows(spec: string, start: string, end: string): ExperimentWindow[] {
  const m = /^rolling:(\d+)([my])$/.exec(spec.trim());
  const n = Number(m?.[1] ?? 0);
  if (!m || n < 1)
    throw new UsageError(
      `--windows ${JSON.stringify(spec)}: a rolling window is rolling:<n>m or rolling:<n>y, e.g. rolling:6m.`,
    );
  const months = m[2] === "y" ? n * 12 : n;
  const day = (d: Date) => d.toISOString().slice(0, 10);
  const first = new Date(`${start.slice(0, 7)}-01T00:00:00Z`);
  const out: ExperimentWindow[] = [];
  for (let k = 0; ; k++) {
    const from = new Date(first);
    from.setUTCMonth(first.getUTCMonth() + k * months);
    const next = new Date(first);
    next.setUTCMonth(first.getUTCMonth() + (k + 1) * months);
    const to = new Date(next.getTime() - 86_400_000);
    if (day(to) > end) break;
    out.push({ from: day(from) < start ? start : day(from), to: day(to) });
  }
  if (out.length === 0)
    throw new UsageError(
      `--windows ${spec}: the data (${start} to ${end}) is shorter than one window; use a shorter one.`,
    );
  return out;
}

/** Every combination of the axes' values, the last axis varying fastest. */
export function experimentCells(axes: readonly ExperimentAxis[]): CellSettings[] {
  let cells: CellSettings[] = [{}];
  for (const axis of axes)
    cells = cells.flatMap((c) => axis.values.map((v) => ({ ...c, [axis.name]: v })));
  return cells;
}

/** A cell as people read it: `memory=none model=x` (`all` for an experiment without axes). */
export function cellLabel(settings: CellSettings): string {
  const parts = Object.entries(settings).map(([k, v]) => `${k}=${v}`);
  return parts.length ? parts.join(" ") : "all";
}

/**
 * Every run: cell by cell, repeat by repeat, window by window. Repeat r sends seed
 * `seed + r - 1`: two repeats never share a request (so never a cache entry), and the cells of
 * one repeat share a seed, so the pairs a comparison makes differ only by the cell.
 */
export function planRuns(
  cells: number,
  windows: readonly ExperimentWindow[],
  repeats: number,
  seed: number,
): PlannedRun[] {
  const out: PlannedRun[] = [];
  for (let cell = 0; cell < cells; cell++)
    for (let repeat = 1; repeat <= repeats; repeat++)
      for (let window = 0; window < windows.length; window++)
        out.push({
          key: `c${cell}-w${window}-r${repeat}`,
          cell,
          window,
          repeat,
          seed: seed + repeat - 1,
        });
  return out;
}

/**
 * Every run of an experiment: planRuns's, except that a code cell (`--baseline`, deterministic)
 * runs once on each window, as repeat 1.
 */
export function experimentRuns(e: {
  cells: readonly { code?: boolean }[];
  windows: readonly ExperimentWindow[];
  repeats: number;
  seed: number;
}): PlannedRun[] {
  return planRuns(e.cells.length, e.windows, e.repeats, e.seed).filter(
    (r) => e.cells[r.cell]?.code !== true || r.repeat === 1,
  );
}

/**
 * The persistent store's namespace of one attempt at one run: a store of its own, so that no
 * run sees what another wrote (nor a restarted run what its killed attempt wrote).
 */
export function runNamespace(experimentId: string, run: PlannedRun, attempt: number): string {
  const h = createHash("sha256").update(experimentId).digest("hex").slice(0, 10);
  return `x${h}-${run.key}-a${attempt}`;
}

/**
 * The baseline of each cell: the cell with the same settings but `memory=none`, when the
 * experiment has a memory axis with none in it; null for the baselines themselves and otherwise.
 */
export function baselineCells(cells: readonly CellSettings[]): (number | null)[] {
  return cells.map((c) => {
    if (c.memory === undefined || c.memory === "none") return null;
    const i = cells.findIndex((b) =>
      Object.entries(c).every(([k, v]) => (k === "memory" ? b[k] === "none" : b[k] === v)),
    );
    return i < 0 ? null : i;
  });
}
