import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LimiterClock, ProviderLimits } from "../../../src/agent/llm/provider-limiter.js";
import {
  type RedisLimiterOptions,
  RedisProviderLimiter,
} from "../../../src/agent/llm/redis-provider-limiter.js";
import { type LimiterRedis, startLimiterRedis } from "../../helpers/redis-for-limiter.js";

// The Redis limiter's scripts, two limiters standing for two processes (each with its own
// connection): what one takes, the other cannot. The scripts' time is the test's (`t`); waits
// between asks are real but short (poll 5 ms).

let server: LimiterRedis;
const connections: Redis[] = [];
let namespace = 0;
let t = 1_000_000;

beforeAll(async () => {
  server = await startLimiterRedis();
});
afterAll(async () => {
  for (const c of connections) c.disconnect();
  await server?.close();
});

const limits = (l: Partial<ProviderLimits>): ProviderLimits => ({
  concurrency: 64,
  rpm: null,
  tpm: null,
  windowMs: 60_000,
  ...l,
});

/** A clock whose timers never fire: a process that stopped (its leases are never renewed). */
const FROZEN: LimiterClock = { now: () => Date.now(), setTimer: () => () => undefined };

/** A limiter of one provider in namespace `ns`, as one process. */
function limiter(ns: number, l: ProviderLimits, options: RedisLimiterOptions = {}) {
  const redis = new Redis(server.url);
  connections.push(redis);
  return new RedisProviderLimiter(
    { url: server.url, namespace: `test-${ns}` },
    "http://provider/v1",
    "m",
    l,
    { redis, pollMs: 5, leaseMs: 10_000, scriptNow: () => t, ...options },
  );
}

/** `n` limiters of one provider in a fresh namespace, as `n` processes. */
function processes(n: number, l: ProviderLimits, options: RedisLimiterOptions = {}) {
  namespace += 1;
  return Array.from({ length: n }, () => limiter(namespace, l, options));
}

/** Whether the promise settles within `ms` (real time: a few polls). */
/** How long a call that should go through may take on a loaded machine (a "not yet" is checked
 * over the default 60 ms: a slow machine cannot make it pass wrongly). */
const SETTLES_MS = 3_000;

async function within<T>(p: Promise<T>, ms = 60): Promise<boolean> {
  const timeout = new Promise<false>((r) => setTimeout(() => r(false), ms));
  return Promise.race([p.then(() => true), timeout]);
}

