/** The middle value (the upper of the two middle ones for an even count): the benches' figure for
 * a series of runs on a shared machine. */
export function median(values: readonly number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
}
