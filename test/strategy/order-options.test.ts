import { describe, expect, it } from "vitest";
import { alignSeries } from "../../src/engine/align-series.js";
import { brokerConfig } from "../../src/engine/broker-config.js";
import { Simulation } from "../../src/engine/simulation.js";
import type { OrderRequest } from "../../src/engine/types.js";
import { validateOrderRequest } from "../../src/engine/validate-order.js";
import { BacktestContext, StrategyUsageError } from "../../src/strategy/context.js";
import type { OrderOptions } from "../../src/strategy/types.js";
import { daily, series } from "../engine/helpers.js";

/** A context at the close of bar 0 of X (closes 100, 100, 100), cash 10,000. */
function context() {
  const data = alignSeries([
    series(
      "X",
      daily("2021-03-01", [
        [100, 101, 99, 100],
        [100, 101, 99, 100],
        [100, 101, 99, 100],
      ]),
    ),
  ]);
  const sim = new Simulation(data, brokerConfig({ initialCash: 10_000 }));
  const ctx = new BacktestContext(data, sim.broker, {}, null);
  ctx.advance(0);
  sim.openBar(0);
  return { ctx, sim };
}

/** Loosely typed, as a JavaScript strategy (or a typo behind a cast) would call it. */
const loose = (o: unknown) => o as OrderOptions;

function usageError(call: () => unknown): string {
  try {
    call();
  } catch (err) {
    expect(err).toBeInstanceOf(StrategyUsageError);
    return (err as Error).message;
  }
  throw new Error("expected a StrategyUsageError");
}

