import { tokens } from "./tokenize.js";

export const MAX_SNIPPET_CHARS = 300;

/**
 * At most MAX_SNIPPET_CHARS of the chunk around its best line (the one sharing most query
 * tokens), widened with neighbouring lines while they fit; a single long line is cut around its
 * first match. Short chunks are returned whole.
 */
export function snippet(text: string, queryTokenList: readonly string[]): string {
  const whole = text.trim();
  if (whole.length <= MAX_SNIPPET_CHARS) return whole;
  const lines = text.split("\n");
  const wanted = new Set(queryTokenList);
  let best = 0;
  let bestHits = -1;
  lines.forEach((line, i) => {
    const hits = new Set(tokens(line).filter((t) => wanted.has(t))).size;
    if (hits > bestHits) {
      best = i;
      bestHits = hits;
    }
  });
  const line = lines[best]!;
  if (line.length > MAX_SNIPPET_CHARS) return cutAround(line, queryTokenList);
  let from = best;
  let to = best;
  let size = line.length;
  for (let grew = true; grew; ) {
    grew = false;
    const after = lines[to + 1];
    if (after !== undefined && size + 1 + after.length <= MAX_SNIPPET_CHARS) {
      to++;
      size += 1 + after.length;
      grew = true;
    }
    const before = lines[from - 1];
    if (before !== undefined && size + 1 + before.length <= MAX_SNIPPET_CHARS) {
      from--;
      size += 1 + before.length;
      grew = true;
    }
  }
  return lines
    .slice(from, to + 1)
    .join("\n")
    .trim();
}

/** A window of one long line starting a little before the first query token found in it. */
function cutAround(line: string, queryTokenList: readonly string[]): string {
  const lower = line.toLowerCase();
  let pos = -1;
  for (const t of queryTokenList) {
    const at = lower.indexOf(t);
    if (at !== -1 && (pos === -1 || at < pos)) pos = at;
  }
  const start = Math.max(0, Math.min(pos - 80, line.length - (MAX_SNIPPET_CHARS - 1)));
  const prefix = start > 0 ? "…" : "";
  const room = MAX_SNIPPET_CHARS - prefix.length - 1;
  const body = line.slice(start, start + room);
  const suffix = start + room < line.length ? "…" : line.slice(start + room, start + room + 1);
  return `${prefix}${body}${suffix}`;
}
