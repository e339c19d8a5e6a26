import { NonFiniteAccountError } from "./account-error.js";
import { Broker, type BrokerState, type EngineModels, type EventSink } from "./broker.js";
import type { BrokerConfig } from "./broker-config.js";
import {
  type CalendarFlags,
  calendarFlagsAt,
  dayKey,
  dayNumber,
  isoWeekKey,
  monthKey,
} from "./calendar.js";
import { earlyEnds, lastBarIndices } from "./data-end.js";
import type { MarketData } from "./types.js";

/**
 * Steps a broker over a master timeline in two phases per bar, so that a decision can sit between
 * them: `openBar` fills working orders inside bar i and marks to its close; the decision then sees
 * bar i; `closeBar` fills trade-on-close orders, records the bar's equity and emits calendar events
 * (day, week and month ends, and `run_end` at the last bar).
 */
export class Simulation {
  readonly broker: Broker;
  readonly equity: Float64Array;
  /** 1 where a position was open at the bar's close. */
  readonly exposed: Uint8Array;
  private readonly flags: CalendarFlags = { dayEnd: false, weekEnd: false, monthEnd: false };
  /** Symbols whose data ends before the timeline, in time order, and the next one to close. */
  private readonly ends: [index: number, sym: number][];
  private nextEnd = 0;

  private readonly barEvents: boolean;
  private readonly calendarEvents: boolean;

  /** `events` chooses the per-bar event kinds worth their cost: a bar event on every bar, and
   * day/week/month ends (on daily data every bar ends a day). Order and fill events always flow. */
  constructor(
    readonly data: MarketData,
    config: BrokerConfig,
    private readonly emit: EventSink | null = null,
    events: { bars?: boolean; calendar?: boolean } = { bars: true, calendar: true },
    /** The array to hold the equity at each close (one per bar; default a new one). */
    equity?: Float64Array,
    /** The fee and fill models (default: the config's commission, the documented fill rules). */
    models: EngineModels = {},
  ) {
    this.barEvents = emit !== null && events.bars === true;
    this.calendarEvents = emit !== null && events.calendar === true;
    this.broker = new Broker(data, config, emit, models);
    if (equity !== undefined && equity.length !== data.times.length) {
      throw new RangeError(`equity holds ${equity.length} bars, the data ${data.times.length}`);
    }
    this.equity = equity ?? new Float64Array(data.times.length);
    this.exposed = new Uint8Array(data.times.length);
    this.ends = earlyEnds(data, lastBarIndices(data));
  }

  /** Symbols closed by the end of their data so far (the rest of a resumed run's state is the
   * broker's and the curves'). */
  get endsClosed(): number {
    return this.nextEnd;
  }

  /** A resume: the broker's state and the curves up to bar `last` (inclusive), before any bar. */
  restore(
    broker: BrokerState,
    endsClosed: number,
    equity: Float64Array,
    exposed: Uint8Array,
    from: number,
  ): void {
    this.broker.importState(broker);
    this.nextEnd = endsClosed;
    this.equity.set(equity, from);
    this.exposed.set(exposed, from);
  }

  get length(): number {
    return this.data.times.length;
  }

  openBar(i: number): void {
    if (this.barEvents) this.emit?.({ type: "bar", index: i, time: this.data.times[i] ?? 0 });
    this.broker.processBar(i);
  }

  /** Returns the calendar flags of bar i when calendar events are on (otherwise all false). */
  closeBar(i: number): CalendarFlags {
    const broker = this.broker;
    broker.fillAtClose(i);
    // A symbol whose data ended at this bar (or before the first simulated bar) is closed now.
    while (this.nextEnd < this.ends.length && (this.ends[this.nextEnd] as [number, number])[0] <= i)
      broker.closeEndedSymbol((this.ends[this.nextEnd++] as [number, number])[1], i);
    const p = broker.portfolio;
    const equity = p.equity();
    if (!Number.isFinite(equity)) throw this.nonFinite(i, equity);
    this.equity[i] = equity;
    let open = 0;
    for (let s = 0; s < p.qty.length; s++) if (p.qty[s] !== 0) open = 1;
    this.exposed[i] = open;
    broker.checkHalt(i, equity);
    const times = this.data.times;
    const next = times[i + 1];
    // Only a working order can expire: with none (most bars), the day's end need not be known.
    if (
      broker.hasWorkingOrders &&
      (next === undefined || dayNumber(next) !== dayNumber(times[i] ?? 0))
    )
      broker.expireDayOrders(i);
    if (!this.calendarEvents) return this.flags;
    const flags = calendarFlagsAt(this.data.times, i, this.flags);
    if (this.emit && flags.dayEnd) {
      const time = this.data.times[i] ?? 0;
      this.emit({ type: "day_end", index: i, time, key: dayKey(time) });
      if (flags.weekEnd) this.emit({ type: "week_end", index: i, time, key: isoWeekKey(time) });
      if (flags.monthEnd) this.emit({ type: "month_end", index: i, time, key: monthKey(time) });
      // The last bar of the window: its own moment, after the periods it closes.
      if (next === undefined) this.emit({ type: "run_end", index: i, time });
    }
    return flags;
  }

  private nonFinite(i: number, equity: number): NonFiniteAccountError {
    const p = this.broker.portfolio;
    const held: string[] = [];
    for (let s = 0; s < p.qty.length; s++) {
      const q = p.qty[s] as number;
      if (q !== 0) held.push(`${q} ${this.data.symbols[s]} at ${p.lastPrice[s]}`);
    }
    return new NonFiniteAccountError(
      `the account's equity at bar ${i} is not a finite number (${equity}: cash ${p.cash}, positions ${held.join(", ") || "none"}); the prices or sizes are too large to value. Check the data for absurd prices, or trade smaller sizes.`,
    );
  }
}
