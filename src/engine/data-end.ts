import type { MarketData } from "./types.js";

/** Per symbol, the master index of its last bar (-1 for a symbol without bars). A symbol whose
 * last bar is before the timeline's last bar has data that ends early. */
export function lastBarIndices(data: MarketData): Int32Array {
  const out = new Int32Array(data.symbols.length).fill(-1);
  for (let s = 0; s < out.length; s++) {
    const map = data.barIndex[s] as Int32Array;
    for (let i = map.length - 1; i >= 0; i--) {
      if ((map[i] as number) >= 0) {
        out[s] = i;
        break;
      }
    }
  }
  return out;
}

/** Symbols whose data ends before the timeline's last bar, as [master index of the last bar,
 * symbol] pairs in time order (ties in symbol order), so a loop can walk them with a cursor. */
export function earlyEnds(data: MarketData, last: Int32Array): [index: number, sym: number][] {
  const end = data.times.length - 1;
  const out: [number, number][] = [];
  for (let s = 0; s < last.length; s++) {
    const i = last[s] as number;
    if (i < end) out.push([i, s]);
  }
  return out.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
}
