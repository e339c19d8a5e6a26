/**
 * The standard normal distribution: density, CDF and inverse CDF, in plain double precision.
 *
 * Accuracy (checked against 30-digit mpmath values in test/metrics/overfitting/normal.test.ts):
 * - normalCdf: absolute error below 1e-16 everywhere; relative error below 1e-13 in either tail
 *   down to 1e-300 (the small tail is computed directly, never as 1 − something).
 * - normalQuantile: relative error below 5e-15 for p in [1e-300, 1 − 1e-10]; it is refined by
 *   Halley's method on normalCdf, so it inherits normalCdf's accuracy (closer to 1, p itself
 *   carries too few digits of 1 − p).
 */

const SQRT_2PI = Math.sqrt(2 * Math.PI);

/** Below this |x| the power series is used; above it, the continued fraction of the tail. */
const SERIES_LIMIT = 3;

export function normalPdf(x: number): number {
  return Math.exp(-0.5 * x * x) / SQRT_2PI;
}

/** Φ(x), the probability that a standard normal is at most x. */
export function normalCdf(x: number): number {
  if (Number.isNaN(x)) return Number.NaN;
  if (Math.abs(x) < SERIES_LIMIT) return 0.5 + normalPdf(x) * centralSeries(x);
  const tail = upperTail(Math.abs(x));
  return x > 0 ? 1 - tail : tail;
}

/**
 * Σ x^(2k+1) / (1·3·5···(2k+1)), so that Φ(x) = 1/2 + φ(x)·Σ. Every term has the sign of x: no
 * cancellation inside the sum.
 */
function centralSeries(x: number): number {
  const x2 = x * x;
  let term = x;
  let sum = x;
  for (let k = 1; k < 200; k++) {
    term *= x2 / (2 * k + 1);
    sum += term;
    if (Math.abs(term) <= 1e-17 * Math.abs(sum)) break;
  }
  return sum;
}

/**
 * 1 − Φ(x) for x ≥ SERIES_LIMIT by Laplace's continued fraction
 * φ(x) / (x + 1/(x + 2/(x + 3/(x + …)))), evaluated by the modified Lentz method.
 */
function upperTail(x: number): number {
  if (x > 40) return 0; // below the smallest double
  const tiny = 1e-300;
  let f = x;
  let c = x;
  let d = 0;
  for (let i = 1; i < 500; i++) {
    d = x + i * d;
    d = Math.abs(d) < tiny ? 1 / tiny : 1 / d;
    c = x + i / c;
    if (Math.abs(c) < tiny) c = tiny;
    const delta = c * d;
    f *= delta;
    if (Math.abs(delta - 1) < 1e-16) break;
  }
  return normalPdf(x) / f;
}

/**
 * Φ⁻¹(p): the x with Φ(x) = p. −Infinity at 0, +Infinity at 1, NaN outside [0, 1]. The lower tail
 * q = min(p, 1 − p) is solved (1 − p is exact for p ≥ 1/2), then mirrored.
 */
export function normalQuantile(p: number): number {
  if (!(p >= 0 && p <= 1)) return Number.NaN;
  if (p === 0) return Number.NEGATIVE_INFINITY;
  if (p === 1) return Number.POSITIVE_INFINITY;
  if (p === 0.5) return 0;
  const q = p < 0.5 ? p : 1 - p;
  const x = lowerQuantile(q);
  return p < 0.5 ? x : -x;
}

/** Φ⁻¹(q) for 0 < q ≤ 1/2: a rational first guess, then Halley's method on Φ. */
function lowerQuantile(q: number): number {
  // Abramowitz & Stegun 26.2.23 (error below 4.5e-4): close enough for Halley to converge fast.
  const t = Math.sqrt(-2 * Math.log(q));
  let x =
    -t +
    (2.515517 + 0.802853 * t + 0.010328 * t * t) /
      (1 + 1.432788 * t + 0.189269 * t * t + 0.001308 * t * t * t);
  for (let i = 0; i < 20; i++) {
    const density = normalPdf(x);
    if (density === 0) break;
    const e = (normalCdf(x) - q) / density;
    // Halley: f = Φ − q, f' = φ, f'' = −xφ.
    const step = e / (1 + (x * e) / 2);
    x -= step;
    if (Math.abs(step) <= 1e-15 * Math.max(1, Math.abs(x))) break;
  }
  return x;
}
