import { describe, expect, it } from "vitest";
import type { EngineEvent, Order } from "../../src/engine/types.js";
import { RecordLog } from "../../src/rundir/record-log.js";
import {
  decisionAt,
  decisionRecord,
  orderEventAt,
  orderEventRecord,
  orderSummary,
  pushDecision,
  pushOrderEvent,
} from "../../src/runner/order-records.js";
import {
  JsonField,
  jsonField,
  jsonNumber,
  jsonString,
  jsonValue,
} from "../../src/util/json-text.js";
import { mulberry32 } from "../../src/util/prng.js";

// orders.jsonl and decisions.jsonl lines are written field by field (order-records.ts); each must
// be, byte for byte, JSON.stringify of the record's object as the builders make it. Compared over
// hostile values drawn by a seeded generator (the same draws on every run).

const STRINGS = [
  "",
  "MINUTE",
  "already at the target weight",
  'a "quoted" word',
  "back\\slash",
  "nul\u0000 and \u001f, tab\t, newline\n, cr\r",
  "del\u007f, latin \u0080\u00e9\u00ff",
  "unicode \u2028\u2029 \u20ac \u2713",
  "pair \ud83d\ude00 emoji",
  "lone high \ud800",
  "lone low \udc00 then text",
  "\udbff",
  "</script><script>",
  '{"json":[1,2]}',
  "2020-01-01 00:36:00",
];
const NUMBERS = [
  0,
  -0,
  1,
  -1,
  36,
  0.1,
  20.336579999999998,
  1e21,
  -1e21,
  1e-7,
  5e-324,
  Number.MAX_VALUE,
  Number.MAX_SAFE_INTEGER + 2,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
];

/** Values a field may hold in a hostile record: strings, numbers, null, undefined, and others. */
function hostile(rand: () => number): unknown {
  const pick = <T>(a: readonly T[]): T => a[Math.floor(rand() * a.length)] as T;
  const r = rand();
  if (r < 0.35) return pick(STRINGS);
  if (r < 0.7) return pick(NUMBERS);
  if (r < 0.8) return null;
  if (r < 0.87) return undefined;
  return pick([
    true,
    false,
    { nested: { a: pick(NUMBERS), b: pick(STRINGS) } },
    [pick(NUMBERS), pick(STRINGS), undefined],
    { toJSON: (key: string) => `toJSON of ${key}` },
    new Date(Date.UTC(2024, 0, 2)),
    () => 1,
    Symbol("s"),
  ]);
}

/** A size or time in force: usually a flat object, keys in any order, sometimes much odder. */
function terms(rand: () => number): unknown {
  const r = rand();
  if (r < 0.2) return { kind: "weight", weight: NUMBERS[Math.floor(rand() * NUMBERS.length)] };
  if (r < 0.3) return Object.freeze({ kind: "gtc" });
  if (r < 0.4) return { qty: hostile(rand), kind: hostile(rand) };
  if (r < 0.5) return { b: 1, 2: "two", 1: "one", [STRINGS[3] as string]: STRINGS[5] };
  if (r < 0.55) return Object.assign(Object.create(null), { kind: "bars", bars: 3 });
  if (r < 0.6) return Object.create({ inherited: 1 }, { own: { value: 2, enumerable: true } });
  if (r < 0.65) return { kind: "qty", toJSON: (key: string) => ({ key }) };
  if (r < 0.7)
    return {
      kind: "qty",
      get qty() {
        return 7;
      },
    };
  if (r < 0.75) return {};
  if (r < 0.8) return [1, 2];
  return Math.floor(rand() * 4) === 0 ? hostile(rand) : { kind: hostile(rand), n: hostile(rand) };
}

