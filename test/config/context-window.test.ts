import { describe, expect, it } from "vitest";
import { buildRunConfig, type RunCommandOptions } from "../../src/cli/run-command.js";
import {
  contextWindowOf,
  MODEL_CONTEXT_WINDOWS,
  tokenPercentRule,
} from "../../src/config/context-window.js";

describe("context window", () => {
  it("the flag wins; else the table, by name, provider prefix or dated snapshot", () => {
    expect(contextWindowOf("gpt-4o-mini", 8000)).toEqual({
      tokens: 8000,
      source: "--context-window",
    });
    expect(contextWindowOf("gpt-4o-mini", null)).toEqual({
      tokens: 128_000,
      source: "model table",
    });
    expect(contextWindowOf("openai/GPT-4o-2024-08-06", null).tokens).toBe(
      MODEL_CONTEXT_WINDOWS["gpt-4o"],
    );
    expect(contextWindowOf("gpt-4.1-mini-2025-04-14", null).tokens).toBe(1_047_576);
    expect(contextWindowOf("gpt-4-0613", null).tokens).toBe(8_192);
  });

  it("an unknown model has none: never guessed from a similar name", () => {
    expect(contextWindowOf("qwen2.5:7b", null)).toEqual({ tokens: null, source: null });
    expect(contextWindowOf("gpt-4o-audio-preview", null).tokens).toBeNull();
    expect(contextWindowOf("my-gpt-4o", null).tokens).toBeNull();
  });

  it("the rule in words: 75% of 128000 is 96000 tokens; unknown: not applicable", () => {
    expect(tokenPercentRule(contextWindowOf("gpt-4o", null), 75, "gpt-4o")).toContain(
      "at 96000 estimated tokens (75% of 128000, from the model table)",
    );
    expect(tokenPercentRule(contextWindowOf("x", 1001), 50, "x")).toContain("at 500 estimated");
    expect(tokenPercentRule(contextWindowOf("x", null), 75, "x")).toBe(
      "not applicable: the context window of model x is unknown; set --context-window <tokens>",
    );
  });
});

describe("a run's recorded token-percent rule", () => {
  it("an LLM run records its window and rule; an unknown model's rule is not applicable", () => {
    const known = buildRunConfig("strategies/x.md", { data: ["d.csv"], model: "gpt-4o" });
    expect(known.memoryPolicy).toMatchObject({
      contextWindow: { tokens: 128_000, source: "model table" },
      tokenPercentRule: expect.stringContaining("at 96000 estimated tokens"),
    });
    const flagged = buildRunConfig("strategies/x.md", {
      data: ["d.csv"],
      model: "local-7b",
      contextWindow: "32000",
    } as RunCommandOptions);
    expect(flagged.memoryPolicy?.tokenPercentRule).toContain("at 24000 estimated tokens");
    const unknown = buildRunConfig("strategies/x.md", { data: ["d.csv"], model: "local-7b" });
    expect(unknown.memoryPolicy?.contextWindow).toEqual({ tokens: null, source: null });
    expect(unknown.memoryPolicy?.tokenPercentRule).toMatch(/^not applicable/);
    // A code run has no model: nothing is recorded.
    const code = buildRunConfig("strategies/x.ts", { data: ["d.csv"] });
    expect(code.memoryPolicy?.tokenPercentRule).toBeUndefined();
  });
});
