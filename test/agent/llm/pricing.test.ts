import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  costUsd,
  DEFAULT_PRICE_TABLE,
  loadPriceTable,
  PriceTableError,
  priceFor,
} from "../../../src/agent/llm/pricing.js";

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "abt-prices-"));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const writePrices = (content: string): string => {
  const file = path.join(dir, "prices.json");
  fs.writeFileSync(file, content);
  return file;
};

describe("costUsd", () => {
  it("bills uncached prompt, cached prompt and completion tokens at their own rates", () => {
    const price = { input: 2, cachedInput: 0.5, output: 8 };
    // (6000 × 2 + 4000 × 0.5 + 1000 × 8) / 1e6 = (12000 + 2000 + 8000) / 1e6
    expect(costUsd(price, { prompt: 10_000, cached: 4_000, completion: 1_000 })).toBeCloseTo(
      0.022,
      12,
    );
    expect(costUsd(price, { prompt: 0, cached: 0, completion: 0 })).toBe(0);
  });

  it("prices gpt-4o-mini from the default table", () => {
    const price = priceFor(DEFAULT_PRICE_TABLE, "gpt-4o-mini");
    // 600k × 0.15 + 400k × 0.075 + 200k × 0.6 per 1M = 0.09 + 0.03 + 0.12
    expect(
      costUsd(price!, { prompt: 1_000_000, cached: 400_000, completion: 200_000 }),
    ).toBeCloseTo(0.24, 12);
  });
});

describe("priceFor", () => {
  it("matches exactly, then by the longest prefix at a word boundary, else null", () => {
    expect(priceFor(DEFAULT_PRICE_TABLE, "gpt-4.1")).toBe(DEFAULT_PRICE_TABLE["gpt-4.1"]);
    expect(priceFor(DEFAULT_PRICE_TABLE, "gpt-4o-2024-08-06")).toBe(DEFAULT_PRICE_TABLE["gpt-4o"]);
    expect(priceFor(DEFAULT_PRICE_TABLE, "gpt-4.1-mini-2025-04-14")).toBe(
      DEFAULT_PRICE_TABLE["gpt-4.1-mini"],
    );
    expect(priceFor(DEFAULT_PRICE_TABLE, "gpt-4oxyz")).toBeNull();
    expect(priceFor(DEFAULT_PRICE_TABLE, "llama3.1:8b")).toBeNull();
  });
});

describe("loadPriceTable", () => {
  it("overrides and extends the defaults; cachedInput defaults to input", () => {
    const file = writePrices(
      JSON.stringify({
        "gpt-4o": { input: 1, cachedInput: 0.5, output: 4 },
        "llama3.1": { input: 0, output: 0 },
        "my-model": { input: 3, output: 9 },
      }),
    );
    const table = loadPriceTable(file);
    expect(table["gpt-4o"]).toEqual({ input: 1, cachedInput: 0.5, output: 4 });
    expect(table["my-model"]).toEqual({ input: 3, cachedInput: 3, output: 9 });
    expect(table["gpt-4o-mini"]).toEqual(DEFAULT_PRICE_TABLE["gpt-4o-mini"]);
    expect(priceFor(loadPriceTable(file, {}), "deepseek-chat")).toBeNull();
  });

  it.each([
    ["not JSON", "{", /Could not read the price file .*prices\.json/],
    ["a negative price", '{"m":{"input":-1,"output":1}}', /prices\.json is invalid at m\.input/],
    [
      "a price beyond any model's",
      '{"m":{"input":1,"output":1e308}}',
      /prices\.json is invalid at m\.output/,
    ],
    ["a missing output", '{"m":{"input":1}}', /prices\.json is invalid at m\.output/],
    ["an unknown field", '{"m":{"input":1,"output":1,"outptu":2}}', /prices\.json is invalid/],
  ])("rejects %s with a message naming the file", (_, content, pattern) => {
    const file = writePrices(content);
    expect(() => loadPriceTable(file)).toThrow(PriceTableError);
    expect(() => loadPriceTable(file)).toThrow(pattern);
  });
});