/** An order whose every recorded field may be hostile (most draws stay plausible). */
function hostileOrder(rand: () => number, id: number): Order {
  const maybe = (usual: unknown) => (rand() < 0.6 ? usual : hostile(rand));
  return {
    id: maybe(id),
    symbol: maybe("MINUTE"),
    side: maybe(rand() < 0.5 ? "buy" : null),
    type: maybe("market"),
    size: terms(rand),
    limitPrice: maybe(null),
    stopPrice: maybe(null),
    tif: terms(rand),
    stopLoss: maybe(null),
    takeProfit: maybe(null),
    tag: maybe(null),
    submittedIndex: 0,
    submittedTime: 0,
    parentId: maybe(null),
    ocoId: maybe(null),
    status: maybe("working"),
    remainingQty: null,
    filledQty: 0,
    avgFillPrice: 0,
    barsWorked: 0,
    dayKey: null,
    reason: maybe(null),
    fixedFeeCharged: false,
  } as unknown as Order;
}

type OrderEvent = Extract<EngineEvent, { order: unknown }>;
const EVENT_TYPES = ["order_accepted", "order_rejected", "order_cancelled", "order_expired"];

/** A bar's label as a run makes it, or a hostile one (a label is any string). */
function labeller(rand: () => number): (i: number) => string {
  const odd = rand() < 0.3 ? (STRINGS[Math.floor(rand() * STRINGS.length)] as string) : null;
  return (i) => odd ?? `2020-01-01 00:${String(i % 60).padStart(2, "0")}:00`;
}

describe("json-text: JSON.stringify's text without JSON.stringify", () => {
  it("writes strings, numbers and other values as JSON.stringify does, keys left out alike", () => {
    const rand = mulberry32(7);
    for (const s of STRINGS) expect(jsonString(s)).toBe(JSON.stringify(s));
    for (const n of NUMBERS) expect(jsonNumber(n)).toBe(JSON.stringify(n));
    // -0 is "0"; 1e21 is "1e+21"; NaN and the infinities are null.
    expect([jsonNumber(-0), jsonNumber(1e21), jsonNumber(Number.NaN)]).toEqual([
      "0",
      "1e+21",
      "null",
    ]);
    for (let k = 0; k < 2000; k++) {
      const v = rand() < 0.5 ? hostile(rand) : terms(rand);
      const whole = JSON.stringify({ a: 1, key: v });
      expect(`{"a":1${jsonField(',"key":', v)}}`).toBe(whole);
      expect(`${jsonField('{"key":', v) || "{"}}`).toBe(JSON.stringify({ key: v }));
      const j = jsonValue("key", v);
      expect(j === undefined ? "{}" : `{"key":${j}}`).toBe(JSON.stringify({ key: v }));
    }
  });
});

describe("json-text's JsonField: a key written many times, remembering what it wrote", () => {
  it("writes each value as JSON.stringify does, however values repeat, reorder their keys or change", () => {
    const rand = mulberry32(11);
    const field = new JsonField(',"key":');
    // A few flat objects again and again (a long/short run's two sizes), among hostile values.
    const again = [
      { kind: "weight", weight: 1 },
      { kind: "weight", weight: -1 },
      { weight: 1, kind: "weight" },
      { kind: "weight", weight: -0 },
      { kind: "weight", weight: Number.NaN },
      { kind: "weight", weight: 1, extra: "x" },
      { kind: "weight" },
      { kind: 'we"ight', weight: 1 },
    ];
    for (let k = 0; k < 3000; k++) {
      const r = rand();
      const v =
        r < 0.5 ? again[Math.floor(rand() * again.length)] : r < 0.75 ? terms(rand) : hostile(rand);
      expect(`{"a":1${field.of(v)}}`).toBe(JSON.stringify({ a: 1, key: v }));
    }
  });
});

describe("json-text's flat objects", () => {
  it("leave out what the prototype adds, as JSON.stringify does, even on a polluted Object.prototype", () => {
    const size = Object.freeze({ kind: "qty", qty: 2 });
    Object.defineProperty(Object.prototype, "polluted", {
      value: "inherited",
      enumerable: true,
      configurable: true,
    });
    let j: string | undefined;
    try {
      j = jsonValue("size", size);
    } finally {
      delete (Object.prototype as { polluted?: string }).polluted;
    }
    expect(j).toBe('{"kind":"qty","qty":2}');
  });
});

