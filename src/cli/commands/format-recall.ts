import { isCjk, queryTokens } from "../../memory/recall/tokenize.js";
import type { RecallOutput } from "../../rundir/schemas.js";

const BOLD = "\u001b[1m";
const RESET = "\u001b[22m";

/**
 * `recall <run> "<query>"` as plain text: one block per citation, `path:start-end  score` and the
 * snippet indented below it; query terms in bold when `color` (a terminal that wants colour).
 */
export function formatRecall(r: RecallOutput, color: boolean): string {
  const scope = r.asOf === null ? "all memory, no decay" : `as of ${r.asOf}, as the agent saw it`;
  const head = `Run ${r.run.id}: "${r.query}" (${r.mode}, ${scope})`;
  if (r.citations.length === 0) {
    return `${head}\nNo matches in the run's memory (${r.index.files} files indexed).`;
  }
  const mark = color ? highlighter(r.query) : (s: string) => s;
  const blocks = r.citations.map((c) =>
    [
      `${c.path}:${c.startLine}-${c.endLine}  ${c.score.toFixed(3)}`,
      ...c.snippet.split("\n").map((line) => `    ${mark(line)}`),
    ].join("\n"),
  );
  return [head, "", blocks.join("\n\n")].join("\n");
}

/**
 * Bolds what the query matched: its words (a stemmed word also marks its longer forms, so "stop"
 * marks "stops") and, in Chinese or Japanese, its two-character words rather than every
 * single character.
 */
export function highlighter(query: string): (text: string) => string {
  const tokens = queryTokens(query);
  const pairs = tokens.filter((t) => isCjk(t) && [...t].length === 2);
  const terms = tokens.filter(
    (t) => !isCjk(t) || [...t].length === 2 || !pairs.some((p) => p.includes(t)),
  );
  if (terms.length === 0) return (s) => s;
  const parts = terms
    .sort((a, b) => b.length - a.length)
    .map((t) =>
      isCjk(t) ? escapeRegExp(t) : `(?<![\\p{L}\\p{N}])${escapeRegExp(t)}[\\p{L}\\p{N}]*`,
    );
  const re = new RegExp(parts.join("|"), "giu");
  return (text) => {
    // Matches may overlap (CJK pairs share characters): each search restarts one character after
    // the last match's start, and overlapping matches merge into one range.
    const ranges: [number, number][] = [];
    re.lastIndex = 0;
    for (let m = re.exec(text); m !== null; m = re.exec(text)) {
      const start = m.index;
      const end = start + m[0].length;
      const last = ranges.at(-1);
      if (last && start <= last[1]) last[1] = Math.max(last[1], end);
      else ranges.push([start, end]);
      re.lastIndex = start + 1;
    }
    let out = "";
    let at = 0;
    for (const [start, end] of ranges) {
      out += `${text.slice(at, start)}${BOLD}${text.slice(start, end)}${RESET}`;
      at = end;
    }
    return out + text.slice(at);
  };
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Colour only for a terminal, and never when NO_COLOR is set (https://no-color.org). */
export function wantsColor(
  stream: { isTTY?: boolean },
  env: Readonly<Record<string, string | undefined>>,
): boolean {
  return stream.isTTY === true && (env.NO_COLOR === undefined || env.NO_COLOR === "");
}
