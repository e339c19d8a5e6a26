import { describe, expect, it } from "vitest";
import { z } from "zod";
import { INDICATOR_NAMES, INDICATORS } from "../../src/indicators/catalogue.js";
import { computeIndicator } from "../../src/indicators/compute-indicator.js";
import { randomWalk } from "./make-series.js";

describe("INDICATORS catalogue", () => {
  const series = randomWalk(300);

  it.each(INDICATOR_NAMES)(
    "%s returns its declared outputs, full length, defined from `warmup` on",
    (name) => {
      const result = computeIndicator(series, name);
      expect(Object.keys(result.outputs)).toEqual(INDICATORS[name].outputs);
      for (const values of Object.values(result.outputs)) {
        expect(values.length).toBe(300);
        const firstDefined = values.findIndex((v) => !Number.isNaN(v));
        // at least one output starts exactly at warmup; none is NaN after it
        expect(firstDefined).toBeLessThanOrEqual(result.warmup);
        expect(values.slice(result.warmup).every((v) => Number.isFinite(v))).toBe(true);
      }
      const starts = Object.values(result.outputs).map((v) => v.findIndex((x) => !Number.isNaN(x)));
      expect(Math.max(...starts)).toBe(result.warmup);
    },
  );

  it("documents the default params that computeIndicator fills in", () => {
    expect(computeIndicator(series, "macd").params).toEqual({ fast: 12, signal: 9, slow: 26 });
    expect(computeIndicator(series, "bbands").params).toEqual({ period: 20, stddev: 2 });
    expect(computeIndicator(series, "rsi").params).toEqual({ period: 14 });
    expect(computeIndicator(series, "atr").params).toEqual({ period: 14 });
    expect(computeIndicator(series, "roc").params).toEqual({ period: 10 });
    expect(computeIndicator(series, "sma").params).toEqual({ period: 20 });
  });

  it("exposes params schemas that convert to JSON Schema for the LLM tool", () => {
    const schema = z.toJSONSchema(INDICATORS.bbands.params, { io: "input" });
    expect(schema).toMatchObject({
      type: "object",
      properties: {
        period: { type: "integer", default: 20 },
        stddev: { type: "number", default: 2 },
      },
      additionalProperties: false,
    });
  });
});
