/**
 * BM25 in the lower-is-better form FTS5's bm25() reports (negative for matches) becomes a recall
 * score in (0, 1): with r = -bm25 the score is r / (1 + r), strictly increasing in r, 0.5 at
 * r = 1, approaching but never reaching 1, so distinct BM25 scores stay distinct (nothing is
 * clamped). Each term's IDF is floored at 1e-6, so a match always has r > 0 and a score above 0.
 */
export function bm25ToScore(bm25: number): number {
  const r = Math.max(0, -bm25);
  return r / (1 + r);
}
