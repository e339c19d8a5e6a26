/** The strategy hook behind each kind of decisions.jsonl line other than `bar` (onBar). */
export const HOOK_NAMES: Record<string, string> = {
  order_update: "onOrderUpdate",
  fill: "onFill",
  trade_closed: "onTradeClosed",
  day_end: "onDayEnd",
  week_end: "onWeekEnd",
  month_end: "onMonthEnd",
  run_end: "onRunEnd",
  bar_end: "onBarEnd",
};
