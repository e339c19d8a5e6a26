import { createHash } from "node:crypto";
import { dayKey, dayNumber, timeLabel } from "../../engine/calendar.js";
import type { MarketData, Millis, SymbolSeries } from "../../engine/types.js";

const DAY_MS = 86_400_000;
const WEEK_MS = 7 * DAY_MS;

/**
 * The synthetic era anonymized runs are moved to: the window's first bar is shown on this day (a
 * Monday) or in its week. A date centuries ahead is outside every model's training data, and reads
 * as synthetic. Every run lands here whatever its real dates.
 */
export const SYNTHETIC_ERA_START = Date.UTC(2300, 0, 1);

/** The starting cash the model is shown, whatever the real one: a plain round number. */
export const SHOWN_CASH = 100_000;

/** The window's first close of a symbol is shown log-uniformly in [20, 2000). */
const PRICE_LEVEL = { low: 20, decades: 2 } as const;
/** Its volume there, log-uniformly in [100,000, 10,000,000). */
const VOLUME_LEVEL = { low: 100_000, decades: 2 } as const;
/**
 * A factor is redrawn while it lies within 26% (a tenth of a decade) of a power of ten, so that
 * neither the shown numbers nor those numbers over a round amount (the shown cash over 10,000)
 * are the real ones to within a few percent.
 */
const MIN_DECADE_DISTANCE = 0.1;

/** Shown prices keep 6 significant digits, as much as daily data holds, with no float noise. */
const sig = (x: number, digits: number): number => Number(x.toPrecision(digits));
const PRICE_DIGITS = 6;
/** Quantities keep 10, so that a quantity read back converts to the real units exactly. */
const QTY_DIGITS = 10;
const round2 = (x: number): number => Math.round(x * 100) / 100;

/**
 * What `--anonymize` changes in everything the model sees (docs/anonymize.md), and how to change it
 * back. The backtest itself runs on the real data: only the model's view is translated.
 *
 * - Tickers become ASSET_A, ASSET_B… in the order of `--data`.
 * - The calendar is synthetic: every trading day of the data is a weekday, numbered on from
 *   Monday 2300-01-01 for the window's first day (times of day are kept), so that no holiday gap
 *   is left to date the data. Data with bars a week or more apart is shifted by whole weeks.
 * - Each symbol's prices are multiplied by its own factor, which shows the window's first close
 *   at a level drawn from a hash of the symbol and that bar (deterministic: a replay, a resume
 *   and a cached rerun see the same numbers; unknowable to the model).
 * - Volumes, likewise, by a factor per symbol.
 * - Money is shown as if the starting cash were 100,000, and quantities are scaled per symbol so
 *   that quantity × shown price = shown money. A quantity the model sends is converted back and
 *   rounded to what the broker trades (whole units, or 1e-8 with --fractional).
 */
export class Anonymizer {
  readonly moneyFactor: number;
  private readonly names: Map<string, string>;
  private readonly reals: Map<string, string>;
  private readonly factors: Map<string, number>;
  private readonly volumeFactors: Map<string, number>;
  /** Real tickers, longest first, for replacing them in free text. */
  private readonly tickerPattern: RegExp | null;
  private readonly calendar: SyntheticCalendar;

  constructor(
    data: MarketData,
    readonly intraday: boolean,
    startIndex: number,
    initialCash: number,
    /** The broker's unit step: 1 (whole units) or 1e-8 (--fractional). */
    readonly unitStep: number,
  ) {
    const anchor = Math.min(Math.max(startIndex, 0), Math.max(data.times.length - 1, 0));
    this.calendar = new SyntheticCalendar(data.times, anchor);
    this.names = new Map(data.symbols.map((s, i) => [s, anonymousName(i)]));
    this.reals = new Map(data.symbols.map((s, i) => [anonymousName(i), s]));
    this.factors = new Map();
    this.volumeFactors = new Map();
    data.series.forEach((series, i) => {
      const at = anchorBar(data, i, anchor);
      const seed = `${i}|${series.symbol}|${series.time[at]}|${series.close[at]}|${series.volume[at]}`;
      this.factors.set(series.symbol, drawFactor(`${seed}|price`, series.close[at], PRICE_LEVEL));
      this.volumeFactors.set(
        series.symbol,
        drawFactor(`${seed}|volume`, firstVolume(series, at), VOLUME_LEVEL),
      );
    });
    this.moneyFactor = initialCash > 0 ? SHOWN_CASH / initialCash : 1;
    const tickers = [...data.symbols].sort((a, b) => b.length - a.length).map(escapeRegExp);
    this.tickerPattern = tickers.length
      ? new RegExp(`(?<![A-Za-z0-9_])(?:${tickers.join("|")})(?![A-Za-z0-9_])`, "g")
      : null;
  }

  symbol(real: string): string {
    return this.names.get(real) ?? real;
  }

  /** The real ticker of a name the model used; an unknown name is returned as is (and refused
   * later as an unknown symbol, with the anonymized list). */
  realSymbol(name: string): string {
    return this.reals.get(name) ?? name;
  }

  get symbols(): string[] {
    return [...this.names.values()];
  }

