/** Dollars as every output shows them: `$0.0123`, or "unknown" when a price is unknown (a model
 * missing from the price table), never `$0.0000` for it. */
export const usdText = (v: number | null): string => (v === null ? "unknown" : `$${v.toFixed(4)}`);
