import { describe, expect, it } from "vitest";
import { callTool, errorContent } from "./call-tool.js";
import { RecordingHost } from "./recording-host.js";

describe("market tools", () => {
  it("get_bars passes symbol and n, with n defaulting to 20", async () => {
    const host = new RecordingHost();
    const outcome = await callTool(host, "get_bars", { symbol: "AAPL" });
    expect(outcome.error).toBeNull();
    expect(host.calls).toEqual([{ method: "getBars", args: ["AAPL", 20] }]);
    expect(JSON.parse(outcome.content).bars).toHaveLength(20);
    await callTool(host, "get_bars", { symbol: "MSFT", n: 3 });
    expect(host.calls[1]).toEqual({ method: "getBars", args: ["MSFT", 3] });
  });

  it("get_bars accepts a unique case-insensitive symbol and lists valid ones otherwise", async () => {
    const host = new RecordingHost();
    await callTool(host, "get_bars", { symbol: "aapl", n: 2 });
    expect(host.calls[0]).toEqual({ method: "getBars", args: ["AAPL", 2] });
    const outcome = await callTool(host, "get_bars", { symbol: "TSLA" });
    expect(outcome.error?.type).toBe("tool_error");
    expect(outcome.error?.message).toBe('Unknown symbol "TSLA". Valid symbols: AAPL, MSFT.');
    expect(host.calls).toHaveLength(1);
  });

  it("get_bars rejects n outside 1..500 and non-integers before reaching the host", async () => {
    const host = new RecordingHost();
    for (const n of [0, 501, 2.5, -3, "20"]) {
      expect((await callTool(host, "get_bars", { symbol: "AAPL", n })).error?.type).toBe(
        "invalid_arguments",
      );
    }
    expect(host.calls).toEqual([]);
  });

  it("get_indicator normalises the name, fills default params and passes n", async () => {
    const host = new RecordingHost();
    const outcome = await callTool(host, "get_indicator", { name: "RSI", symbol: "AAPL" });
    expect(outcome.error).toBeNull();
    expect(host.calls[0]).toEqual({
      method: "getIndicator",
      args: ["rsi", "AAPL", { period: 14 }, 5],
    });
    await callTool(host, "get_indicator", {
      name: "macd",
      symbol: "MSFT",
      params: { fast: 5 },
      n: 10,
    });
    expect(host.calls[1]?.args).toEqual(["macd", "MSFT", { fast: 5, signal: 9, slow: 26 }, 10]);
  });

  it("get_indicator reports unknown names and bad params with the catalogue's message", async () => {
    const host = new RecordingHost();
    const unknown = await callTool(host, "get_indicator", { name: "vwap", symbol: "AAPL" });
    expect(unknown.error?.type).toBe("invalid_arguments");
    expect(unknown.error?.message).toContain('name: Unknown indicator "vwap". Valid names: sma');
    const extra = await callTool(host, "get_indicator", {
      name: "rsi",
      symbol: "AAPL",
      params: { length: 14 },
    });
    expect(extra.error?.message).toMatch(/^params: Invalid params for indicator rsi/m);
    expect(extra.error?.message).toContain("Valid params: period (default 14)");
    const crossed = await callTool(host, "get_indicator", {
      name: "macd",
      symbol: "AAPL",
      params: { fast: 30, slow: 10 },
    });
    expect(crossed.error?.message).toContain("fast must be smaller than slow");
    const n = await callTool(host, "get_indicator", { name: "sma", symbol: "AAPL", n: 201 });
    expect(n.error?.message).toMatch(/^n: /m);
    expect(host.calls).toEqual([]);
  });
});

describe("broker tools", () => {
  it("get_account and list_orders take no arguments", async () => {
    const host = new RecordingHost();
    expect((await callTool(host, "get_account", "")).error).toBeNull();
    expect((await callTool(host, "list_orders", {})).error).toBeNull();
    expect(host.calls.map((c) => c.method)).toEqual(["getAccount", "listOrders"]);
    expect((await callTool(host, "get_account", { verbose: true })).error?.message).toContain(
      'Unrecognized key: "verbose"',
    );
  });

  it("cancel_order passes a positive integer id", async () => {
    const host = new RecordingHost();
    await callTool(host, "cancel_order", { order_id: 7 });
    expect(host.calls).toEqual([{ method: "cancelOrder", args: [7] }]);
    for (const order_id of [0, -1, 1.5, "7", null]) {
      expect((await callTool(host, "cancel_order", { order_id })).error?.type).toBe(
        "invalid_arguments",
      );
    }
    expect(host.calls).toHaveLength(1);
  });
});

