/** How many of the run's latest memory writes the auto-recall query reads. */
export const QUERY_NOTES = 3;

/** What a decision is about, for auto-recall: not the whole message. */
export interface Situation {
  /** The run's symbols. */
  symbols: readonly string[];
  /** Symbols with an open position. */
  held: readonly string[];
  /** Memory shown with the decision (files: the position notes of held symbols). */
  shown: readonly string[];
  /** The run's latest memory writes (journal, notes, saves), newest last. */
  notes: readonly string[];
}

/**
 * Auto-recall's query: the symbols, the positions held, the memory shown and the last notes.
 * The decision message itself made a poor query: its bar table and account lines put the year
 * and the same template words in every query, so every entry matched alike and the newest won.
 * Numbers and dates are left out for the same reason: a year matches any entry of that year.
 */
export function situationQuery(s: Situation): string {
  const parts = [
    ...s.symbols,
    ...s.held.map((symbol) => `position ${symbol}`),
    ...s.shown,
    ...s.notes.slice(-QUERY_NOTES),
  ];
  return parts
    .join("\n")
    .replace(/[0-9][0-9.,:/%-]*/g, " ")
    .replace(/[ \t]+/g, " ")
    .trim();
}
