/**
 * The account holds a number that is not finite (NaN or ±Infinity): every figure after it would be
 * meaningless, so the simulation stops instead of reporting it. The runner turns this into a run
 * with status `failed`.
 */
export class NonFiniteAccountError extends Error {
  override readonly name = "NonFiniteAccountError";
}