describe("place_order", () => {
  const placed = async (args: unknown) => {
    const host = new RecordingHost();
    const outcome = await callTool(host, "place_order", args);
    return { outcome, sent: host.calls[0]?.args[0], calls: host.calls };
  };

  it("maps a market order by quantity with defaults to the broker's terms", async () => {
    const { outcome, sent } = await placed({ symbol: "AAPL", side: "buy", quantity: 10 });
    expect(outcome.error).toBeNull();
    expect(sent).toEqual({
      symbol: "AAPL",
      side: "buy",
      type: "market",
      quantity: 10,
      timeInForce: { kind: "gtc" },
    });
    expect(JSON.parse(outcome.content)).toEqual({ orderId: 1, status: "accepted" });
  });

  it("maps every snake_case field to camelCase", async () => {
    const { sent } = await placed({
      symbol: "msft",
      side: "sell",
      type: "limit",
      fraction_of_equity: 0.5,
      limit_price: 101.5,
      stop_loss: 110,
      take_profit: 90,
      time_in_force: 3,
      reason: "fade the gap",
    });
    expect(sent).toEqual({
      symbol: "MSFT",
      side: "sell",
      type: "limit",
      fractionOfEquity: 0.5,
      limitPrice: 101.5,
      stopLoss: 110,
      takeProfit: 90,
      timeInForce: { kind: "bars", bars: 3 },
      reason: "fade the gap",
    });
    expect(
      (
        await placed({
          symbol: "AAPL",
          side: "buy",
          type: "stop",
          stop_price: 5,
          quantity: 1,
          time_in_force: "day",
        })
      ).sent,
    ).toMatchObject({ stopPrice: 5, timeInForce: { kind: "day" } });
  });

  it("does not need a side with target_weight and derives it from the sign", async () => {
    expect((await placed({ symbol: "AAPL", target_weight: 0 })).sent).toMatchObject({
      side: "buy",
      targetWeight: 0,
    });
    expect((await placed({ symbol: "AAPL", target_weight: -0.5 })).sent).toMatchObject({
      side: "sell",
      targetWeight: -0.5,
    });
    expect((await placed({ symbol: "AAPL", side: "buy", target_weight: -1 })).sent).toMatchObject({
      side: "buy",
    });
  });

  it("demands exactly one size", async () => {
    const both = await placed({
      symbol: "AAPL",
      side: "buy",
      quantity: 1,
      fraction_of_equity: 0.1,
    });
    expect(both.outcome.error?.type).toBe("invalid_arguments");
    expect(both.outcome.error?.message).toContain(
      "fraction_of_equity: give exactly one size, got quantity and fraction_of_equity",
    );
    const none = await placed({ symbol: "AAPL", side: "buy" });
    expect(none.outcome.error?.message).toContain(
      "give exactly one size: quantity, fraction_of_equity or target_weight",
    );
    expect(both.calls).toEqual([]);
    expect(none.calls).toEqual([]);
  });

  it("names the parameter a misspelled key meant, and never defaults the size", async () => {
    const qty = await placed({ symbol: "AAPL", side: "buy", qty: 1 });
    expect(qty.outcome.error?.type).toBe("invalid_arguments");
    expect(qty.outcome.error?.message).toContain(
      'unknown parameter "qty": did you mean "quantity"? Valid parameters: symbol, side, type, ' +
        "quantity, fraction_of_equity, target_weight, limit_price, stop_price, stop_loss, " +
        "take_profit, time_in_force, reason.",
    );
    // The misspelled size is not there, so there is no size: that is said too, never 100 %.
    expect(qty.outcome.error?.message).toContain("give exactly one size");
    const camel = await placed({ symbol: "AAPL", side: "buy", quantity: 1, stopLoss: 90 });
    expect(camel.outcome.error?.message).toContain('did you mean "stop_loss"?');
    const fraction = await placed({ symbol: "AAPL", side: "buy", fraction: 0.5 });
    expect(fraction.outcome.error?.message).toContain('did you mean "fraction_of_equity"?');
    const far = await placed({ symbol: "AAPL", side: "buy", quantity: 1, zzzzzz: 1 });
    expect(far.outcome.error?.message).toContain('unknown parameter "zzzzzz". Valid parameters:');
    expect([...qty.calls, ...camel.calls, ...fraction.calls, ...far.calls]).toEqual([]);
  });

  it("requires a side for quantity and fraction sizes", async () => {
    const { outcome } = await placed({ symbol: "AAPL", quantity: 1 });
    expect(outcome.error?.message).toContain('side: side ("buy" or "sell") is required');
  });

  it("requires the price of its type and refuses prices of another type", async () => {
    const limit = await placed({ symbol: "AAPL", side: "buy", type: "limit", quantity: 1 });
    expect(limit.outcome.error?.message).toContain("limit_price: type limit needs limit_price");
    const stop = await placed({ symbol: "AAPL", side: "sell", type: "stop", quantity: 1 });
    expect(stop.outcome.error?.message).toContain("stop_price: type stop needs stop_price");
    const stray = await placed({ symbol: "AAPL", side: "buy", quantity: 1, limit_price: 99 });
    expect(stray.outcome.error?.message).toContain('limit_price is only used with type "limit"');
    const stopAsLoss = await placed({ symbol: "AAPL", side: "buy", quantity: 1, stop_price: 90 });
    expect(stopAsLoss.outcome.error?.message).toContain("use stop_loss");
  });

  it("rejects out-of-range sizes, prices and reasons", async () => {
    const bad: Record<string, unknown>[] = [
      { quantity: 0 },
      { quantity: -5 },
      { fraction_of_equity: 0 },
      { fraction_of_equity: 1.01 },
      { target_weight: 10.5 },
      { target_weight: -11 },
      { quantity: 1, stop_loss: -1 },
      { quantity: 1, time_in_force: 0 },
      { quantity: 1, time_in_force: "week" },
      { quantity: 1, side: "short" },
      { quantity: 1, type: "trailing" },
      { quantity: 1, reason: "x".repeat(501) },
    ];
    for (const fields of bad) {
      const { outcome, calls } = await placed({ symbol: "AAPL", side: "buy", ...fields });
      expect(outcome.error?.type, JSON.stringify(fields).slice(0, 80)).toBe("invalid_arguments");
      expect(calls).toEqual([]);
    }
  });

  it("checks the symbol against the run's symbols", async () => {
    const { outcome, calls } = await placed({ symbol: "GME", side: "buy", quantity: 1 });
    expect(outcome.error?.type).toBe("tool_error");
    expect(errorContent(outcome).error).toContain("Valid symbols: AAPL, MSFT");
    expect(calls).toEqual([]);
  });
});

