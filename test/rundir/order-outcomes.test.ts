import { describe, expect, it } from "vitest";
import type { Order } from "../../src/engine/types.js";
import { countOrders, rejectionWarning } from "../../src/rundir/order-outcomes.js";

const order = (id: number, status: Order["status"], reason: string | null): Order => ({
  id,
  symbol: "X",
  side: "buy",
  type: "market",
  size: { kind: "qty", qty: 1 },
  limitPrice: null,
  stopPrice: null,
  tif: { kind: "gtc" },
  stopLoss: null,
  takeProfit: null,
  tag: null,
  submittedIndex: 0,
  submittedTime: 0,
  parentId: null,
  ocoId: null,
  status,
  remainingQty: null,
  filledQty: 0,
  avgFillPrice: 0,
  barsWorked: 0,
  dayKey: null,
  reason,
  fixedFeeCharged: false,
});

describe("order outcomes", () => {
  it("counts orders by final status and groups rejection reasons, numbers folded, most frequent first", () => {
    const cash = (need: string, has: string) =>
      `insufficient cash: the fill needs ${need} and the account has ${has}`;
    const short = "a negative target weight is a short; pass --allow-short to permit shorts";
    const orders = [
      order(1, "filled", null),
      order(2, "rejected", short),
      order(3, "rejected", cash("120.50", "100.00")),
      order(4, "rejected", cash("99.10", "12.00")),
      order(5, "rejected", cash("3.00", "1.00")),
      order(6, "cancelled", "cancelled by the strategy"),
      order(7, "expired", "time in force: the trading day ended"),
      order(8, "working", null),
      order(9, "rejected", short),
      order(10, "rejected", 'unknown symbol "ZZZ"'),
    ];
    const c = countOrders(orders);
    expect(c).toEqual({
      submitted: 10,
      filled: 1,
      rejected: 6,
      cancelled: 1,
      expired: 1,
      working: 1,
      rejectReasons: [
        {
          reason: "insufficient cash: the fill needs … and the account has …",
          count: 3,
          example: cash("120.50", "100.00"),
        },
        { reason: short, count: 2, example: short },
        { reason: 'unknown symbol "ZZZ"', count: 1, example: 'unknown symbol "ZZZ"' },
      ],
    });
    expect(rejectionWarning(c)).toBe(
      [
        "6 of 10 orders were rejected (1 filled). Top reasons:",
        "  3× insufficient cash: the fill needs … and the account has …",
        `  2× ${short}`,
        '  1× unknown symbol "ZZZ"',
      ].join("\n"),
    );
  });

  it("keeps the top 3 reasons in the warning and counts the other rejections", () => {
    const orders = [
      ...["a", "a", "a", "a", "b", "b", "b", "c", "c", "d", "e"].map((r, k) =>
        order(k + 1, "rejected", `reason ${r}`),
      ),
    ];
    const c = countOrders(orders);
    expect(c.rejectReasons.map((g) => [g.reason, g.count])).toEqual([
      ["reason a", 4],
      ["reason b", 3],
      ["reason c", 2],
      ["reason d", 1],
      ["reason e", 1],
    ]);
    expect(rejectionWarning(c)).toBe(
      [
        "every order was rejected (11 of 11, none filled). Top reasons:",
        "  4× reason a",
        "  3× reason b",
        "  2× reason c",
        "  (2 more rejections for other reasons)",
      ].join("\n"),
    );
  });

  it("says when no order filled though not every one was rejected, and what became of the rest", () => {
    const orders = [
      order(1, "rejected", "too big"),
      order(2, "rejected", "too big"),
      order(3, "cancelled", null),
      order(4, "expired", null),
      order(5, "expired", null),
      order(6, "working", null),
    ];
    expect(rejectionWarning(countOrders(orders))).toBe(
      [
        "no order filled: 2 of 6 orders were rejected, 1 still working at the end, 1 cancelled, 2 expired. Top reasons:",
        "  2× too big",
      ].join("\n"),
    );
  });

  it("has no warning when nothing was rejected", () => {
    expect(rejectionWarning(countOrders([order(1, "filled", null)]))).toBeNull();
  });
});
