/** The strategy hook behind each kind of decisions.jsonl line. */
export const HOOK_NAMES: Record<string, string> = {
  bar: "onBar",
  order_update: "onOrderUpdate",
  fill: "onFill",
  trade_closed: "onTradeClosed",
  day_end: "onDayEnd",
  week_end: "onWeekEnd",
  month_end: "onMonthEnd",
  run_end: "onRunEnd",
  bar_end: "onBarEnd",
};
