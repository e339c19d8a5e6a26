import { describe, expect, it } from "vitest";
import { alignSeries } from "../../src/engine/align-series.js";
import { brokerConfig } from "../../src/engine/broker-config.js";
import { CHUNK_VALUES, type RecordBuilder, RecordLog } from "../../src/rundir/record-log.js";
import { simulate } from "../../src/runner/simulate.js";
import type { Strategy } from "../../src/strategy/types.js";
import { daily, series } from "../engine/helpers.js";

// Opens 10, 11, 12, 13: nothing reaches the limit at 1.
const data = alignSeries([
  series(
    "AAA",
    daily("2024-01-01", [
      [10, 10, 10, 10],
      [11, 11, 11, 11],
      [12, 12, 12, 12],
      [13, 13, 13, 13],
    ]),
  ),
]);

/** Orders whose objects move on after their records: a weight order gets its side when it is
 * sized (at its fill) and its status, a resting limit is cancelled with a reason. */
const strategy: Strategy<unknown> = {
  name: "moving-orders",
  onBar(ctx) {
    if (ctx.index === 0) {
      ctx.targetWeight(0.5);
      ctx.buy({ qty: 1, limit: 1, tag: "resting" });
    }
    if (ctx.index === 1) {
      ctx.cancel(2);
    }
  },
};

const common = '"symbol":"AAA"';
const gtc = '"tif":{"kind":"gtc"}';

describe("orders.jsonl and decisions.jsonl lines: what was true when each record was made", () => {
  it("keeps an order's side, status and reason as they were, however the order moved on", async () => {
    const out = await simulate({ data, broker: brokerConfig({ initialCash: 100 }), strategy });
    // Read only now, after the run: the weight order is filled (side buy), the limit cancelled.
    expect(out.orders.map((o) => [o.id, o.side, o.status, o.reason])).toEqual([
      [1, "buy", "filled", null],
      [2, "buy", "cancelled", "cancelled by the strategy"],
    ]);
    const orders = [...out.orderLog];
    expect(orders.slice(0, 2)).toEqual([
      `{"event":"accepted","time":"2024-01-01","bar":0,"id":1,${common},"side":null,"type":"market","size":{"kind":"weight","weight":0.5},"limitPrice":null,"stopPrice":null,"stopLoss":null,"takeProfit":null,${gtc},"status":"accepted","reason":null,"tag":null,"parentId":null,"ocoId":null}`,
      `{"event":"accepted","time":"2024-01-01","bar":0,"id":2,${common},"side":"buy","type":"limit","size":{"kind":"qty","qty":1},"limitPrice":1,"stopPrice":null,"stopLoss":null,"takeProfit":null,${gtc},"status":"accepted","reason":null,"tag":"resting","parentId":null,"ocoId":null}`,
    ]);
    // Bar 1: the weight order fills at the open (floor(50 / 11) = 4 units), then the cancel.
    expect(orders.slice(2).map((l) => JSON.parse(l) as Record<string, unknown>)).toMatchObject([
      { event: "fill", orderId: 1, side: "buy", qty: 4, price: 11, bar: 1 },
      {
        event: "cancelled",
        bar: 1,
        id: 2,
        status: "cancelled",
        reason: "cancelled by the strategy",
        side: "buy",
        tag: "resting",
      },
    ]);
    expect(orders).toHaveLength(4);
    const decisions = [...out.decisionLog].map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(decisions).toEqual([
      {
        time: "2024-01-01",
        bar: 0,
        kind: "bar",
        orders: [
          {
            id: 1,
            symbol: "AAA",
            side: null,
            type: "market",
            size: { kind: "weight", weight: 0.5 },
            limitPrice: null,
            stopPrice: null,
            stopLoss: null,
            takeProfit: null,
            tif: { kind: "gtc" },
            status: "working",
            reason: null,
            tag: null,
          },
          {
            id: 2,
            symbol: "AAA",
            side: "buy",
            type: "limit",
            size: { kind: "qty", qty: 1 },
            limitPrice: 1,
            stopPrice: null,
            stopLoss: null,
            takeProfit: null,
            tif: { kind: "gtc" },
            status: "working",
            reason: null,
            tag: "resting",
          },
        ],
        cancels: [],
        memory: [],
        recalls: [],
      },
      {
        time: "2024-01-02",
        bar: 1,
        kind: "bar",
        orders: [],
        cancels: [2],
        memory: [],
        recalls: [],
      },
    ]);
  });
});

