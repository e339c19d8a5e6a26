import { Redis } from "ioredis";
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  BUDGET_LEASE_MS,
  budgetKeys,
  dropBudget,
  seedBudget,
  takePlace,
} from "../../src/queue/experiment-budget-store.js";
import { type LimiterRedis, startLimiterRedis } from "../helpers/redis-for-limiter.js";

// An experiment's --budget-usd in a real Redis, as workers on many machines ask it: each on its
// own connection, at once.

let redis: LimiterRedis;
const clients: Redis[] = [];

beforeAll(async () => {
  redis = await startLimiterRedis();
});

afterAll(async () => {
  for (const c of clients) c.disconnect();
  await redis?.close();
});

async function connect(): Promise<Redis> {
  const c = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: null });
  await c.connect();
  clients.push(c);
  return c;
}

/** One cell, its launch estimate $1 a run. */
const limit = (usd: number) => ({ usd, cellEstimates: [1] });
const run = (key: string) => ({ key, cell: 0 });

it("8 workers asking at once for a budget of 3.5 runs: exactly 3 start, the rest get one reason", async () => {
  const conns = await Promise.all(Array.from({ length: 8 }, connect));
  await seedBudget(conns[0] as Redis, "e-race", new Map());
  const got = await Promise.all(
    conns.map((c, k) => takePlace(c, "e-race", run(`c0-w0-r${k + 1}`), limit(3.5))),
  );
  const placed = got.filter((g) => "place" in g);
  const refused = got.flatMap((g) => ("refused" in g ? [g.refused] : []));
  expect(placed).toHaveLength(3);
  expect(new Set(refused)).toEqual(
    new Set([
      "$0.0000 spent plus ~$4.0000 for 3 run(s) in flight and the next would pass --budget-usd 3.5",
    ]),
  );
  // Once stopped, a run that would fit now (the others ended) is refused too, as locally.
  for (const g of placed) if ("place" in g) await g.place.settle(null);
  const late = await takePlace(conns[0] as Redis, "e-race", run("c0-w1-r1"), limit(3.5));
  expect(late).toEqual({ refused: refused[0] });
});

it("a run taken over keeps its place; a dead worker's lapsed place and a bill count as they should", async () => {
  const c = await connect();
  const id = "e-takeover";
  await seedBudget(c, id, new Map([["done-1", { cell: 0, network: 4, costUsd: 1 }]]));
  const first = await takePlace(c, id, run("a"), limit(3));
  expect("place" in first).toBe(true);
  // The same run again (its job taken over from a killed worker): its own place, not another.
  const again = await takePlace(c, id, run("a"), limit(3));
  expect("place" in again).toBe(true);
  // A place whose lease ran out (a worker killed long ago, its job never taken over) is free.
  const now = Date.now();
  await c.zadd(budgetKeys(id).running, now - BUDGET_LEASE_MS, "dead");
  // $1 spent + a in flight + b at the mean bill $1: 3, within 3.
  const b = await takePlace(c, id, run("b"), limit(3));
  if (!("place" in b)) throw new Error(`b refused: ${b.refused}`);
  expect(await c.zscore(budgetKeys(id).running, "dead")).toBeNull();
  // b ends billed $2: $3 spent, the cell's mean $1.5 for a in flight and the next: 6 passes 3.
  await b.place.settle({ cell: 0, network: 3, costUsd: 2 });
  expect(await c.zscore(budgetKeys(id).running, "b")).toBeNull();
  expect(await takePlace(c, id, run("c"), limit(3))).toEqual({
    refused:
      "$3.0000 spent plus ~$3.0000 for 1 run(s) in flight and the next would pass --budget-usd 3",
  });
  // A resume seeds again: the stop is cleared, the bills kept (b's not counted twice).
  await seedBudget(c, id, new Map([["done-1", { cell: 0, network: 4, costUsd: 1 }]]));
  expect(await c.hlen(budgetKeys(id).billed)).toBe(2);
  // The experiment over: its keys leave Redis, and a straggler is refused rather than unbudgeted.
  await dropBudget(c, id);
  expect(await c.keys(`agenticbt-budget:{${id}}*`)).toEqual([]);
  const straggler = await takePlace(c, id, run("d"), limit(3));
  expect("refused" in straggler && straggler.refused).toContain("no longer in the queue's Redis");
});
