export const MS_PER_DAY = 86_400_000;

/**
 * Above this share of weekend days the market is taken to trade seven days a week. backtesting.py
 * uses 60 % of the share a seven-day market would have (2/7), which tolerates a few stray weekend
 * bars in an equity feed without calling it a crypto feed.
 */
const WEEKEND_SHARE_THRESHOLD = (2 / 7) * 0.6;

/** How returns are sampled before annualising: one value per calendar day, or one per bar. */
export type Sampling = "day" | "bar";

export interface Annualisation {
  periodsPerYear: number;
  sampling: Sampling;
}

/** Distinct gaps counted before the median is taken from an array of every gap instead. */
const MAX_DISTINCT_GAPS = 4096;

/** Median gap between consecutive timestamps, in days; null with fewer than two bars. */
export function medianSpacingDays(times: Float64Array): number | null {
  if (times.length < 2) return null;
  return medianOfCountedGaps(times) ?? medianOfAllGaps(times);
}

/**
 * The median from the count of each distinct gap (a regular series has a handful: a minute, a
 * night, a weekend), so no array of a million gaps is made at the run's end, when its memory
 * peaks. Null when the gaps are too varied to count: medianOfAllGaps then.
 */
function medianOfCountedGaps(times: Float64Array): number | null {
  const counts = new Map<number, number>();
  for (let i = 1; i < times.length; i++) {
    const gap = (times[i] as number) - (times[i - 1] as number);
    const c = counts.get(gap);
    if (c !== undefined) counts.set(gap, c + 1);
    else {
      if (counts.size === MAX_DISTINCT_GAPS) return null;
      counts.set(gap, 1);
    }
  }
  const n = times.length - 1;
  const sorted = [...counts.keys()].sort((a, b) => a - b);
  // The values at 0-based ranks lowerRank and upperRank of the sorted gaps (equal for odd n).
  const upperRank = n >> 1;
  const lowerRank = n % 2 === 1 ? upperRank : upperRank - 1;
  let seen = 0;
  let lower = Number.NaN;
  for (const gap of sorted) {
    seen += counts.get(gap) as number;
    if (Number.isNaN(lower) && seen > lowerRank) lower = gap;
    if (seen > upperRank) return (lower / MS_PER_DAY + gap / MS_PER_DAY) / 2;
  }
  return null;
}

function medianOfAllGaps(times: Float64Array): number {
  const gaps = new Float64Array(times.length - 1);
  for (let i = 1; i < times.length; i++) gaps[i - 1] = (times[i]! - times[i - 1]!) / MS_PER_DAY;
  // Selection, not a sort: linear at a million bars (whose gaps are mostly equal).
  const mid = gaps.length >> 1;
  const upper = select(gaps, mid);
  if (gaps.length % 2 === 1) return upper;
  // The lower middle is the largest value left of `mid` once it is in place.
  let lower = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < mid; i++) if (gaps[i]! > lower) lower = gaps[i]!;
  return (lower + upper) / 2;
}

/** The k-th smallest value of `xs` (0-based), partitioning `xs` in place around it (Hoare's
 * selection with a three-way split, so runs of equal values cost one pass). */
function select(xs: Float64Array, k: number): number {
  let lo = 0;
  let hi = xs.length - 1;
  while (lo < hi) {
    const pivot = xs[(lo + hi) >> 1]!;
    // Three-way partition of [lo, hi]: < pivot, = pivot, > pivot.
    let lt = lo;
    let gt = hi;
    let i = lo;
    while (i <= gt) {
      const v = xs[i]!;
      if (v < pivot) {
        xs[i] = xs[lt]!;
        xs[lt] = v;
        lt++;
        i++;
      } else if (v > pivot) {
        xs[i] = xs[gt]!;
        xs[gt] = v;
        gt--;
      } else i++;
    }
    if (k < lt) hi = lt - 1;
    else if (k > gt) lo = gt + 1;
    else return pivot;
  }
  return xs[k]!;
}

/** UTC day number (days since the epoch) of a timestamp. */
export function dayNumber(time: number): number {
  return Math.floor(time / MS_PER_DAY);
}

/** Share of the distinct calendar days in `times` that are a Saturday or a Sunday. */
export function weekendShare(times: Float64Array): number {
  let days = 0;
  let weekendDays = 0;
  let lastDay = Number.NaN;
  for (let i = 0; i < times.length; i++) {
    const day = dayNumber(times[i]!);
    if (day === lastDay) continue;
    lastDay = day;
    days++;
    // Day 0 (1970-01-01) was a Thursday, so (day + 4) mod 7 is 0 on Sundays and 6 on Saturdays.
    const weekday = (((day + 4) % 7) + 7) % 7;
    if (weekday === 0 || weekday === 6) weekendDays++;
  }
  return days === 0 ? 0 : weekendDays / days;
}

/**
 * Periods per year from the bar spacing. Bars a day apart or closer are sampled once per calendar
 * day and annualised with 252 (or 365 when weekends trade); coarser bars are already one period
 * each, so they are used as they are.
 */
export function detectAnnualisation(times: Float64Array): Annualisation | null {
  // The strategy and its benchmark share one timeline: detect once per array (a sort of every gap).
  const known = detected.get(times);
  if (known !== undefined) return known;
  const result = detect(times);
  detected.set(times, result);
  return result;
}

const detected = new WeakMap<Float64Array, Annualisation | null>();

function detect(times: Float64Array): Annualisation | null {
  const spacing = medianSpacingDays(times);
  if (spacing === null || spacing <= 0) return null;
  if (spacing < 2) {
    const periodsPerYear = weekendShare(times) > WEEKEND_SHARE_THRESHOLD ? 365 : 252;
    return { periodsPerYear, sampling: "day" };
  }
  if (spacing >= 5 && spacing <= 9) return { periodsPerYear: 52, sampling: "bar" };
  if (spacing >= 26 && spacing <= 35) return { periodsPerYear: 12, sampling: "bar" };
  if (spacing >= 85 && spacing <= 95) return { periodsPerYear: 4, sampling: "bar" };
  if (spacing >= 350 && spacing <= 380) return { periodsPerYear: 1, sampling: "bar" };
  // Irregular spacings (every 2–4 days, say) get the calendar share they actually cover.
  return { periodsPerYear: 365.25 / spacing, sampling: "bar" };
}

function addUtcYears(time: number, years: number): number {
  const d = new Date(time);
  d.setUTCFullYear(d.getUTCFullYear() + years);
  return d.getTime();
}

/**
 * Calendar years between two timestamps: whole years by the calendar, plus the remainder as a
 * fraction of the year that follows. 2020-01-01 → 2022-01-01 is exactly 2 despite the leap day.
 */
export function yearsBetween(start: number, end: number): number {
  if (end <= start) return 0;
  let whole = Math.floor((end - start) / (366 * MS_PER_DAY));
  while (addUtcYears(start, whole + 1) <= end) whole++;
  const anchor = addUtcYears(start, whole);
  const next = addUtcYears(start, whole + 1);
  return whole + (end - anchor) / (next - anchor);
}
