import { describe, expect, it } from "vitest";
import { NonFiniteAccountError } from "../../src/engine/account-error.js";
import { daily, ofType, only, orderById, run, series } from "./helpers.js";

describe("every amount is finite", () => {
  const X = series(
    "X",
    daily("2021-03-01", [
      [100, 101, 99, 100],
      [100, 101, 99, 100],
      [100, 101, 99, 100],
    ]),
  );

  it("an absurd quantity is rejected with a reason, and the account stays finite", () => {
    // 1e307 × 100 overflows to Infinity; with no commission rate, Infinity × 0 is NaN.
    const r = run(
      X,
      {},
      { 0: (b, i) => b.submit({ symbol: "X", side: "buy", size: { kind: "qty", qty: 1e307 } }, i) },
    );
    expect(r.fills).toHaveLength(0);
    const rej = only(ofType(r.events, "order_rejected"));
    expect(rej.index).toBe(1);
    expect(rej.reason).toContain("not a finite number");
    expect(orderById(r, 1).status).toBe("rejected");
    expect(r.broker.portfolio.cash).toBe(10_000);
    expect(r.equity).toEqual([10_000, 10_000, 10_000]);
  });

  it("an absurd short is rejected too (even where the risk check would not look)", () => {
    const r = run(
      X,
      { allowShort: true, commissionRate: 0.001 },
      {
        0: (b, i) => b.submit({ symbol: "X", side: "sell", size: { kind: "qty", qty: 1e307 } }, i),
      },
    );
    expect(r.fills).toHaveLength(0);
    expect(only(ofType(r.events, "order_rejected")).reason).toContain("not a finite number");
    expect(r.equity[2]).toBe(10_000);
  });

  it("a position whose value overflows fails the simulation with a typed error", () => {
    // 10000 units bought at 1 are worth 10000 × 1e305 = Infinity at the second close.
    const Y = series(
      "Y",
      daily("2021-03-01", [
        [1, 1, 1, 1],
        [1, 1, 1, 1],
        [1, 1e305, 1, 1e305],
      ]),
    );
    const buy = {
      0: (b: import("../../src/engine/broker.js").Broker, i: number) =>
        b.submit({ symbol: "Y", side: "buy", size: { kind: "qty", qty: 10_000 } }, i),
    };
    expect(() => run(Y, {}, buy)).toThrow(NonFiniteAccountError);
    expect(() => run(Y, {}, buy)).toThrow(/equity .* is not a finite number/);
  });
});
