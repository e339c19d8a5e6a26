// One tokenizer for the index and for queries, so both sides of a match are cut the same way.
// SQLite's unicode61 tokenizer only sees our space-separated output: it cannot segment Chinese,
// so CJK runs are turned into single characters plus adjacent pairs here (a two-character word
// such as 止损 is then one bigram token on both sides).

const CJK = "\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Hangul}";
const RUN = new RegExp(`[${CJK}]+|(?:(?![${CJK}])[\\p{L}\\p{N}\\p{M}])+`, "gu");
const CJK_CHAR = new RegExp(`^[${CJK}]`, "u");
const CJK_ONLY = new RegExp(`^[${CJK}]+$`, "u");
const CJK_GLOBAL = new RegExp(`[${CJK}]`, "gu");
const WORD = /[\p{L}\p{N}]+/gu;

/** Words too common to say anything about a query; they are dropped from queries only. */
const STOPWORDS = new Set(
  (
    "a an the and or of to in on at by for is was were are be been with what when how did does " +
    "do that this from into has have had not but you its it as if then than so i we my our me"
  ).split(" "),
);

/** Full-width forms, case and compatibility characters must not hide a match. */
export function fold(text: string): string {
  return text.normalize("NFKC").toLowerCase();
}

/**
 * Light English normalisation: plural endings are stripped so "stops" finds "stop" and
 * "losses" finds "loss". Words ending in -ss, -us, -is are left alone ("loss", "analysis").
 */
function stem(word: string): string {
  if (word.length <= 3 || !/^[a-z]+$/.test(word)) return word;
  if (word.endsWith("ies") && word.length > 4) return `${word.slice(0, -3)}y`;
  if (word.endsWith("sses")) return word.slice(0, -2);
  if (word.endsWith("s") && !/(ss|us|is)$/.test(word)) return word.slice(0, -1);
  return word;
}

/** Whether a token is Chinese, Japanese or Korean text (characters or a bigram). */
export function isCjk(token: string): boolean {
  return CJK_ONLY.test(token);
}

/** Tokens of a text in order: words (folded, stemmed), CJK characters and CJK bigrams. */
export function tokens(text: string): string[] {
  const out: string[] = [];
  for (const run of fold(text).match(RUN) ?? []) {
    if (CJK_CHAR.test(run)) {
      const chars = [...run];
      chars.forEach((ch, i) => {
        out.push(ch);
        const next = chars[i + 1];
        if (next !== undefined) out.push(ch + next);
      });
    } else {
      for (const word of run.match(WORD) ?? []) out.push(stem(word));
    }
  }
  return out;
}

/** The distinct tokens of a query, stop words removed (in first-seen order). */
export function queryTokens(query: string): string[] {
  return [...new Set(tokens(query).filter((t) => !STOPWORDS.has(t)))];
}

/** A cheap token count for chunk sizing: words plus CJK characters (no model tokenizer). */
export function countTokens(text: string): number {
  const cjk = text.match(CJK_GLOBAL)?.length ?? 0;
  const words = text.replace(CJK_GLOBAL, " ").match(WORD)?.length ?? 0;
  return cjk + words;
}
