import { describe, expect, it } from "vitest";
import type { RecordedRequest } from "./scripted-openai-server.js";
import { seededTrader } from "./seeded-trader.js";

// The scripted trader's answer is a function of the request alone: the same request gets the same
// answer (tool-call ids included, as they come back in later prompts and are billed), whatever
// the server answered before it.

const TOOLS = [{ type: "function", function: { name: "place_order" } }];

function request(bar: number, seed: number): RecordedRequest {
  return {
    method: "POST",
    path: "/v1/chat/completions",
    headers: {},
    body: {
      seed,
      tools: TOOLS,
      messages: [
        { role: "system", content: "You have no memory." },
        { role: "user", content: `Bar ${bar} of 62` },
      ],
    },
  };
}

/** A bar at which the trader places an order for `seed` (phase 0: a buy). */
const orderBar = (seed: number) => (((-seed * 3) % 8) + 8) % 8 || 8;

describe("seededTrader", () => {
  it("names its tool calls by the request, not by the server's count", () => {
    const bar = orderBar(2);
    const a = seededTrader(request(bar, 2));
    const b = seededTrader(request(bar, 2));
    const ids = (s: ReturnType<typeof seededTrader>) =>
      "toolCalls" in s ? (s.toolCalls ?? []).map((c) => c.id) : [];
    expect(ids(a)).toHaveLength(1);
    // Set here: the server's default (call_<request>_<n>) would differ with its count.
    expect(ids(a)[0]).toBeDefined();
    expect(ids(b)).toEqual(ids(a));
    expect(b).toEqual(a);
    // Two orders of one conversation (bars 8 apart) have two ids.
    expect(ids(seededTrader(request(bar + 8, 2)))[0]).not.toBe(ids(a)[0]);
  });
});
