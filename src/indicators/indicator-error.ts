/** A request for an indicator that cannot be served: unknown name, bad params or a misused cache.
 * The message is shown to users and to the model as a tool error, so it always says what is valid. */
export class IndicatorError extends Error {
  override readonly name = "IndicatorError";
}
