import { describe, expect, it } from "vitest";
import { UsageError } from "../../src/errors/run-errors.js";
import { cutoffWarning, modelCutoff, parseModelCutoff } from "../../src/runner/model-cutoff.js";

describe("model training cut-offs", () => {
  it("finds a model by its longest prefix, after any provider prefix, case-insensitively", () => {
    expect(modelCutoff("gpt-4o-mini-2024-07-18", null)).toEqual({
      date: "2023-10-01",
      source: "table",
    });
    expect(modelCutoff("openai/gpt-4.1-mini", null)).toEqual({
      date: "2024-06-01",
      source: "table",
    });
    expect(modelCutoff("meta-llama/Llama-3.1-70B-Instruct", null)?.date).toBe("2023-12-01");
    expect(modelCutoff("qwen2.5:7b", null)?.date).toBe("2024-09-01");
    // "gpt-4" is a prefix of "gpt-4o" as text, not as a model name.
    expect(modelCutoff("gpt-4", null)?.date).toBe("2021-09-01");
    expect(modelCutoff("gpt-4o", null)?.date).toBe("2023-10-01");
    expect(modelCutoff("my-local-model", null)).toBeNull();
  });

  it("prefers --model-cutoff to the table", () => {
    expect(modelCutoff("gpt-4o", "2020-01-31")).toEqual({ date: "2020-01-31", source: "flag" });
  });

  it("warns only when the window starts on or before the cut-off", () => {
    const cutoff = { date: "2023-10-01", source: "table" } as const;
    expect(cutoffWarning("gpt-4o", cutoff, "2023-10-01")).toContain(
      "before gpt-4o's training cut-off 2023-10-01",
    );
    expect(cutoffWarning("gpt-4o", cutoff, "2023-10-02 09:30:00")).toBeNull();
    expect(cutoffWarning("gpt-4o", null, "1999-01-01")).toBeNull();
  });

  it("accepts only real calendar dates as YYYY-MM-DD", () => {
    expect(parseModelCutoff("2024-02-29")).toBe("2024-02-29");
    for (const bad of [
      "2023-02-29",
      "2023-00-10",
      "2023-10-1",
      "10/01/2023",
      "",
      "2023-10-01T00:00",
    ]) {
      expect(() => parseModelCutoff(bad), bad).toThrow(UsageError);
    }
  });
});
