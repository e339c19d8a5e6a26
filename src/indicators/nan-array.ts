/** Every output starts as NaN so that bars before an indicator is defined can never be mistaken
 * for a real value (0 would be a plausible RSI or ROC). */
export function nanArray(length: number): Float64Array {
  return new Float64Array(length).fill(Number.NaN);
}