  /** The symbol's price factor (shown = real × factor). */
  factor(realSymbol: string): number {
    return this.factors.get(realSymbol) ?? 1;
  }

  /** Shown units per real unit of the symbol: quantity × shown price = shown money. */
  quantityFactor(realSymbol: string): number {
    return this.moneyFactor / this.factor(realSymbol);
  }

  price(realSymbol: string, real: number): number {
    return sig(real * this.factor(realSymbol), PRICE_DIGITS);
  }

  realPrice(realSymbol: string, shown: number): number {
    return shown / this.factor(realSymbol);
  }

  /** A value in price units that is not a traded price (an indicator): the same scale. */
  priceLike(realSymbol: string, real: number): number {
    return this.price(realSymbol, real);
  }

  volume(realSymbol: string, real: number): number {
    return Math.round(real * (this.volumeFactors.get(realSymbol) ?? 1));
  }

  quantity(realSymbol: string, real: number): number {
    return sig(real * this.quantityFactor(realSymbol), QTY_DIGITS);
  }

  /** The real units of a quantity the model sent, rounded to the nearest tradable step. */
  realQuantity(realSymbol: string, shown: number): number {
    const raw = shown / this.quantityFactor(realSymbol);
    return Math.round(raw / this.unitStep) * this.unitStep;
  }

  money(real: number): number {
    return round2(real * this.moneyFactor);
  }

  time(real: Millis): Millis {
    return this.calendar.time(real);
  }

  label(real: Millis): string {
    return timeLabel(this.time(real), this.intraday);
  }

  /** The mapping, for result.json: enough to translate anything the model wrote back by hand. */
  describe(): AnonymizationRecord {
    const symbols = [...this.names.keys()];
    const bySymbol = (f: (s: string) => number) =>
      Object.fromEntries(symbols.map((s) => [s, f(s)]));
    return {
      symbols: Object.fromEntries(this.names),
      calendar: this.calendar.describe(),
      priceFactors: bySymbol((s) => this.factor(s)),
      volumeFactors: bySymbol((s) => this.volumeFactors.get(s) ?? 1),
      quantityFactors: bySymbol((s) => this.quantityFactor(s)),
      moneyFactor: this.moneyFactor,
      shownCash: SHOWN_CASH,
      quantityRounding:
        this.unitStep === 1
          ? "quantities the model sends are rounded to the nearest whole real unit"
          : `quantities the model sends are rounded to the nearest ${this.unitStep} real units`,
      results:
        "trades, equity and metrics are the real run's, in real tickers, dates, prices and units: " +
        "identical to a run without --anonymize that receives the same orders in real units " +
        "(weight and fraction orders are the same; a quantity order is the one rounded as above)",
      rule:
        "tickers renamed in --data order; every trading day shown as the next weekday from " +
        "2300-01-01 (the window's first day; weekly or coarser data shifted by whole weeks); " +
        "prices × a per-symbol factor drawn from a hash of the window's first bar; " +
        `volumes likewise; money × ${SHOWN_CASH} / the starting cash; quantities × money factor / price ` +
        "factor",
    };
  }

  /**
   * Real tickers in `text` replaced by their names, nothing else: for memory, which the run wrote
   * on the shifted clock already (a date there must not be shifted twice).
   */
  tickers(text: string): string {
    return this.tickerPattern ? text.replace(this.tickerPattern, (t) => this.symbol(t)) : text;
  }

  /**
   * Free text from the framework (order reasons, error messages, the strategy prompt, memory
   * seeded from outside): real tickers become their names, and dates (YYYY-MM-DD) move to the
   * synthetic calendar. With `money`, amounts written with exactly two decimals and not followed
   * by "%" (the broker's money format) are scaled as money, and real units × a real price are cut.
   */
  text(text: string, options: { money?: boolean } = {}): string {
    let out = this.tickers(text);
    out = out.replace(/\b(\d{4})-(\d{2})-(\d{2})\b/g, (whole, y: string, m: string, d: string) => {
      const t = Date.UTC(Number(y), Number(m) - 1, Number(d));
      return Number.isFinite(t) ? dayKey(this.time(t)) : whole;
    });
    if (options.money) {
      // Real units times a real price (a fill's amounts that overflowed) would give the level away.
      out = out.replace(/\s*\([^()]*\bunits × [^()]*\)/g, "");
      out = out.replace(/(?<![\d.])(-?\d+\.\d{2})(?![\d%])/g, (amount: string) =>
        this.money(Number(amount)).toFixed(2),
      );
    }
    return out;
  }
}

export interface AnonymizationRecord {
  /** Real ticker → name shown. */
  symbols: Record<string, string>;
  /** How dates are shown. */
  calendar: CalendarRecord;
  /** Real ticker → factor (price shown = real price × factor). */
  priceFactors: Record<string, number>;
  /** Real ticker → factor (volume shown = real volume × factor, rounded). */
  volumeFactors: Record<string, number>;
  /** Real ticker → shown units per real unit. */
  quantityFactors: Record<string, number>;
  /** Money shown = real money × this. */
  moneyFactor: number;
  /** The starting cash shown. */
  shownCash: number;
  quantityRounding: string;
  /** What the run's results are, compared with a run without --anonymize. */
  results: string;
  rule: string;
}

