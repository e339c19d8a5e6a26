import type { MomentKind } from "../config/run-settings.js";
// Every text the framework says to the model lives here, in English (a strategy prompt may be in
// any language). Changing any of it changes request hashes, so cached runs and replays of older
// runs will (correctly) report a divergence. A memory system brings its own rules and tool lines.

import { FILES_RULES } from "../memory/systems/files-system.js";
import { FILES_TOOL_GUIDE } from "../memory/systems/files-tools.js";

const RULES_HEAD = `You are a trader being evaluated in a historical backtest. You trade through tools against a simulated broker, one decision at a time, at the close of each bar.

Rules of the simulation:
- You only ever see data up to the current bar. Do not assume or invent later prices.
- Orders you place now can fill from the next bar: market orders at the next bar's open, limit and stop orders when the price reaches them. Costs (commission, slippage) are charged on every fill.`;

const RULES_TAIL =
  "- When you have decided, reply with a short rationale (one to three sentences) and no further tool calls. Doing nothing is a valid decision: say why.";

/** The system rules with a memory system's own bullets (`MemorySystem.rules`) in the middle. */
export function systemRules(memoryRules: string): string {
  return `${RULES_HEAD}\n${memoryRules}\n${RULES_TAIL}`;
}

export const SYSTEM_RULES = systemRules(FILES_RULES);

const MARKET_TOOL_GUIDE = `Tools:
- get_bars(symbol, n): the last n bars of a symbol, up to the current bar.
- get_indicator(name, symbol, params, n): the last n values of an indicator (sma, ema, wma, rsi, macd, bbands, atr, roc, highest, lowest, obv, stoch, adx, cci, willr).
- get_account(): cash, equity, positions.
- place_order(...): market, limit or stop; size by quantity, fraction_of_equity or target_weight; optional stop_loss / take_profit bracket; time_in_force gtc, day or a number of bars.
- cancel_order(order_id), list_orders(): manage working orders.`;

/** The tool guide with a memory system's tool lines (`MemoryToolSpec.guide`) at the end. */
export function toolGuide(memoryGuide: readonly string[]): string {
  return [MARKET_TOOL_GUIDE, ...memoryGuide].join("\n");
}

export const TOOL_GUIDE = toolGuide(FILES_TOOL_GUIDE);

/** Memory moments (docs/llm-traders.md): the framework prompts, the agent writes. */
export const MOMENT_PROMPTS = {
  fill: "An order of yours filled (see the events above). Update the note position_<SYMBOL> for that symbol with memory_note: what you hold, at what average price, why you entered, and your exit plan (target, stop, invalidation).",
  close:
    'A position closed (see the events above). Record the outcome with memory_log: entry, exit, profit or loss and whether the original thesis played out. If it taught you something general, add one short lesson with memory_note key "playbook". Update or clear the position note.',
  eod: 'The trading day has ended. Write a brief review of the day with memory_log: what you did, what the market did, and what you are watching next. If you learned a lesson worth keeping, add it with memory_note key "playbook".',
  week: "The week has ended. Write this week's review with memory_note key \"week_{WEEK}\": performance, trades, what worked, what did not, and what to change. Use memory_recall to look back at this week's journal if you need to.",
  month:
    'The month has ended. Write this month\'s review with memory_note key "month_{MONTH}": return, drawdown, trades, recurring mistakes, and the lessons that should shape next month. Use memory_recall to consult your weekly reviews.',
  run_end:
    'The backtest ends at this bar: this is your last memory moment. Write a final review with memory_log: overall result, what worked, what did not. Then add the lessons worth carrying into the next run with memory_note key "playbook" (one short lesson per call).',
} as const satisfies Record<MomentKind, string>;

export type { MomentKind };

export const MOMENT_PREAMBLE =
  "This is a memory moment, not a trading decision: only the memory tools are available. Write what is asked, briefly and concretely, then reply with one sentence saying what you wrote.";

export const DECISION_REQUEST =
  "Decide what to do at this bar. Use the tools to inspect data, manage orders and keep your memory, then reply with your rationale.";
