import { describe, expect, it } from "vitest";
import { keyWords } from "../../src/util/key-words.js";

describe("keyWords", () => {
  it("splits camelCase keys into lower-case words, acronyms kept whole", () => {
    expect(keyWords("journalFiles")).toBe("journal files");
    expect(keyWords("dayEnds")).toBe("day ends");
    expect(keyWords("bytes")).toBe("bytes");
    expect(keyWords("maxLLMCalls")).toBe("max llm calls");
    expect(keyWords("top10Notes")).toBe("top10 notes");
  });
});