describe("memory tools", () => {
  it("memory_log passes the content", async () => {
    const host = new RecordingHost();
    expect((await callTool(host, "memory_log", { content: "breakout held" })).error).toBeNull();
    expect(host.calls).toEqual([{ method: "memoryLog", args: ["breakout held"] }]);
    expect((await callTool(host, "memory_log", { content: "" })).error?.type).toBe(
      "invalid_arguments",
    );
    expect((await callTool(host, "memory_log", { content: "x".repeat(4001) })).error?.type).toBe(
      "invalid_arguments",
    );
  });

  it("memory_note passes valid keys, including the special ones", async () => {
    const host = new RecordingHost();
    for (const key of ["playbook", "position_AAPL", "week_2024-W07", "month_2024-03", "a.b-c"]) {
      expect((await callTool(host, "memory_note", { key, content: "text" })).error).toBeNull();
    }
    expect(host.calls.map((c) => c.args[0])).toEqual([
      "playbook",
      "position_AAPL",
      "week_2024-W07",
      "month_2024-03",
      "a.b-c",
    ]);
  });

  it("memory_note refuses keys that could leave the notes directory, with one clear message", async () => {
    const host = new RecordingHost();
    const cases: [string, string][] = [
      ["../playbook", "path separator"],
      ["/etc/x", "path separator"],
      ["a/b", "path separator"],
      ["a\\b", "path separator"],
      ["..", 'contains ".."'],
      ["a..b", 'contains ".."'],
      [".hidden", 'starts with "."'],
      ["", "it is empty"],
      ["a b", "character other than"],
      ["k".repeat(101), "101 characters long"],
    ];
    for (const [key, problem] of cases) {
      const outcome = await callTool(host, "memory_note", { key, content: "x" });
      expect(outcome.error?.type, key).toBe("invalid_arguments");
      const lines = outcome.error?.message.split("\n") ?? [];
      expect(lines).toHaveLength(2);
      expect(lines[1]).toContain(problem);
      expect(lines[1]?.startsWith("key: Invalid memory key")).toBe(true);
    }
    expect(host.calls).toEqual([]);
  });

  it("memory_note refuses a 1 MB content without echoing it", async () => {
    const host = new RecordingHost();
    const outcome = await callTool(host, "memory_note", {
      key: "big",
      content: "y".repeat(1_000_000),
    });
    expect(outcome.error?.type).toBe("invalid_arguments");
    expect(outcome.error?.message).toMatch(/content: Too big.*20000/);
    expect(outcome.content.length).toBeLessThan(1000);
    expect(host.calls).toEqual([]);
  });

  it("memory_recall defaults the limit to 5 and bounds it to 1..20", async () => {
    const host = new RecordingHost();
    await callTool(host, "memory_log", { content: "RSI divergence worked" });
    const outcome = await callTool(host, "memory_recall", { query: "RSI" });
    expect(host.calls[1]).toEqual({ method: "memoryRecall", args: ["RSI", 5] });
    expect(JSON.parse(outcome.content)[0].snippet).toBe("RSI divergence worked");
    await callTool(host, "memory_recall", { query: "RSI", limit: 20 });
    expect(host.calls[2]?.args).toEqual(["RSI", 20]);
    for (const args of [{ query: "" }, { query: "q", limit: 21 }, { query: "q".repeat(501) }]) {
      expect((await callTool(host, "memory_recall", args)).error?.type).toBe("invalid_arguments");
    }
  });
});
