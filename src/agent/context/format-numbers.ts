/** Money with two decimals and thousands separators off (models read plain numbers best). */
export const money = (x: number): string => x.toFixed(2);

/** A price as short as it can be without losing what the data holds (at most 6 decimals). */
export const price = (x: number): string => String(Number(x.toFixed(6)));

export const pct = (fraction: number): string => `${(fraction * 100).toFixed(2)}%`;
