import { describe, expect, it } from "vitest";
import { parseFactors } from "../../../src/memory/layered/layered-model.js";

describe("the model's importance factors are checked", () => {
  it("reads one JSON object of five numbers in [0, 1], in a code fence or not", () => {
    const x = { marketImpact: 0.1234567, novelty: 1, relevance: 0, source: 0.6, urgency: 0.2 };
    expect(parseFactors(`\`\`\`json\n${JSON.stringify(x)}\n\`\`\``)).toEqual({
      ...x,
      marketImpact: 0.123457,
    });
    expect(parseFactors(JSON.stringify({ ...x, urgency: 1.5 }))).toBeNull();
    expect(parseFactors(JSON.stringify({ ...x, novelty: undefined }))).toBeNull();
    expect(parseFactors("high importance")).toBeNull();
    expect(parseFactors("{not json}")).toBeNull();
  });
});
