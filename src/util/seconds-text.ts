/** `ms` as seconds to one decimal, grouped the en-US way and without a trailing ".0" ("1,234.5"). */
export function secondsText(ms: number): string {
  return Number((ms / 1000).toFixed(1)).toLocaleString("en-US");
}
