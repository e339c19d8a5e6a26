import { describe, expect, it } from "vitest";
import { INDICATOR_NAMES } from "../../src/indicators/catalogue.js";
import { computeIndicator } from "../../src/indicators/compute-indicator.js";
import { prefix, randomWalk } from "./make-series.js";

// Small periods so that every indicator is defined well inside the shortest interesting prefix.
const small: Record<string, Record<string, number>> = {
  macd: { fast: 3, slow: 7, signal: 4 },
  stoch: { period: 5, signal: 3 },
  obv: {},
};

describe("causality: a value at bar i depends only on bars 0..i", () => {
  const full = randomWalk(400, 7);

  for (const name of INDICATOR_NAMES) {
    for (const params of [small[name] ?? { period: 5 }, {}]) {
      it(`${name} ${JSON.stringify(params)} on every prefix equals the full computation`, () => {
        const whole = computeIndicator(full, name, params);
        for (const k of [1, 2, 6, 13, 37, 150, 399]) {
          const part = computeIndicator(prefix(full, k), name, params);
          for (const [key, values] of Object.entries(whole.outputs)) {
            expect(Array.from(part.outputs[key] ?? [])).toEqual(Array.from(values.slice(0, k)));
          }
        }
      });
    }
  }
});
