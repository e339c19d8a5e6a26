/** Lower case without `_`, `-` or spaces, so `stop_loss`, `stop-loss` and `stopLoss` meet. */
const normalise = (name: string): string => name.toLowerCase().replace(/[\s_-]/g, "");

/** Edit distance (insertions, deletions, substitutions, adjacent swaps). */
function distance(a: string, b: string): number {
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    const row = new Array<number>(b.length + 1).fill(0);
    row[0] = i;
    rows.push(row);
  }
  const first = rows[0] as number[];
  for (let j = 0; j <= b.length; j++) first[j] = j;
  for (let i = 1; i <= a.length; i++) {
    const row = rows[i] as number[];
    const prev = rows[i - 1] as number[];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(
        (prev[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (prev[j - 1] as number) + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d = Math.min(d, ((rows[i - 2] as number[])[j - 2] as number) + 1);
      row[j] = d;
    }
  }
  return (rows[a.length] as number[])[b.length] as number;
}

/**
 * The valid name a mistyped one most likely meant, or null when none is close. `aliases` maps
 * other spellings people use (other libraries' names, snake_case) to a valid name; otherwise the
 * nearest name by edit distance wins, if it is at most a third of the longer name away.
 */
export function didYouMean(
  input: string,
  valid: readonly string[],
  aliases: Readonly<Record<string, string>> = {},
): string | null {
  const key = normalise(input);
  // A name, or an alias of one, as written (distance 0) or mistyped (`comission` for the alias
  // `commission`).
  const spellings: [spelling: string, target: string][] = [
    ...valid.map((name): [string, string] => [name, name]),
    ...Object.entries(aliases).filter(([, target]) => valid.includes(target)),
  ];
  let best: string | null = null;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const [spelling, target] of spellings) {
    const candidate = normalise(spelling);
    const d = distance(key, candidate);
    const limit = Math.max(1, Math.floor(Math.max(key.length, candidate.length) / 3));
    if (d <= limit && d < bestDistance) {
      best = target;
      bestDistance = d;
    }
  }
  return best;
}

/** The first key of `value` not in `valid`, with the valid name it probably meant (or null). */
export function firstUnknownKey(
  value: object,
  valid: readonly string[],
  aliases: Readonly<Record<string, string>> = {},
): { key: string; guess: string | null } | null {
  for (const key of Object.keys(value)) {
    if (!valid.includes(key)) return { key, guess: didYouMean(key, valid, aliases) };
  }
  return null;
}

/** `: did you mean "x"?` or `.`, the tail of an unknown-name message. */
export const guessTail = (guess: string | null): string =>
  guess ? `: did you mean ${JSON.stringify(guess)}?` : ".";