describe("a fill's record", () => {
  it("is the fill as the engine made it: the fill is frozen, so a strategy cannot change what orders.jsonl says", async () => {
    const seen: { frozen: boolean; threw: boolean }[] = [];
    const mutating: Strategy<unknown> = {
      name: "mutates-fills",
      onBar(ctx) {
        if (ctx.index === 0) ctx.buy({ qty: 2 });
      },
      onFill(_ctx, fill) {
        let threw = false;
        try {
          (fill as { qty: number }).qty = 999;
        } catch {
          threw = true;
        }
        seen.push({ frozen: Object.isFrozen(fill), threw });
      },
    };
    const out = await simulate({
      data,
      broker: brokerConfig({ initialCash: 100 }),
      strategy: mutating,
    });
    // Strategies are modules (strict mode): writing to a frozen object throws.
    expect(seen).toEqual([{ frozen: true, threw: true }]);
    const fill = [...out.orderLog].map((l) => JSON.parse(l)).find((r) => r.event === "fill");
    // Bought at bar 1's open (11): the label is bar 1's, made when the line was.
    expect(fill).toMatchObject({ event: "fill", qty: 2, price: 11, time: "2024-01-02", bar: 1 });
  });
});

describe("RecordLog", () => {
  it("makes a line from the values taken when the record was added, kept or not", () => {
    const log = new RecordLog();
    const build: RecordBuilder = (v, at) => ({ n: v[at], tag: v[at + 1] });
    const order = { n: 1, tag: "first" };
    log.open(build).push(order.n, order.tag);
    log.pushLine('{"made":"now"}');
    log.open(build).push(2, undefined);
    order.n = 99;
    order.tag = "moved on";
    expect(log.length).toBe(3);
    expect(log.line(0)).toBe('{"n":1,"tag":"first"}');
    expect(log.line(0, true)).toBe('{"n":1,"tag":"first"}');
    expect(log.line(0)).toBe('{"n":1,"tag":"first"}');
    // undefined drops its key, as JSON.stringify drops it.
    expect([...log]).toEqual(['{"n":1,"tag":"first"}', '{"made":"now"}', '{"n":2}']);
    expect(() => log.line(3)).toThrow(RangeError);
  });

  it("keeps every record whole across chunks: records of any size, lines made now, kept lines", () => {
    const log = new RecordLog();
    // A record's line lists its values: a record cut at a chunk's end would lose its tail.
    const build: RecordBuilder = (v, at) => {
      const n = v[at] as number;
      return JSON.stringify(v.slice(at + 1, at + 1 + n));
    };
    const expected: string[] = [];
    let seed = 7;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed;
    };
    // About 12 chunks' worth, with records from 0 to 3,000 values (one larger than some chunks'
    // room left, some a value or two from the limit), and a line made now every so often.
    let values = 0;
    for (let k = 0; values < 12 * CHUNK_VALUES; k++) {
      if (next() % 7 === 0) {
        const line = `{"now":${k}}`;
        log.pushLine(line);
        expected.push(line);
        values++;
        continue;
      }
      const n = next() % 13 === 0 ? 3000 : next() % 9;
      const row = Array.from({ length: n }, (_, j) => k * 10 + j);
      log.open(build).push(n, ...row);
      expected.push(JSON.stringify(row));
      values += n + 2;
    }
    expect(log.length).toBe(expected.length);
    // Kept lines (a checkpoint's digest) replace their values; their neighbours stay as they were.
    for (let k = 0; k < expected.length; k += 5) expect(log.line(k, true)).toBe(expected[k]);
    expect([...log]).toEqual(expected);
    for (let k = 1; k < expected.length; k += 5) expect(log.line(k)).toBe(expected[k]);
  });
});

describe("an order's size and time in force", () => {
  it("are the order's own frozen copies: changing the request afterwards changes neither the order nor its records", async () => {
    const request = {
      symbol: "AAA",
      side: "buy" as const,
      type: "limit" as const,
      limitPrice: 1,
      size: { kind: "qty" as const, qty: 1 },
      tif: { kind: "gtc" as const },
    };
    const edits: boolean[] = [];
    const strategy: Strategy<unknown> = {
      name: "edits-its-request",
      onBar(ctx) {
        if (ctx.index !== 0) return;
        const order = ctx.order(request);
        // The strategy's own object changes after it was submitted.
        (request.size as { qty: number }).qty = 50;
        let threw = false;
        try {
          (order.size as { qty: number }).qty = 60;
        } catch {
          threw = true;
        }
        edits.push(threw, Object.isFrozen(order.size), Object.isFrozen(order.tif));
      },
    };
    const out = await simulate({ data, broker: brokerConfig({ initialCash: 100 }), strategy });
    expect(edits).toEqual([true, true, true]);
    expect(out.orders[0]?.size).toEqual({ kind: "qty", qty: 1 });
    const accepted = JSON.parse([...out.orderLog][0] as string);
    expect(accepted.size).toEqual({ kind: "qty", qty: 1 });
    expect(JSON.parse([...out.decisionLog][0] as string).orders[0].size).toEqual({
      kind: "qty",
      qty: 1,
    });
  });
});
