import { describe, expect, it } from "vitest";
import { parseAttribution, stripAttribution } from "../../src/memory/attribution.js";
import {
  compactStamp,
  dayKey,
  minuteStamp,
  parseDayKey,
  parseMinuteStamp,
} from "../../src/memory/sim-time.js";

describe("simulated time stamps", () => {
  // 2024-02-29 23:59 wall clock, read as UTC.
  const t = Date.UTC(2024, 1, 29, 23, 59);

  it("formats with the UTC fields", () => {
    expect(dayKey(t)).toBe("2024-02-29");
    expect(minuteStamp(t)).toBe("2024-02-29 23:59");
    expect(compactStamp(t)).toBe("20240229T2359");
  });

  it("parses back, rejecting impossible dates and times", () => {
    expect(parseDayKey("2024-02-29")).toBe(Date.UTC(2024, 1, 29));
    expect(parseDayKey("2023-02-29")).toBeNull();
    expect(parseDayKey("2024-2-29")).toBeNull();
    expect(parseMinuteStamp("2024-02-29 23:59")).toBe(t);
    expect(parseMinuteStamp("2024-02-29 24:00")).toBeNull();
  });
});

describe("attribution line", () => {
  it("is read from the first line only and stripped from the content", () => {
    const text = "<!-- written 2024-03-15 14:35 by run r1 -->\nbody\n";
    expect(parseAttribution(text)).toEqual({ at: Date.UTC(2024, 2, 15, 14, 35), runId: "r1" });
    expect(stripAttribution(text)).toBe("body\n");
    expect(parseAttribution("x\n<!-- written 2024-03-15 14:35 by run r1 -->\n")).toBeNull();
    expect(stripAttribution("plain preset\n")).toBe("plain preset\n");
  });
});
