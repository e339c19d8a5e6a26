import { describe, expect, it } from "vitest";
import { MEMORY_TOOLS } from "../../../src/agent/tools/all-tools.js";
import { dispatchToolCall, MAX_CONTENT_CHARS } from "../../../src/agent/tools/dispatch.js";
import { callTool, errorContent } from "./call-tool.js";
import { RecordingHost } from "./recording-host.js";

describe("dispatchToolCall", () => {
  it("returns the result as JSON content with the call's id, name and parsed args", async () => {
    const host = new RecordingHost();
    const outcome = await callTool(host, "get_bars", { symbol: "AAPL", n: 2 });
    expect(outcome).toEqual({
      id: "call_1",
      name: "get_bars",
      args: { symbol: "AAPL", n: 2 },
      result: {
        symbol: "AAPL",
        bars: [
          { time: 0, close: 100 },
          { time: 1, close: 101 },
        ],
      },
      error: null,
      content: '{"symbol":"AAPL","bars":[{"time":0,"close":100},{"time":1,"close":101}]}',
    });
  });

  it("treats empty or blank arguments as {}", async () => {
    const host = new RecordingHost();
    expect((await callTool(host, "list_orders", "")).error).toBeNull();
    expect((await callTool(host, "get_account", "  \n")).error).toBeNull();
    expect((await callTool(host, "get_bars", "")).error?.message).toContain(
      "symbol: Invalid input",
    );
  });

  it("answers malformed JSON with a hint showing one JSON object and the parameters", async () => {
    const host = new RecordingHost();
    const outcome = await callTool(host, "get_bars", '{"symbol": ');
    expect(outcome.error?.type).toBe("malformed_json");
    expect(outcome.args).toBeNull();
    expect(outcome.result).toBeNull();
    const { error, hint } = errorContent(outcome);
    expect(error).toMatch(/^The arguments of get_bars are not valid JSON \(.+\)\.$/);
    expect(hint).toContain("Arguments must be one JSON object, e.g. {");
    expect(hint).toContain("Parameters of get_bars: symbol (required), n.");
    expect((await callTool(host, "get_bars", "symbol=AAPL")).error?.type).toBe("malformed_json");
    expect((await callTool(host, "get_bars", '{"symbol":"AAPL"}{"n":1}')).error?.type).toBe(
      "malformed_json",
    );
    expect(host.calls).toEqual([]);
  });

  it("refuses arrays, strings, numbers and null instead of an object", async () => {
    const host = new RecordingHost();
    const cases: [string, string][] = [
      ['[{"symbol":"AAPL"}]', "an array"],
      ['"{\\"symbol\\":\\"AAPL\\"}"', "a string"],
      ["42", "a number"],
      ["null", "null"],
    ];
    for (const [text, what] of cases) {
      const outcome = await callTool(host, "get_bars", text);
      expect(outcome.error?.type).toBe("invalid_arguments");
      expect(outcome.error?.message).toBe(
        `The arguments of get_bars must be a JSON object, got ${what}.`,
      );
      expect(errorContent(outcome).hint).toContain("one JSON object");
    }
    expect(host.calls).toEqual([]);
  });

  it("names an unknown tool and lists the ones offered", async () => {
    const host = new RecordingHost();
    const outcome = await dispatchToolCall(
      { id: "c9", name: "place_order", arguments: "{}" },
      MEMORY_TOOLS,
      host,
    );
    expect(outcome.error).toEqual({ type: "unknown_tool", message: 'Unknown tool "place_order".' });
    expect(errorContent(outcome).hint).toBe(
      "Available tools: memory_log, memory_note, memory_recall.",
    );
    expect(outcome.args).toEqual({});
    const hostile = await callTool(host, "x".repeat(100_000), "{}");
    expect(hostile.content.length).toBeLessThan(1000);
  });

  it("rejects extra properties and wrong types, one readable line per issue", async () => {
    const host = new RecordingHost();
    const outcome = await callTool(host, "get_bars", { symbol: 5, n: "10", limit: 3 });
    expect(outcome.error?.type).toBe("invalid_arguments");
    expect(outcome.error?.message.split("\n")).toEqual([
      "Invalid arguments for get_bars:",
      "symbol: Invalid input: expected string, received number",
      "n: Invalid input: expected number, received string",
      'Unrecognized key: "limit"',
    ]);
    expect(outcome.args).toEqual({ symbol: 5, n: "10", limit: 3 });
    expect(errorContent(outcome).hint).toBe(
      "Fix these and call get_bars again. Parameters: symbol (required), n.",
    );
  });

  it("rejects NaN, Infinity and huge numbers that JSON can carry", async () => {
    const host = new RecordingHost();
    // NaN is not JSON; 1e400 parses to Infinity.
    expect((await callTool(host, "get_bars", '{"symbol":"AAPL","n":NaN}')).error?.type).toBe(
      "malformed_json",
    );
    const infinite = await callTool(
      host,
      "place_order",
      '{"symbol":"AAPL","side":"buy","quantity":1e400}',
    );
    expect(infinite.error?.type).toBe("invalid_arguments");
    expect(infinite.error?.message).toContain("quantity:");
    expect((await callTool(host, "get_bars", { symbol: "AAPL", n: 1e20 })).error?.type).toBe(
      "invalid_arguments",
    );
    expect((await callTool(host, "cancel_order", { order_id: 2 ** 60 })).error?.type).toBe(
      "invalid_arguments",
    );
    expect(host.calls).toEqual([]);
  });

  it("bounds the number and length of reported issues", async () => {
    const host = new RecordingHost();
    const args: Record<string, number> = { symbol: 1 };
    for (let i = 0; i < 30; i++) args[`extra_${"k".repeat(2000)}_${i}`] = i;
    const outcome = await callTool(host, "get_bars", args);
    expect(outcome.error?.type).toBe("invalid_arguments");
    expect(outcome.content.length).toBeLessThan(5000);
    expect(outcome.error?.message.split("\n").every((line) => line.length <= 300)).toBe(true);
  });

  it("passes a tool's error message to the model, never a stack trace", async () => {
    const host = new RecordingHost(["AAPL"], {
      cancelOrder: () => {
        throw new Error("No working order #3. Use list_orders to see working orders.");
      },
    });
    const outcome = await callTool(host, "cancel_order", { order_id: 3 });
    expect(outcome.error).toEqual({
      type: "tool_error",
      message: "No working order #3. Use list_orders to see working orders.",
    });
    expect(outcome.result).toBeNull();
    expect(outcome.args).toEqual({ order_id: 3 });
    expect(outcome.content).not.toMatch(/\bat .*\.ts:\d+/);
    expect(outcome.content).not.toContain("Error:");
    expect(errorContent(outcome).hint).toContain("valid");
  });

  it("survives hosts that throw non-errors, return promises or unencodable results", async () => {
    const throwsString = new RecordingHost(["AAPL"], {
      getAccount: () => {
        throw "broker offline";
      },
    });
    expect((await callTool(throwsString, "get_account", {})).error).toEqual({
      type: "tool_error",
      message: "broker offline",
    });
    const asyncHost = new RecordingHost(["AAPL"], {
      listOrders: () => Promise.reject(new Error("late")),
    });
    expect((await callTool(asyncHost, "list_orders", {})).error?.type).toBe("tool_error");
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const cyclicHost = new RecordingHost(["AAPL"], { listOrders: () => cyclic });
    const outcome = await callTool(cyclicHost, "list_orders", {});
    expect(outcome.error?.type).toBe("tool_error");
    expect(outcome.error?.message).toContain("could not be encoded as JSON");
    const bigint = new RecordingHost(["AAPL"], { getAccount: () => ({ cash: 10n }) });
    expect((await callTool(bigint, "get_account", {})).error?.type).toBe("tool_error");
  });

  it("awaits an async host, and rethrows only an error marked fatal", async () => {
    const asyncHost = new RecordingHost(["AAPL"], {
      memoryRecall: async () => [
        { path: "notes/a.md", startLine: 1, endLine: 2, snippet: "x", score: 0.5, source: "note" },
      ],
    });
    const ok = await callTool(asyncHost, "memory_recall", { query: "x" });
    expect(ok.error).toBeNull();
    expect(JSON.parse(ok.content)[0].path).toBe("notes/a.md");
    const broken = Object.assign(new Error("embeddings endpoint down"), { fatal: true });
    const fatalHost = new RecordingHost(["AAPL"], {
      memoryRecall: () => Promise.reject(broken),
    });
    await expect(callTool(fatalHost, "memory_recall", { query: "x" })).rejects.toBe(broken);
  });

  it("confirms a tool that returns nothing", async () => {
    const host = new RecordingHost(["AAPL"], { memoryLog: () => undefined });
    const outcome = await callTool(host, "memory_log", { content: "x" });
    expect(outcome.error).toBeNull();
    expect(outcome.result).toBeNull();
    expect(outcome.content).toBe('{"ok":true}');
  });

  it("truncates a result larger than the limit and says so", async () => {
    const host = new RecordingHost(["AAPL"], {
      getBars: () => ({ bars: Array.from({ length: 5000 }, (_, i) => ({ close: i })) }),
    });
    const outcome = await callTool(host, "get_bars", { symbol: "AAPL", n: 500 });
    expect(outcome.error).toBeNull();
    const full = JSON.stringify(outcome.result);
    expect(full.length).toBeGreaterThan(MAX_CONTENT_CHARS);
    expect(outcome.content.length).toBeLessThanOrEqual(MAX_CONTENT_CHARS);
    expect(outcome.content.startsWith('{"bars":[{"close":0},{"close":1}')).toBe(true);
    expect(outcome.content).toMatch(
      new RegExp(`\\[truncated: the get_bars result was ${full.length} characters.*smaller n\\]$`),
    );
    // The full result is still recorded for the audit trail.
    expect((outcome.result as { bars: unknown[] }).bars).toHaveLength(5000);
  });

  it("does not split a surrogate pair when truncating", async () => {
    const host = new RecordingHost(["AAPL"], { getAccount: () => "😀".repeat(10_000) });
    const content = (await callTool(host, "get_account", {})).content;
    const cut = content.slice(0, content.indexOf(" …[truncated"));
    const last = cut.charCodeAt(cut.length - 1);
    expect(last >= 0xd800 && last <= 0xdbff).toBe(false);
  });
});
