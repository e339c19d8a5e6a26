import { describe, expect, it } from "vitest";
import {
  DEFAULT_BASE_URL,
  LlmSettingsError,
  missingKeyWarning,
  NO_API_KEY,
  normaliseBaseUrl,
  resolveLlmSettings,
} from "../../../src/agent/llm/llm-settings.js";

describe("normaliseBaseUrl (the cache's idea of one server)", () => {
  it.each([
    ["HTTP://LocalHost:11434/v1/", "http://localhost:11434/v1"],
    ["http://example.com:80/v1", "http://example.com/v1"],
    ["https://API.OpenAI.com:443/v1//", "https://api.openai.com/v1"],
    ["https://user:pw@host.example/v1", "https://host.example/v1"],
    ["http://host:8000/V1", "http://host:8000/V1"],
    ["http://host:8000", "http://host:8000"],
  ])("%s → %s", (raw, normal) => {
    expect(normaliseBaseUrl(raw)).toBe(normal);
  });
});

describe("resolveLlmSettings", () => {
  it("takes flags over the environment", () => {
    const env = { OPENAI_API_KEY: "env-key", OPENAI_BASE_URL: "http://env:1/v1" };
    expect(
      resolveLlmSettings({ apiKey: "flag-key", baseURL: "http://flag:2/v1/", model: "m" }, env),
    ).toEqual({
      model: "m",
      baseURL: "http://flag:2/v1",
      apiKey: "flag-key",
      apiKeySource: "flag",
    });
    expect(resolveLlmSettings({}, env)).toMatchObject({
      baseURL: "http://env:1/v1",
      apiKey: "env-key",
      apiKeySource: "env",
    });
  });

  it("defaults to OpenAI and a placeholder key (local servers need none); empty means unset", () => {
    expect(resolveLlmSettings({}, { OPENAI_API_KEY: "", OPENAI_BASE_URL: " " })).toEqual({
      model: undefined,
      baseURL: DEFAULT_BASE_URL,
      apiKey: NO_API_KEY,
      apiKeySource: "none",
    });
  });

  it("rejects a base URL that is not http(s), saying how to fix it", () => {
    expect(() => resolveLlmSettings({ baseURL: "localhost:11434" }, {})).toThrow(LlmSettingsError);
    expect(() => resolveLlmSettings({ baseURL: "nonsense" }, {})).toThrow(/--base-url/);
  });

  it("warns at the start of a run that will ask OpenAI with no key, and only then", () => {
    const none = resolveLlmSettings({}, {});
    expect(missingKeyWarning(none, false)).toMatch(
      /^No API key: OPENAI_API_KEY is not set, and api\.openai\.com refuses every request/,
    );
    // A replay asks no server; a key from the environment; a local server may need none.
    expect(missingKeyWarning(none, true)).toBeNull();
    expect(missingKeyWarning(resolveLlmSettings({}, { OPENAI_API_KEY: "k" }), false)).toBeNull();
    expect(
      missingKeyWarning(resolveLlmSettings({ baseURL: "http://127.0.0.1:11434/v1" }, {}), false),
    ).toBeNull();
  });
});
