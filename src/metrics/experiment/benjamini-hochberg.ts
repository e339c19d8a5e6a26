/**
 * Benjamini–Hochberg adjusted p-values ("Controlling the False Discovery Rate", JRSS B 57(1),
 * 1995): with the m p-values sorted ascending, p̃₍ᵢ₎ = min over j ≥ i of min(1, m·p₍ⱼ₎ / j).
 * Rejecting every p̃ ≤ q keeps the expected share of false discoveries at most q. Null entries
 * (a comparison with no p-value) stay null and do not count in m. Returned in the input's order.
 */
export function benjaminiHochberg(pValues: readonly (number | null)[]): (number | null)[] {
  const present: { p: number; at: number }[] = [];
  pValues.forEach((p, at) => {
    if (p === null) return;
    if (!(p >= 0 && p <= 1)) throw new RangeError(`p-value ${p} is not between 0 and 1`);
    present.push({ p, at });
  });
  const out: (number | null)[] = pValues.map(() => null);
  const m = present.length;
  present.sort((a, b) => a.p - b.p);
  let running = 1;
  for (let i = m - 1; i >= 0; i--) {
    const { p, at } = present[i]!;
    running = Math.min(running, (m * p) / (i + 1));
    out[at] = running;
  }
  return out;
}
