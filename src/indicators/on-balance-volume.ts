/** On-balance volume: starts at 0 on the first bar, then adds the bar's volume on an up close,
 * subtracts it on a down close and carries on unchanged on a flat close. Defined from bar 0. */
export function onBalanceVolume(close: Float64Array, volume: Float64Array): Float64Array {
  const n = close.length;
  const out = new Float64Array(n);
  for (let i = 1; i < n; i++) {
    const change = close[i]! - close[i - 1]!;
    const step = change > 0 ? volume[i]! : change < 0 ? -volume[i]! : 0;
    out[i] = out[i - 1]! + step;
  }
  return out;
}
