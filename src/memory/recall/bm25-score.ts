/**
 * FTS5's bm25() is lower-is-better and unbounded (negative for matches). Recall scores are in
 * (0, 1], so with r = -bm25 the score is r / (1 + r): strictly increasing in r, 0.5 at r = 1,
 * approaching but never reaching 1, so distinct BM25 scores stay distinct (nothing is clamped).
 * FTS5 floors each term's IDF at 1e-6, so a match always has r > 0 and a score above 0.
 */
export function bm25ToScore(bm25: number): number {
  const r = Math.max(0, -bm25);
  return r / (1 + r);
}
