import { describe, expect, it } from "vitest";
import { backoffDelayMs, MAX_RETRY_AFTER_MS, retryAfterMs } from "../../src/util/backoff.js";

describe("backoffDelayMs", () => {
  const settings = { baseMs: 500, maxMs: 20_000 };
  it("is uniform in [0, min(max, base·2^retry)]", () => {
    expect([0, 1, 2, 3].map((r) => backoffDelayMs(r, settings, () => 0.999999))).toEqual([
      499, 999, 1999, 3999,
    ]);
    expect(backoffDelayMs(10, settings, () => 0.5)).toBe(10_000);
    expect(backoffDelayMs(3, settings, () => 0)).toBe(0);
  });
});

describe("retryAfterMs", () => {
  const h = (init: Record<string, string>) => new Headers(init);
  it("reads retry-after-ms, seconds and HTTP dates", () => {
    expect(retryAfterMs(h({ "retry-after-ms": "250" }))).toBe(250);
    expect(retryAfterMs(h({ "retry-after": "2" }))).toBe(2000);
    expect(retryAfterMs(h({ "retry-after": "0" }))).toBe(0);
    const now = Date.parse("2025-01-01T00:00:00Z");
    expect(retryAfterMs(h({ "retry-after": "Wed, 01 Jan 2025 00:00:03 GMT" }), now)).toBe(3000);
    expect(retryAfterMs(h({ "retry-after": "Tue, 31 Dec 2024 00:00:00 GMT" }), now)).toBe(0);
  });
  it("prefers retry-after-ms, ignores junk, and caps absurd waits", () => {
    expect(retryAfterMs(h({ "retry-after-ms": "40", "retry-after": "9" }))).toBe(40);
    expect(retryAfterMs(h({ "retry-after": "soon" }))).toBeNull();
    expect(retryAfterMs(h({}))).toBeNull();
    expect(retryAfterMs(undefined)).toBeNull();
    expect(retryAfterMs(h({ "retry-after": "86400" }))).toBe(MAX_RETRY_AFTER_MS);
  });
});