describe("order options are validated strictly", () => {
  it("a misspelled size is an error naming the right key, never an all-in order", () => {
    const { ctx, sim } = context();
    const message = usageError(() => ctx.buy(loose({ quantity: 1 })));
    expect(message).toContain('unknown order option "quantity": did you mean "qty"?');
    expect(message).toContain(
      "Valid options: symbol, qty, fraction, limit, stop, stopLoss, takeProfit, tif, tag.",
    );
    expect(sim.broker.orders).toHaveLength(0);
    expect(usageError(() => ctx.sell(loose({ qyt: 1 })))).toContain('did you mean "qty"?');
    expect(usageError(() => ctx.buy(loose({ fraction_of_equity: 0.5 })))).toContain(
      'did you mean "fraction"?',
    );
    expect(usageError(() => ctx.buy(loose({ qty: 1, stop_loss: 90 })))).toContain(
      'did you mean "stopLoss"?',
    );
    expect(usageError(() => ctx.buy(loose({ qty: 1, limitPrice: 90 })))).toContain(
      'did you mean "limit"?',
    );
    // Nothing close: no guess, but the valid keys are listed.
    const far = usageError(() => ctx.buy(loose({ qty: 1, zzzzzz: 1 })));
    expect(far).toContain('unknown order option "zzzzzz"');
    expect(far).not.toContain("did you mean");
    expect(far).toContain("Valid options: symbol, qty");
    expect(sim.broker.orders).toHaveLength(0);
  });

  it("an order without a size is an error, not 100 % of equity", () => {
    const { ctx, sim } = context();
    for (const call of [
      () => ctx.buy(),
      () => ctx.sell(),
      () => ctx.buy({}),
      () => ctx.buy({ symbol: "X", tag: "no size" }),
      () => ctx.sell({ limit: 99 }),
    ]) {
      expect(usageError(call)).toContain(
        "an order needs a size: give qty (units) or fraction (of equity, 0 < fraction <= 1)",
      );
    }
    expect(usageError(() => ctx.buy({ qty: 1, fraction: 0.5 }))).toContain(
      "give one size, qty or fraction, not both",
    );
    expect(sim.broker.orders).toHaveLength(0);
  });

  it("numbers must be finite and in range", () => {
    const { ctx, sim } = context();
    const cases: [OrderOptions, string][] = [
      [{ qty: Number.NaN }, "qty must be a finite number > 0 (got NaN)"],
      [{ qty: 0 }, "qty must be a finite number > 0 (got 0)"],
      [{ qty: -5 }, "qty must be a finite number > 0 (got -5)"],
      [{ qty: Number.POSITIVE_INFINITY }, "qty must be a finite number > 0 (got Infinity)"],
      [loose({ qty: "10" }), 'qty must be a finite number > 0 (got "10")'],
      [{ fraction: 1.5 }, "fraction must be a finite number in (0, 1] (got 1.5)"],
      [{ fraction: 0 }, "fraction must be a finite number in (0, 1] (got 0)"],
      [{ qty: 1, limit: Number.NaN }, "limit must be a finite price > 0 (got NaN)"],
      [{ qty: 1, stop: -1 }, "stop must be a finite price > 0 (got -1)"],
      [{ qty: 1, stopLoss: 0 }, "stopLoss must be a finite price > 0 (got 0)"],
      [
        { qty: 1, takeProfit: Number.POSITIVE_INFINITY },
        "takeProfit must be a finite price > 0 (got Infinity)",
      ],
      [{ qty: 1, limit: 99, stop: 101 }, "give limit or stop, not both"],
      [{ qty: 1, tif: { kind: "bars", bars: 0 } }, "tif"],
      [loose({ qty: 1, tif: "gtc" }), "tif"],
      [loose({ qty: 1, symbol: 5 }), "symbol must be a string"],
      [loose({ qty: 1, tag: 5 }), "tag must be a string"],
      [{ qty: 1, stopLoss: 110, takeProfit: 90 }, "stop-loss must be below the take-profit"],
    ];
    for (const [options, expected] of cases) {
      expect(usageError(() => ctx.buy(options))).toContain(expected);
    }
    expect(usageError(() => ctx.buy(loose(null)))).toContain("options must be an object");
    expect(sim.broker.orders).toHaveLength(0);
  });

  it("targetWeight and closePosition check the weight and the symbol", () => {
    const { ctx, sim } = context();
    expect(usageError(() => ctx.targetWeight(Number.NaN))).toContain(
      "target weight must be a finite number between -10 and 10 (got NaN)",
    );
    expect(usageError(() => ctx.targetWeight(11))).toContain("(got 11)");
    expect(usageError(() => ctx.targetWeight(loose("0.5") as unknown as number))).toContain(
      '(got "0.5")',
    );
    expect(usageError(() => ctx.targetWeight(0.5, "Y"))).toContain('Unknown symbol "Y"');
    expect(usageError(() => ctx.closePosition("Y"))).toContain('Unknown symbol "Y"');
    expect(sim.broker.orders).toHaveLength(0);
  });

  it("ctx.order checks the request's keys and size the same way", () => {
    const { ctx, sim } = context();
    const base = { symbol: "X", side: "buy" as const };
    expect(usageError(() => ctx.order(loose({ ...base }) as unknown as OrderRequest))).toContain(
      "an order needs a size",
    );
    expect(
      usageError(() =>
        ctx.order(
          loose({ ...base, size: { kind: "qty", qty: 1 }, qty: 1 }) as unknown as OrderRequest,
        ),
      ),
    ).toContain('unknown order field "qty"');
    expect(
      usageError(() =>
        ctx.order(
          loose({ ...base, size: { kind: "qty", quantity: 1 } }) as unknown as OrderRequest,
        ),
      ),
    ).toContain('did you mean "qty"?');
    expect(
      usageError(() => ctx.order({ ...base, size: { kind: "fraction", fraction: 2 } })),
    ).toContain("fraction");
    // The price rules of a type, as the LLM tool states them, in the request's names.
    const qty = { kind: "qty", qty: 1 } as const;
    expect(usageError(() => ctx.order({ ...base, size: qty, type: "limit" }))).toBe(
      "type limit needs limitPrice.",
    );
    expect(usageError(() => ctx.order({ ...base, size: qty, stopPrice: 90 }))).toBe(
      'stopPrice is only used with type "stop" (type is "market"); for a protective stop use stopLoss.',
    );
    expect(sim.broker.orders).toHaveLength(0);
  });

  it("valid orders still go through, and config-dependent refusals stay broker rejections", () => {
    const { ctx, sim } = context();
    expect(ctx.buy({ qty: 3, tag: "ok" }).status).toBe("working");
    expect(ctx.buy({ fraction: 0.5, limit: 99, stopLoss: 90, takeProfit: 120 }).status).toBe(
      "working",
    );
    expect(ctx.targetWeight(0.25).status).toBe("working");
    expect(ctx.closePosition().status).toBe("working");
    expect(ctx.order({ symbol: "X", side: "sell", size: { kind: "qty", qty: 1 } }).status).toBe(
      "working",
    );
    // Fractions of a unit and shorts depend on the run's options: rejected with a reason.
    const fractional = ctx.buy({ qty: 1.5 });
    expect(fractional.status).toBe("rejected");
    expect(fractional.reason).toContain("--fractional");
    const short = ctx.targetWeight(-0.5);
    expect(short.status).toBe("rejected");
    expect(short.reason).toContain("--allow-short");
    expect(sim.broker.orders).toHaveLength(7);
  });

  it("a lenient check reads fractions and shorts as allowed, without changing the config", () => {
    const config = brokerConfig();
    const frac: OrderRequest = { symbol: "X", side: "buy", size: { kind: "qty", qty: 1.5 } };
    const short: OrderRequest = { symbol: "X", size: { kind: "weight", weight: -0.5 } };
    const dust: OrderRequest = { symbol: "X", side: "buy", size: { kind: "qty", qty: 1e-9 } };
    expect(validateOrderRequest(frac, true, config)).toContain("--fractional");
    expect(validateOrderRequest(short, true, config)).toContain("--allow-short");
    expect(validateOrderRequest(frac, true, config, true)).toBeNull();
    expect(validateOrderRequest(short, true, config, true)).toBeNull();
    // The smallest step of a fractional account: 1e-8 units.
    expect(validateOrderRequest(dust, true, config, true)).toBe(
      "quantity 1e-9 is below the smallest tradable step of 1e-8 units",
    );
    expect(config).toEqual(brokerConfig());
  });

  it("buy, sell and targetWeight orders hold frozen sizes and tifs that the options do not share", () => {
    const { ctx } = context();
    const options = { qty: 2, tif: { kind: "bars" as const, bars: 3 } };
    const buy = ctx.buy(options);
    // The strategy edits its options after the order was placed: the order keeps what was asked.
    options.tif.bars = 9;
    options.qty = 7;
    expect(buy.tif).toEqual({ kind: "bars", bars: 3 });
    expect(buy.size).toEqual({ kind: "qty", qty: 2 });
    const weight = ctx.targetWeight(0.5);
    const sell = ctx.sell({ fraction: 0.25 });
    for (const o of [buy, weight, sell]) {
      expect(Object.isFrozen(o.size)).toBe(true);
      expect(Object.isFrozen(o.tif)).toBe(true);
    }
    expect(weight.size).toEqual({ kind: "weight", weight: 0.5 });
    expect(weight.tif).toEqual({ kind: "gtc" });
    expect(sell.size).toEqual({ kind: "fraction", fraction: 0.25 });
    expect(JSON.stringify(buy.tif)).toBe('{"kind":"bars","bars":3}');
  });
});
