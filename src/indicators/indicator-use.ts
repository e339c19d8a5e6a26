/** An indicator a strategy created through `ctx.indicator`, as indicators.json records it: the
 * report recomputes it from the run's prices and draws it on the symbol's chart. */
export interface IndicatorUse {
  symbol: string;
  /** The catalogue's name and the resolved parameters (defaults filled in). */
  name: string;
  params: Record<string, number>;
  /** The output the view reads ("value" for one-line indicators). */
  output: string;
}