export type CalendarRecord =
  | {
      /** Every trading day of the data is shown as the next weekday. */
      kind: "trading-days";
      /** The window's first day, as real and as shown. */
      firstDay: { real: string; shown: string };
    }
  | {
      /** Weekly or coarser data: every date moved by the same whole number of weeks. */
      kind: "whole-weeks";
      shiftDays: number;
    };

/**
 * The dates the model sees. For daily and intraday data, the distinct trading days of the master
 * timeline are numbered and day n is shown as the n-th weekday after Monday 2300-01-01 (the
 * window's first day is day 0), keeping each bar's time of day: weekends and holidays vanish, and a
 * week of the shown calendar is five trading days. Data with bars a week or more apart keeps its
 * own rhythm, moved by whole weeks. A date off the timeline (a date in the prompt) is shown as the
 * next trading day's.
 */
class SyntheticCalendar {
  private readonly days: number[];
  private readonly anchorOrdinal: number;
  private readonly weekShiftMs: number | null;
  private readonly eraDay = SYNTHETIC_ERA_START / DAY_MS;

  constructor(times: Float64Array, anchor: number) {
    const days: number[] = [];
    for (const t of times) {
      const d = dayNumber(t);
      if (days.at(-1) !== d) days.push(d);
    }
    this.days = days;
    const anchorTime = times[anchor] ?? SYNTHETIC_ERA_START;
    this.anchorOrdinal = this.ordinal(dayNumber(anchorTime));
    const gaps = days.slice(1).map((d, i) => d - (days[i] as number));
    gaps.sort((a, b) => a - b);
    const median = gaps[Math.floor(gaps.length / 2)] ?? 1;
    this.weekShiftMs =
      median >= 7 ? Math.ceil((SYNTHETIC_ERA_START - anchorTime) / WEEK_MS) * WEEK_MS : null;
  }

  /** The trading-day number of a real day: its index, or the next trading day's (counted on past
   * either end of the data). */
  private ordinal(day: number): number {
    const days = this.days;
    const first = days[0];
    const last = days.at(-1);
    if (first === undefined || last === undefined) return 0;
    if (day < first) return day - first;
    if (day > last) return days.length - 1 + (day - last);
    let lo = 0;
    let hi = days.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((days[mid] as number) < day) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  time(real: Millis): Millis {
    if (this.weekShiftMs !== null) return real + this.weekShiftMs;
    const day = dayNumber(real);
    const n = this.ordinal(day) - this.anchorOrdinal;
    const weeks = Math.floor(n / 5);
    const shown = this.eraDay + weeks * 7 + (n - weeks * 5);
    return shown * DAY_MS + (real - day * DAY_MS);
  }

  describe(): CalendarRecord {
    if (this.weekShiftMs !== null)
      return { kind: "whole-weeks", shiftDays: this.weekShiftMs / DAY_MS };
    const real = (this.days[this.anchorOrdinal] ?? this.eraDay) * DAY_MS;
    return {
      kind: "trading-days",
      firstDay: { real: dayKey(real), shown: dayKey(this.time(real)) },
    };
  }
}

/** The symbol's series index whose close fixes its factors: its last bar at or before the window's
 * first bar, else its first bar. */
function anchorBar(data: MarketData, symbolIndex: number, anchor: number): number {
  const index = data.barIndex[symbolIndex];
  if (index) for (let k = anchor; k >= 0; k--) if ((index[k] ?? -1) >= 0) return index[k] as number;
  return 0;
}

/** The volume at the anchor bar, or the last positive one before it (0 when there is none). */
function firstVolume(series: SymbolSeries, at: number): number {
  for (let k = at; k >= 0; k--) if ((series.volume[k] ?? 0) > 0) return series.volume[k] as number;
  return 0;
}

/**
 * The factor that shows `real` at a level drawn log-uniformly from `level` by a hash of `seed`,
 * redrawn while it lies near a power of ten. A real value that is not positive keeps factor 1
 * (zero volumes stay zero).
 */
function drawFactor(
  seed: string,
  real: number | undefined,
  level: { low: number; decades: number },
): number {
  const base = real !== undefined && real > 0 && Number.isFinite(real) ? real : null;
  for (let draw = 0; draw < 64; draw++) {
    const h = createHash("sha256").update(`${seed}|${draw}`).digest().readUInt32BE(0) / 2 ** 32;
    const shown = level.low * 10 ** (level.decades * h);
    const factor = base === null ? 10 ** (level.decades * h - 1) : shown / base;
    const frac = Math.log10(factor) - Math.floor(Math.log10(factor));
    if (frac >= MIN_DECADE_DISTANCE && frac <= 1 - MIN_DECADE_DISTANCE) return factor;
  }
  return 3; // 64 draws near a power of ten do not happen; 3 is far from every one
}

/** ASSET_A … ASSET_Z, then ASSET_27, ASSET_28… */
export function anonymousName(index: number): string {
  return index < 26 ? `ASSET_${String.fromCharCode(65 + index)}` : `ASSET_${index + 1}`;
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