describe("RedisProviderLimiter", () => {
  it("counts the requests of every process in one window, each until a window after its answer", async () => {
    const [a, b] = processes(2, limits({ rpm: 3 })) as [RedisProviderLimiter, RedisProviderLimiter];
    const first = await a.admit(0);
    await b.admit(0);
    await a.admit(0);
    const fourth = b.admit(0);
    expect(await within(fourth)).toBe(false);
    // The answer is in at t: the request still counts for a full window from now.
    first.settle(null);
    t += 59_999;
    expect(await within(fourth)).toBe(false);
    t += 1;
    expect(await within(fourth, SETTLES_MS)).toBe(true);
  });

  it("lets a process through when another's unanswered request leaves: lease + window", async () => {
    const [stopped] = processes(1, limits({ rpm: 1, windowMs: 1_000 }), {
      leaseMs: 5_000,
      clock: FROZEN,
    }) as [RedisProviderLimiter];
    const other = limiter(namespace, limits({ rpm: 1, windowMs: 1_000 }), { leaseMs: 5_000 });
    await stopped.admit(0);
    const next = other.admit(0);
    t += 5_999;
    expect(await within(next)).toBe(false);
    t += 1;
    expect(await within(next, SETTLES_MS)).toBe(true);
  });

  it("counts tokens across processes, the billed figure replacing the estimate", async () => {
    const [a, b] = processes(2, limits({ tpm: 1_000 })) as [
      RedisProviderLimiter,
      RedisProviderLimiter,
    ];
    const big = await a.admit(900);
    const small = b.admit(200);
    expect(await within(small)).toBe(false);
    // Billed 100: 900 of room again, and the waiting 200 goes.
    big.settle(100);
    expect(await within(small, SETTLES_MS)).toBe(true);
    const third = a.admit(800);
    expect(await within(third)).toBe(false);
    t += 60_000;
    expect(await within(third, SETTLES_MS)).toBe(true);
  });

  it("lets a request larger than the whole window go alone", async () => {
    const [a] = processes(1, limits({ tpm: 100 })) as [RedisProviderLimiter];
    expect(await within(a.admit(5_000))).toBe(true);
    expect(await within(a.admit(1))).toBe(false);
  });

  it("shares the call slots; a released slot goes to the waiting process", async () => {
    const [a, b] = processes(2, limits({ concurrency: 2 })) as [
      RedisProviderLimiter,
      RedisProviderLimiter,
    ];
    const release = await a.acquireSlot();
    await b.acquireSlot();
    const third = a.acquireSlot();
    const fourth = b.acquireSlot();
    expect(await within(third)).toBe(false);
    expect(a.snapshot()).toMatchObject({ inFlight: 1, waiting: 1 });
    release();
    // Twice: a slot is given back once.
    release();
    // One waiter gets the freed slot, whichever process asks first (no order across processes);
    // the other still waits, since the winner holds it.
    const got = await Promise.all([within(third, SETTLES_MS), within(fourth, SETTLES_MS)]);
    expect(got.filter(Boolean)).toHaveLength(1);
  });

  it("takes back the slot of a process that stopped renewing once its lease is over", async () => {
    const [stopped] = processes(1, limits({ concurrency: 1 }), {
      leaseMs: 2_000,
      clock: FROZEN,
    }) as [RedisProviderLimiter];
    const live = limiter(namespace, limits({ concurrency: 1 }), { leaseMs: 2_000 });
    await stopped.acquireSlot();
    const waiting = live.acquireSlot();
    t += 1_999;
    expect(await within(waiting)).toBe(false);
    t += 1;
    expect(await within(waiting, SETTLES_MS)).toBe(true);
  });

  it("keeps the slot of a process that renews its lease", async () => {
    // Real time here: the lease is renewed every third of it.
    const [holder, other] = processes(2, limits({ concurrency: 1 }), {
      leaseMs: 1_500,
      scriptNow: null,
    }) as [RedisProviderLimiter, RedisProviderLimiter];
    const release = await holder.acquireSlot();
    const waiting = other.acquireSlot();
    // Longer than a lease: a holder that did not renew would have lost the slot by then.
    expect(await within(waiting, 2_000)).toBe(false);
    release();
    expect(await within(waiting, SETTLES_MS)).toBe(true);
  });

  it("holds every process back for a Retry-After pause", async () => {
    const [a, b] = processes(2, limits({})) as [RedisProviderLimiter, RedisProviderLimiter];
    a.pause(2_000);
    // a knows at once; b learns it from Redis.
    expect(a.snapshot().pausedUntil).not.toBeNull();
    await new Promise((r) => setTimeout(r, 20));
    const held = b.admit(0);
    t += 1_999;
    expect(await within(held)).toBe(false);
    expect(b.snapshot().pausedUntil).not.toBeNull();
    t += 1;
    expect(await within(held, SETTLES_MS)).toBe(true);
  });

  it("rejects an aborted wait and gives its place up", async () => {
    const [a, b] = processes(2, limits({ rpm: 1 })) as [RedisProviderLimiter, RedisProviderLimiter];
    await a.admit(0);
    const controller = new AbortController();
    const aborted = b.admit(0, controller.signal);
    controller.abort(new Error("stopped"));
    await expect(aborted).rejects.toThrow("stopped");
    expect(b.snapshot().waiting).toBe(0);
    t += 70_000;
    // Room for one: it was not taken by the aborted request.
    expect(await within(a.admit(0))).toBe(true);
  });

  it("waits through a Redis restart, then goes on", async () => {
    const own = await startLimiterRedis();
    const a = new RedisProviderLimiter(
      { url: own.url, namespace: "restart" },
      "http://provider/v1",
      "m",
      limits({ concurrency: 1 }),
      { pollMs: 5 },
    );
    try {
      const release = await a.acquireSlot();
      release();
      const restarted = own.restart(1_000);
      await new Promise((r) => setTimeout(r, 200));
      // Asked while Redis is down: neither refused nor let through unchecked.
      const slot = a.acquireSlot();
      const admitted = a.admit(0);
      expect(await within(slot, 500)).toBe(false);
      await restarted;
      expect(await within(slot, 5_000)).toBe(true);
      expect(await within(admitted, 5_000)).toBe(true);
    } finally {
      await own.close();
    }
  });
});
