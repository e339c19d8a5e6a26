import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MEMORY_TOOLS, TRADING_TOOLS } from "../../../src/agent/tools/all-tools.js";
import {
  defineTool,
  toOpenAiTools,
  toolParametersSchema,
} from "../../../src/agent/tools/tool-definition.js";
import { INDICATOR_NAMES } from "../../../src/indicators/catalogue.js";

type Schema = {
  type?: unknown;
  properties: Record<string, Record<string, unknown>>;
  required: string[];
  additionalProperties?: unknown;
};

const rendered = toOpenAiTools(TRADING_TOOLS);

function schemaOf(name: string): Schema {
  const tool = rendered.find((t) => t.type === "function" && t.function.name === name);
  if (tool === undefined || tool.type !== "function") throw new Error(`no tool ${name}`);
  return tool.function.parameters as unknown as Schema;
}

describe("tool sets", () => {
  it("offer the nine tools of the contract, in a stable order, and the memory subset", () => {
    expect(TRADING_TOOLS.map((t) => t.name)).toEqual([
      "get_bars",
      "get_indicator",
      "get_account",
      "place_order",
      "cancel_order",
      "list_orders",
      "memory_log",
      "memory_note",
      "memory_recall",
    ]);
    expect(MEMORY_TOOLS.map((t) => t.name)).toEqual(["memory_log", "memory_note", "memory_recall"]);
  });
});

describe("toOpenAiTools", () => {
  it("renders every tool as a function with a closed object schema and no $schema", () => {
    for (const tool of rendered) {
      expect(tool.type).toBe("function");
      if (tool.type !== "function") continue;
      const p = tool.function.parameters as Record<string, unknown>;
      expect(p.type).toBe("object");
      expect(p.additionalProperties).toBe(false);
      expect(p).toHaveProperty("properties");
      expect(Array.isArray(p.required)).toBe(true);
      expect(p).not.toHaveProperty("$schema");
      expect(tool.function.description?.length ?? 0).toBeGreaterThan(40);
    }
  });

  it("leaves out keywords local servers choke on", () => {
    const text = JSON.stringify(rendered);
    expect(text).not.toContain("propertyNames");
    expect(text).not.toContain("$schema");
    // Safe-integer bounds zod adds by default would be noise to the model.
    expect(text).not.toContain("9007199254740991");
  });

  it("gives no-argument tools empty properties and required lists", () => {
    for (const name of ["get_account", "list_orders"]) {
      const s = schemaOf(name);
      expect(s.properties).toEqual({});
      expect(s.required).toEqual([]);
    }
  });

  it("marks only arguments without defaults as required", () => {
    expect(schemaOf("get_bars").required).toEqual(["symbol"]);
    expect(schemaOf("get_bars").properties.n).toMatchObject({
      type: "integer",
      minimum: 1,
      maximum: 500,
      default: 20,
    });
    expect(schemaOf("get_indicator").required).toEqual(["name", "symbol"]);
    expect(schemaOf("place_order").required).toEqual(["symbol"]);
    expect(schemaOf("cancel_order").required).toEqual(["order_id"]);
    expect(schemaOf("memory_note").required).toEqual(["key", "content"]);
    expect(schemaOf("memory_recall").required).toEqual(["query"]);
    expect(schemaOf("memory_recall").properties.limit).toMatchObject({ default: 5, maximum: 20 });
  });

  it("lists the catalogue's indicator names as the enum of get_indicator", () => {
    const s = schemaOf("get_indicator");
    expect(s.properties.name?.enum).toEqual([...INDICATOR_NAMES]);
    expect(s.properties.params).toMatchObject({
      type: "object",
      additionalProperties: { type: "number" },
    });
    expect(s.properties.n).toMatchObject({ default: 5, minimum: 1, maximum: 200 });
  });

  it("spells out the place_order enums, bounds and time in force", () => {
    const p = schemaOf("place_order").properties;
    expect(p.side?.enum).toEqual(["buy", "sell"]);
    expect(p.type).toMatchObject({ enum: ["market", "limit", "stop"], default: "market" });
    expect(p.fraction_of_equity).toMatchObject({ exclusiveMinimum: 0, maximum: 1 });
    expect(p.target_weight).toMatchObject({ minimum: -10, maximum: 10 });
    expect(p.reason).toMatchObject({ maxLength: 500 });
    expect(p.time_in_force?.default).toBe("gtc");
    expect(p.time_in_force?.anyOf).toEqual([
      { type: "string", enum: ["gtc", "day"] },
      { type: "integer", minimum: 1, maximum: 100000 },
    ]);
    expect(Object.keys(p).sort()).toEqual(
      [
        "symbol",
        "side",
        "type",
        "quantity",
        "fraction_of_equity",
        "target_weight",
        "limit_price",
        "stop_price",
        "stop_loss",
        "take_profit",
        "time_in_force",
        "reason",
      ].sort(),
    );
  });

  it("shows the memory key shape and documents the special keys", () => {
    expect(schemaOf("memory_note").properties.key?.pattern).toBe("^[A-Za-z0-9_.-]{1,100}$");
    expect(schemaOf("memory_note").properties.content?.maxLength).toBe(20000);
    const description = TRADING_TOOLS.find((t) => t.name === "memory_note")?.description ?? "";
    for (const word of ["playbook", "position_<SYMBOL>", "week_YYYY-Www", "month_YYYY-MM"]) {
      expect(description).toContain(word);
    }
  });

  it("refuses a tool whose parameters are not an object", () => {
    const bad = defineTool({ name: "bad", description: "x", parameters: z.string(), run: () => 1 });
    expect(() => toolParametersSchema(bad.parameters)).toThrow(/object schema/);
  });
});

describe("toOpenAiTools caching", () => {
  it("renders the same schemas every time and hands out copies", () => {
    const first = toOpenAiTools(TRADING_TOOLS);
    const second = toOpenAiTools(TRADING_TOOLS);
    expect(second).toEqual(first);
    expect(JSON.stringify(second)).toBe(JSON.stringify(first));
    expect(second[0]).not.toBe(first[0]);
  });
});
