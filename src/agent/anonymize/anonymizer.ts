import { dayKey, timeLabel } from "../../engine/calendar.js";
import type { MarketData, Millis } from "../../engine/types.js";

const DAY_MS = 86_400_000;
const WEEK_MS = 7 * DAY_MS;

/**
 * The synthetic era anonymized runs are moved to: the first bar lands in the week starting on this
 * day. A date centuries ahead is outside every model's training data, and reads as synthetic.
 * Every run lands here whatever its real dates, so the shifted dates tell nothing about them.
 */
export const SYNTHETIC_ERA_START = Date.UTC(2300, 0, 1);

/** Every symbol's close at its first bar is shown as this. */
export const REBASE_TO = 100;

/**
 * What `--anonymize` changes in everything the model sees (docs/anonymize.md), and how to change it
 * back. The backtest itself runs on the real data: only the model's view is translated, so fills,
 * equity and metrics are those of the real run, exactly.
 *
 * - Tickers become ASSET_A, ASSET_B… in the order of `--data`.
 * - Times move forward by a whole number of weeks (weekdays and times of day are kept), so the
 *   first bar falls in the first week of 2300.
 * - Each symbol's prices are multiplied by its own factor, 100 / the close of its first bar.
 * - Money (cash, equity, P&L, commissions, the starting cash) is multiplied by the first symbol's
 *   factor, so that for that symbol quantity × shown price is shown money: an anonymized unit is a
 *   real unit, and a quantity the model sends is traded as is.
 * - Volumes are unchanged.
 */
export class Anonymizer {
  readonly offsetMs: number;
  readonly moneyFactor: number;
  private readonly names: Map<string, string>;
  private readonly reals: Map<string, string>;
  private readonly factors: Map<string, number>;
  /** Real tickers, longest first, for replacing them in free text. */
  private readonly tickerPattern: RegExp | null;

  constructor(
    data: MarketData,
    readonly intraday: boolean,
  ) {
    const first = data.times[0] ?? 0;
    this.offsetMs = Math.ceil((SYNTHETIC_ERA_START - first) / WEEK_MS) * WEEK_MS;
    this.names = new Map(data.symbols.map((s, i) => [s, anonymousName(i)]));
    this.reals = new Map(data.symbols.map((s, i) => [anonymousName(i), s]));
    this.factors = new Map(
      data.series.map((series) => {
        const close = series.close[0] ?? 0;
        return [series.symbol, close > 0 ? REBASE_TO / close : 1];
      }),
    );
    this.moneyFactor = this.factors.get(data.symbols[0] ?? "") ?? 1;
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

  price(realSymbol: string, real: number): number {
    return real * this.factor(realSymbol);
  }

  realPrice(realSymbol: string, shown: number): number {
    return shown / this.factor(realSymbol);
  }

  money(real: number): number {
    return real * this.moneyFactor;
  }

  time(real: Millis): Millis {
    return real + this.offsetMs;
  }

  label(real: Millis): string {
    return timeLabel(this.time(real), this.intraday);
  }

  /** The mapping, for result.json: enough to translate anything the model wrote back by hand. */
  describe(): AnonymizationRecord {
    return {
      symbols: Object.fromEntries(this.names),
      shiftDays: this.offsetMs / DAY_MS,
      priceFactors: Object.fromEntries(this.factors),
      moneyFactor: this.moneyFactor,
      rule:
        "tickers renamed in --data order; dates shifted by whole weeks so the first bar falls in " +
        "the first week of 2300; prices × 100 / the first close of each symbol; money × the first " +
        "symbol's factor; quantities and volumes unchanged",
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
   * seeded from outside): real tickers become their names, and dates (YYYY-MM-DD, optionally with
   * a time) are shifted. With `money`, amounts written with exactly two decimals and not followed
   * by "%" (the broker's money format) are scaled as money.
   */
  text(text: string, options: { money?: boolean } = {}): string {
    let out = this.tickers(text);
    out = out.replace(/\b(\d{4})-(\d{2})-(\d{2})\b/g, (whole, y: string, m: string, d: string) => {
      const t = Date.UTC(Number(y), Number(m) - 1, Number(d));
      return Number.isFinite(t) ? dayKey(t + this.offsetMs) : whole;
    });
    if (options.money) {
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
  /** Days added to every date shown (a whole number of weeks). */
  shiftDays: number;
  /** Real ticker → factor (price shown = real price × factor). */
  priceFactors: Record<string, number>;
  /** Money shown = real money × this. */
  moneyFactor: number;
  rule: string;
}

/** ASSET_A … ASSET_Z, then ASSET_27, ASSET_28… */
export function anonymousName(index: number): string {
  return index < 26 ? `ASSET_${String.fromCharCode(65 + index)}` : `ASSET_${index + 1}`;
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
