import { describe, expect, it } from "vitest";
import { countTokens, queryTokens, tokens } from "../../../src/memory/recall/tokenize.js";

describe("tokenize", () => {
  it("cuts CJK runs into single characters and adjacent pairs", () => {
    expect(tokens("最终止损")).toEqual(["最", "最终", "终", "终止", "止", "止损", "损"]);
    expect(queryTokens("止损")).toEqual(["止", "止损", "损"]);
  });

  it("folds case and full-width forms, strips plurals but not -ss/-is words", () => {
    expect(tokens("Stops LOSSES Ｇａｐs analysis loss entries")).toEqual([
      "stop",
      "loss",
      "gap",
      "analysis",
      "loss",
      "entry",
    ]);
  });

  it("splits mixed text at script changes and drops stop words from queries only", () => {
    expect(tokens("RSI=25买入AAPL")).toEqual(["rsi", "25", "买", "买入", "入", "aapl"]);
    expect(tokens("the stop")).toEqual(["the", "stop"]);
    expect(queryTokens("the stop of the day")).toEqual(["stop", "day"]);
  });

  it("counts words plus CJK characters", () => {
    expect(countTokens("Stop loss hit 止损出局")).toBe(7);
    expect(countTokens("")).toBe(0);
  });
});
