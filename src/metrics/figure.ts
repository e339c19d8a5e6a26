/**
 * A statistic of a sweep or an experiment: a finite number, or null with the plain-English reason
 * it means nothing (too few trials or values, zero variance…). Shaped for JSON: `{ value, reason }`
 * both present, so no NaN or Infinity ever reaches a file.
 */
export type Figure = { value: number; reason: null } | { value: null; reason: string };

/** A computed value; a non-finite one becomes null with its reason. −0 is written as 0. */
export function figure(value: number): Figure {
  if (Number.isFinite(value)) return { value: value === 0 ? 0 : value, reason: null };
  return { value: null, reason: "the result is not a finite number (numeric overflow)" };
}

export function noFigure(reason: string): Figure {
  return { value: null, reason };
}