describe("orders.jsonl lines written field by field", () => {
  it("are JSON.stringify(orderEventRecord(...)) for every event kind over hostile orders", () => {
    const rand = mulberry32(42);
    for (let k = 0; k < 3000; k++) {
      const order = hostileOrder(rand, k + 1);
      const type = EVENT_TYPES[k % 4] ?? "order_accepted";
      const index = Math.floor(rand() * 1_000_000);
      const e = (
        type === "order_rejected" || type === "order_cancelled"
          ? { type, index, time: 0, order, reason: hostile(rand) }
          : { type, index, time: 0, order }
      ) as OrderEvent;
      const label = labeller(rand);
      const values: unknown[] = [];
      pushOrderEvent(values, e);
      expect(orderEventAt(values, 0, label)).toBe(
        JSON.stringify(orderEventRecord(e, label(index))),
      );
    }
  });

  it("names an event the engine may add by its type without `order_`", () => {
    const order = hostileOrder(mulberry32(1), 1);
    const e = { type: "order_parked", index: 3, time: 0, order } as unknown as OrderEvent;
    const values: unknown[] = [];
    pushOrderEvent(values, e);
    const line = orderEventAt(values, 0, () => "t");
    expect(line).toBe(JSON.stringify(orderEventRecord(e, "t")));
    expect(line.startsWith('{"event":"parked","time":"t","bar":3')).toBe(true);
  });
});

describe("decisions.jsonl lines written field by field", () => {
  it("are JSON.stringify(decisionRecord(...)) of the orders' summaries, over hostile orders and cancels", () => {
    const rand = mulberry32(99);
    let id = 1;
    for (let k = 0; k < 1500; k++) {
      const orders = Array.from({ length: Math.floor(rand() * 4) }, () => hostileOrder(rand, id++));
      const cancels = Array.from({ length: Math.floor(rand() * 3) }, () =>
        rand() < 0.8 ? Math.floor(rand() * 100) : hostile(rand),
      ) as number[];
      const bar = rand() < 0.9 ? Math.floor(rand() * 1_000_000) : (hostile(rand) as number);
      const kind = rand() < 0.8 ? "bar" : (hostile(rand) as string);
      const label = labeller(rand);
      const values: unknown[] = [];
      pushDecision(values, bar, kind, orders, cancels);
      const expected = decisionRecord(
        label(bar),
        bar,
        kind,
        null,
        orders.map(orderSummary),
        cancels,
        [],
        [],
      );
      expect(decisionAt(values, 0, label)).toBe(JSON.stringify(expected));
    }
  });
});

describe("RecordLog with lines made field by field", () => {
  it("reads each line as JSON.stringify made it then, kept or not, whatever the order did since", () => {
    const rand = mulberry32(5);
    const label = (i: number) => `bar ${i}`;
    const log = new RecordLog();
    const expected: string[] = [];
    const orders: Order[] = [];
    for (let k = 0; k < 200; k++) {
      const order = hostileOrder(rand, k + 1);
      orders.push(order);
      const e = { type: "order_accepted", index: k, time: 0, order } as OrderEvent;
      expected.push(JSON.stringify(orderEventRecord(e, label(k))));
      pushOrderEvent(
        log.open((v, at) => orderEventAt(v, at, label)),
        e,
      );
    }
    // The engine moves orders on (side, status, reason, links): lines say what was true then.
    for (const o of orders) {
      o.side = "sell";
      o.status = "cancelled";
      o.reason = "moved on";
      o.ocoId = 99;
    }
    expect(log.line(3, true)).toBe(expected[3]);
    expect([...log]).toEqual(expected);
  });
});
