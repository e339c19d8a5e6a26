/**
 * A metric is either a number or the plain-English reason it cannot be computed. Carrying the
 * reason with the value (instead of NaN) lets every null in result.json explain itself.
 */
export interface Undefined {
  readonly reason: string;
}

export type Computed = number | Undefined;

export function because(reason: string): Undefined {
  return { reason };
}

/** Collects finished values and the reasons for the nulls. */
export class MetricsRecorder {
  readonly nullReasons: Record<string, string> = {};

  /**
   * Turns a computed value into `number | null`. Non-finite numbers are caught here as a last line
   * of defence, so no Infinity or NaN can reach JSON even if a formula overflows.
   */
  take(field: string, value: Computed): number | null {
    if (typeof value === "number") {
      if (Number.isFinite(value)) return value === 0 ? 0 : value;
      this.nullReasons[field] = "the result is not a finite number (numeric overflow)";
      return null;
    }
    this.nullReasons[field] = value.reason;
    return null;
  }
}
