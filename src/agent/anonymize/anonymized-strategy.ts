import {
  type CalendarFlags,
  calendarFlagsAt,
  isoWeekKey,
  monthKey,
} from "../../engine/calendar.js";
import type { Strategy, StrategyContext } from "../../strategy/types.js";
import { AnonymizedContext } from "./anonymized-context.js";
import type { Anonymizer } from "./anonymizer.js";

/**
 * `inner` (the LLM trader) as it runs under --anonymize: each hook gets the anonymized view of the
 * context and of the fill, trade or order update it is about. Week and month ends follow the shown
 * calendar (a synthetic calendar keeps days, not weeks or months), so a weekly or monthly review
 * is asked for at the end of a shown week or month and names it; the real ones are not passed on.
 */
export function anonymizeStrategy<S>(
  inner: Strategy<S>,
  a: Anonymizer,
  realTimes: Float64Array,
): Strategy<S> {
  const shifted = realTimes.map((t) => a.time(t));
  const flags: CalendarFlags = { dayEnd: false, weekEnd: false, monthEnd: false };
  const view = (ctx: StrategyContext) => new AnonymizedContext(ctx, a);
  const out: Strategy<S> = {
    name: inner.name,
    onBar: (ctx, state) => inner.onBar(view(ctx), state),
    async onBarEnd(ctx, state) {
      const v = view(ctx);
      if (inner.onWeekEnd || inner.onMonthEnd) {
        calendarFlagsAt(shifted, ctx.index, flags);
        if (inner.onWeekEnd && flags.weekEnd) await inner.onWeekEnd(v, isoWeekKey(v.time), state);
        if (inner.onMonthEnd && flags.monthEnd) await inner.onMonthEnd(v, monthKey(v.time), state);
      }
      await inner.onBarEnd?.(v, state);
    },
  };
  if (inner.description !== undefined) out.description = a.text(inner.description);
  if (inner.params !== undefined) out.params = inner.params;
  if (inner.init) {
    const init = inner.init.bind(inner);
    out.init = (ctx) => init(view(ctx));
  }
  const { onFill, onTradeClosed, onOrderUpdate, onDayEnd, onRunEnd } = inner;
  if (onFill)
    out.onFill = (ctx, fill, s) => {
      const v = view(ctx);
      return onFill(v, v.mapFill(fill), s);
    };
  if (onTradeClosed)
    out.onTradeClosed = (ctx, t, s) => {
      const v = view(ctx);
      return onTradeClosed(v, v.mapTrade(t), s);
    };
  if (onOrderUpdate)
    out.onOrderUpdate = (ctx, u, s) => {
      const v = view(ctx);
      return onOrderUpdate(v, v.mapUpdate(u), s);
    };
  if (onDayEnd) out.onDayEnd = (ctx, day, s) => onDayEnd(view(ctx), a.text(day), s);
  if (onRunEnd) out.onRunEnd = (ctx, s) => onRunEnd(view(ctx), s);
  return out;
}
