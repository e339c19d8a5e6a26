import { isCjk, queryTokens, tokens } from "../recall/tokenize.js";

/** A match in the title or description counts twice a match in the body (Vibe-Trading's weight). */
export const METADATA_WEIGHT = 2.0;

/**
 * The searchable tokens of a text, as Vibe-Trading cuts them but with the project's tokenizer:
 * words of three or more characters (folded and plural-stemmed; "_" separates words, so
 * `stop_loss_rule` is found by "stop loss"), and every CJK character and adjacent pair.
 */
export function tokenSet(text: string): Set<string> {
  return new Set(tokens(text).filter(keep));
}

/** A query's tokens: as tokenSet, without the stop words the recall drops from queries. */
export function queryTokenSet(query: string): Set<string> {
  return new Set(queryTokens(query).filter(keep));
}

const keep = (t: string) => isCjk(t) || [...t].length >= 3;
