import { describe, expect, it } from "vitest";
import { placeOrderTool } from "../../../src/agent/tools/place-order-tool.js";
import { toolParametersSchema } from "../../../src/agent/tools/tool-definition.js";
import { alignSeries } from "../../../src/engine/align-series.js";
import { brokerConfig } from "../../../src/engine/broker-config.js";
import {
  MAX_ORDER_NUMBER,
  MAX_TIF_BARS,
  ORDER_FIELDS,
  orderAliases,
} from "../../../src/engine/order-schema.js";
import { Simulation } from "../../../src/engine/simulation.js";
import { BacktestContext, StrategyUsageError } from "../../../src/strategy/context.js";
import type { OrderOptions } from "../../../src/strategy/types.js";
import { daily, series } from "../../engine/helpers.js";
import { callTool } from "./call-tool.js";
import { RecordingHost } from "./recording-host.js";

type Property = Record<string, unknown>;
const properties = toolParametersSchema(placeOrderTool.parameters).properties as Record<
  string,
  Property
>;

function codeContext() {
  const data = alignSeries([series("AAPL", daily("2021-03-01", [[100, 101, 99, 100]]))]);
  const sim = new Simulation(data, brokerConfig({ fractional: true }));
  const ctx = new BacktestContext(data, sim.broker, {}, null);
  ctx.advance(0);
  return ctx;
}

describe("place_order is derived from the engine's order fields", () => {
  it("has one parameter per field, under its tool name, described and bounded as the field", () => {
    expect(Object.keys(properties)).toEqual(Object.values(ORDER_FIELDS).map((f) => f.tool));
    for (const f of Object.values(ORDER_FIELDS)) {
      const p = properties[f.tool] as Property;
      expect(p.description, f.tool).toBe(f.help);
      if (f.value.kind !== "number") continue;
      expect(p.maximum, f.tool).toBe(f.value.max);
      if ("above" in f.value) expect(p.exclusiveMinimum, f.tool).toBe(f.value.above);
      if ("min" in f.value) expect(p.minimum, f.tool).toBe(f.value.min);
    }
  });

  it("the model and a code strategy accept and refuse the same sizes, prices and times in force", async () => {
    const ctx = codeContext();
    const cases: [tool: Record<string, unknown>, code: OrderOptions, ok: boolean][] = [
      [{ quantity: 5 }, { qty: 5 }, true],
      [{ quantity: MAX_ORDER_NUMBER }, { qty: MAX_ORDER_NUMBER }, true],
      [{ quantity: MAX_ORDER_NUMBER * 10 }, { qty: MAX_ORDER_NUMBER * 10 }, false],
      [{ quantity: 0 }, { qty: 0 }, false],
      [{ fraction_of_equity: 1 }, { fraction: 1 }, true],
      [{ fraction_of_equity: 1.01 }, { fraction: 1.01 }, false],
      [{ quantity: 1, stop_loss: 90 }, { qty: 1, stopLoss: 90 }, true],
      [{ quantity: 1, stop_loss: -1 }, { qty: 1, stopLoss: -1 }, false],
      [
        { quantity: 1, time_in_force: MAX_TIF_BARS },
        { qty: 1, tif: { kind: "bars", bars: MAX_TIF_BARS } },
        true,
      ],
      [
        { quantity: 1, time_in_force: MAX_TIF_BARS + 1 },
        { qty: 1, tif: { kind: "bars", bars: MAX_TIF_BARS + 1 } },
        false,
      ],
    ];
    for (const [tool, code, ok] of cases) {
      const outcome = await callTool(new RecordingHost(), "place_order", {
        symbol: "AAPL",
        side: "buy",
        ...tool,
      });
      expect(outcome.error === null, JSON.stringify(tool)).toBe(ok);
      let refused = false;
      try {
        ctx.buy(code);
      } catch (err) {
        expect(err).toBeInstanceOf(StrategyUsageError);
        refused = true;
      }
      expect(!refused, JSON.stringify(code)).toBe(ok);
    }
  });

  it("one alias table leads each API to its own name for a field", () => {
    expect(orderAliases("tool").qty).toBe("quantity");
    expect(orderAliases("option").quantity).toBe("qty");
    expect(orderAliases("request").quantity).toBe("size");
    expect(orderAliases("sizeKey").quantity).toBe("qty");
    expect(orderAliases("tool").tag).toBe("reason");
    expect(orderAliases("option").reason).toBe("tag");
    expect(orderAliases("option").time_in_force).toBe("tif");
    // A name valid in an API is never an alias there.
    expect(Object.hasOwn(orderAliases("request"), "size")).toBe(false);
  });
});
