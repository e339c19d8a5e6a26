import { createHash, randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import {
  type AdmittedRequest,
  checkLimits,
  type LimiterClock,
  type LimiterSnapshot,
  type LimiterStore,
  type ProviderLimits,
  type ProviderRateLimiter,
  SYSTEM_CLOCK,
  windowCaps,
} from "./provider-limiter.js";

// Every script takes `now` as ARGV[1]: empty for Redis's own clock (one clock for every machine),
// or a number (tests that decide when it is).
const NOW = `local now = tonumber(ARGV[1])
if not now then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
`;

/** KEYS: slots. ARGV: now, concurrency, id, leaseMs. A slot is a lease that its holder renews:
 * one of a killed process expires and is taken back here. Returns {0} or {2, ms to wait}. */
const ACQUIRE = `${NOW}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[2]) then
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[4]), ARGV[3])
  redis.call('PEXPIRE', KEYS[1], 2 * tonumber(ARGV[4]))
  return {0, 0}
end
local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return {2, math.max(1, tonumber(first[2]) - now)}
`;

/** KEYS: sent, paused. ARGV: now, max requests (empty: none), max tokens (empty: none), tokens,
 * member ("id#tokens"), ms an unanswered request is held (lease + window), key ttl ms.
 * `sent` scores each request with the time it leaves the window. Returns {0}, {1, ms paused}
 * or {2, ms until the next request leaves the window}. */
const ADMIT = `${NOW}
local paused = tonumber(redis.call('GET', KEYS[2]) or '0')
if paused > now then return {1, paused - now} end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local maxRequests = tonumber(ARGV[2])
local maxTokens = tonumber(ARGV[3])
local tokens = tonumber(ARGV[4])
local count = redis.call('ZCARD', KEYS[1])
local function nextOut()
  local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return math.max(1, tonumber(first[2]) - now)
end
if maxRequests and count >= maxRequests then return {2, nextOut()} end
if maxTokens and count > 0 then
  local used = 0
  for _, m in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
    used = used + tonumber(string.match(m, '#(%d+)$'))
  end
  if used + tokens > maxTokens then return {2, nextOut()} end
end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[6]), ARGV[5])
redis.call('PEXPIRE', KEYS[1], ARGV[7])
return {0, 0}
`;

/** KEYS: sent. ARGV: now, member sent, member answered (billed tokens), windowMs, key ttl ms.
 * The answer is in: the request leaves the window a full window from now. */
const SETTLE = `${NOW}
redis.call('ZREM', KEYS[1], ARGV[2])
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[4]), ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 0
`;

/** KEYS: slots, sent. ARGV: now, leaseMs, heldMs, key ttl ms, count of slots, slot ids...,
 * members in flight... Only entries still there are renewed (XX): one taken back stays gone. */
const RENEW = `${NOW}
local slots = tonumber(ARGV[5])
for i = 6, 5 + slots do
  redis.call('ZADD', KEYS[1], 'XX', now + tonumber(ARGV[2]), ARGV[i])
end
for i = 6 + slots, #ARGV do
  redis.call('ZADD', KEYS[2], 'XX', now + tonumber(ARGV[3]), ARGV[i])
end
redis.call('PEXPIRE', KEYS[1], 2 * tonumber(ARGV[2]))
redis.call('PEXPIRE', KEYS[2], ARGV[4])
return 0
`;

/** KEYS: paused. ARGV: now, ms. Pauses every process until now + ms (a later end wins). */
const PAUSE = `${NOW}
local untilAt = now + tonumber(ARGV[2])
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
if untilAt > current then
  redis.call('SET', KEYS[1], string.format('%d', untilAt), 'PX', tonumber(ARGV[2]) + 1000)
end
return 0
`;

/** KEYS: one sorted set. ARGV: now (unused), member. Gives a slot or a request's room back. */
const RELEASE = `redis.call('ZREM', KEYS[1], ARGV[2])
return 0
`;

export interface RedisLimiterOptions {
  /** How long a slot, or a request not yet answered, is held without its holder renewing it
   * (renewed every third of it): a killed process's slots come back after this. Default 30 s. */
  leaseMs?: number;
  /** How often a waiting call asks again: other processes give slots and room back without
   * telling. Default 100 ms. */
  pollMs?: number;
  /** Timers and waiting times of this process. */
  clock?: LimiterClock;
  /** The scripts' time; null (default): Redis's own clock, one clock for every machine. */
  scriptNow?: (() => number) | null;
  /** An open connection to use (tests); default one per store URL, opened when needed. */
  redis?: Redis;
}

export const DEFAULT_LEASE_MS = 30_000;
const DEFAULT_POLL_MS = 100;

interface SlotWaiter {
  id: string;
  since: number;
  resolve: () => void;
  reject: (err: unknown) => void;
}

interface RateWaiter {
  since: number;
  tokens: number;
  signal: AbortSignal | undefined;
  onAbort: () => void;
  resolve: (admitted: AdmittedRequest) => void;
  reject: (err: unknown) => void;
}

/**
 * A provider's limiter counted in Redis, so that the processes of every machine calling one
 * provider keep its limits together: calls in flight (slots leased, renewed while held), requests
 * and tokens in the window (counted as the in-process limiter counts them: from the moment a
 * request is sent until a window after its answer), and a Retry-After pause every process
 * honours. Each check-and-take is one Lua script, so two processes never take the same room.
 * Waiters of one process go first come, first served; across processes, whoever asks first
 * after room comes back.
 */
export class RedisProviderLimiter implements ProviderRateLimiter {
  private limits: ProviderLimits;
  private readonly keys: { slots: string; sent: string; paused: string };
  private readonly leaseMs: number;
  private readonly pollMs: number;
  private readonly clock: LimiterClock;
  private readonly scriptNow: (() => number) | null;
  private readonly connection: Connection;
  private readonly held = new Set<string>();
  /** Requests sent and not answered yet: id → member. */
  private readonly unanswered = new Map<string, string>();
  private readonly slotWaiters: SlotWaiter[] = [];
  private readonly rateWaiters: RateWaiter[] = [];
  private pausedUntil = 0;
  private slotLoop: Promise<void> | null = null;
  private rateLoop: Promise<void> | null = null;
  private readonly naps = new Set<() => void>();
  private stopRenewing: (() => void) | null = null;
  private pinned = false;

  constructor(
    store: LimiterStore,
    baseURL: string,
    model: string,
    limits: ProviderLimits,
    options: RedisLimiterOptions = {},
  ) {
    this.limits = checkLimits(limits);
    const provider = createHash("sha256").update(`${baseURL}\n${model}`).digest("hex").slice(0, 16);
    // One hash tag: a cluster keeps a provider's keys on one node, as the scripts need.
    const prefix = `agenticbt:limits:{${store.namespace}:${provider}}`;
    this.keys = { slots: `${prefix}:slots`, sent: `${prefix}:sent`, paused: `${prefix}:paused` };
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.pollMs = options.pollMs ?? DEFAULT_POLL_MS;
    if (!(this.leaseMs >= 30 && this.pollMs > 0))
      throw new RangeError(
        `The lease must be at least 30 ms and the poll positive, got ${this.leaseMs} and ${this.pollMs}.`,
      );
    this.clock = options.clock ?? SYSTEM_CLOCK;
    this.scriptNow = options.scriptNow ?? null;
    this.connection = options.redis ? Connection.of(options.redis) : Connection.forUrl(store.url);
  }

  setLimits(limits: ProviderLimits): void {
    this.limits = checkLimits(limits);
    this.wake();
  }

  get current(): ProviderLimits {
    return this.limits;
  }

  async acquireSlot(): Promise<() => void> {
    const id = randomUUID();
    await new Promise<void>((resolve, reject) => {
      this.slotWaiters.push({ id, since: this.clock.now(), resolve, reject });
      this.runSlots();
    });
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.held.delete(id);
      this.afterChange();
      void this.script(RELEASE, [this.keys.slots], [id]).then(
        () => this.wake(),
        () => {
          // Not given back: its lease runs out instead.
        },
      );
    };
  }

  admit(estimatedTokens: number, signal?: AbortSignal): Promise<AdmittedRequest> {
    const tokens = Math.max(0, Math.ceil(estimatedTokens));
    return new Promise<AdmittedRequest>((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const waiter: RateWaiter = {
        since: this.clock.now(),
        tokens,
        signal,
        resolve,
        reject,
        onAbort: () => {
          const at = this.rateWaiters.indexOf(waiter);
          if (at < 0) return;
          this.rateWaiters.splice(at, 1);
          reject(signal?.reason);
          this.afterChange();
          this.wake();
        },
      };
      signal?.addEventListener("abort", waiter.onAbort, { once: true });
      this.rateWaiters.push(waiter);
      this.runRate();
    });
  }

  pause(ms: number): void {
    const wait = Math.max(0, Math.ceil(ms));
    const until = this.clock.now() + wait;
    if (until > this.pausedUntil) this.pausedUntil = until;
    void this.script(PAUSE, [this.keys.paused], [String(wait)]).catch(() => {
      // This process still waits; the others learn of the pause from their own 429.
    });
  }

  /** This process's side: its slots, its waiters, the pause it knows of. */
  snapshot(): LimiterSnapshot {
    const now = this.clock.now();
    const since = [this.slotWaiters[0]?.since, this.rateWaiters[0]?.since].filter(
      (t): t is number => t !== undefined,
    );
    return {
      inFlight: this.held.size,
      waiting: this.slotWaiters.length + this.rateWaiters.length,
      pausedUntil: this.pausedUntil > now ? this.pausedUntil : null,
      oldestWaitingSince: since.length > 0 ? Math.min(...since) : null,
    };
  }

  private runSlots(): void {
    this.afterChange();
    this.slotLoop ??= this.serveSlots().finally(() => {
      this.slotLoop = null;
      this.afterChange();
      if (this.slotWaiters.length > 0) this.runSlots();
    });
  }

  private async serveSlots(): Promise<void> {
    for (let head = this.slotWaiters[0]; head; head = this.slotWaiters[0]) {
      let answer: [number, number];
      try {
        answer = await this.script(
          ACQUIRE,
          [this.keys.slots],
          [String(this.limits.concurrency), head.id, String(this.leaseMs)],
        );
      } catch (err) {
        for (const w of this.slotWaiters.splice(0)) w.reject(err);
        return;
      }
      if (answer[0] === 0) {
        this.slotWaiters.shift();
        this.held.add(head.id);
        this.afterChange();
        head.resolve();
      } else await this.nap(Math.min(answer[1], this.pollMs));
    }
  }

  private runRate(): void {
    this.afterChange();
    this.rateLoop ??= this.serveRate().finally(() => {
      this.rateLoop = null;
      this.afterChange();
      if (this.rateWaiters.length > 0) this.runRate();
    });
  }

  private async serveRate(): Promise<void> {
    for (let head = this.rateWaiters[0]; head; head = this.rateWaiters[0]) {
      const localPause = this.pausedUntil - this.clock.now();
      if (localPause > 0) {
        await this.nap(localPause);
        continue;
      }
      const caps = windowCaps(this.limits);
      const id = randomUUID();
      const member = `${id}#${head.tokens}`;
      let answer: [number, number];
      try {
        answer = await this.script(
          ADMIT,
          [this.keys.sent, this.keys.paused],
          [
            caps.requests === null ? "" : String(caps.requests),
            caps.tokens === null ? "" : String(caps.tokens),
            String(head.tokens),
            member,
            String(this.heldMs()),
            String(this.ttlMs()),
          ],
        );
      } catch (err) {
        for (const w of this.rateWaiters.splice(0)) {
          w.signal?.removeEventListener("abort", w.onAbort);
          w.reject(err);
        }
        return;
      }
      if (answer[0] !== 0) {
        if (answer[0] === 1)
          this.pausedUntil = Math.max(this.pausedUntil, this.clock.now() + answer[1]);
        await this.nap(answer[0] === 1 ? answer[1] : Math.min(answer[1], this.pollMs));
        continue;
      }
      if (this.rateWaiters[0] !== head) {
        // Aborted while the script ran: it was never sent, so it gives its room back.
        await this.script(RELEASE, [this.keys.sent], [member]).catch(() => undefined);
        continue;
      }
      this.rateWaiters.shift();
      head.signal?.removeEventListener("abort", head.onAbort);
      this.unanswered.set(id, member);
      this.afterChange();
      head.resolve(this.admitted(id, member, head.tokens));
    }
  }

  private admitted(id: string, member: string, estimate: number): AdmittedRequest {
    let settled = false;
    return {
      settle: (billed) => {
        if (settled) return;
        settled = true;
        this.unanswered.delete(id);
        this.afterChange();
        const tokens =
          billed !== null && Number.isFinite(billed) ? Math.max(0, Math.ceil(billed)) : estimate;
        void this.script(
          SETTLE,
          [this.keys.sent],
          [member, `${id}#${tokens}`, String(this.limits.windowMs), String(this.ttlMs())],
        ).then(
          () => this.wake(),
          () => {
            // Still counted as unanswered: it leaves the window a lease later instead.
          },
        );
      },
    };
  }

  /** How long a request not answered yet stays counted without a renewal: if its process died,
   * the server may have answered it the moment before, so a full window on top of the lease. */
  private heldMs(): number {
    return this.leaseMs + this.limits.windowMs;
  }

  private ttlMs(): number {
    return this.heldMs() + 1_000;
  }

  /** Renews the leases while this process holds any, and keeps the connection while it works. */
  private afterChange(): void {
    const leases = this.held.size + this.unanswered.size;
    if (leases > 0 && this.stopRenewing === null) {
      this.stopRenewing = this.every(Math.max(10, Math.floor(this.leaseMs / 3)), () => {
        void this.renew().catch(() => {
          // Tried again at the next tick; the lease holds until then.
        });
      });
    } else if (leases === 0 && this.stopRenewing !== null) {
      this.stopRenewing();
      this.stopRenewing = null;
    }
    const busy =
      leases > 0 ||
      this.slotWaiters.length > 0 ||
      this.rateWaiters.length > 0 ||
      this.slotLoop !== null ||
      this.rateLoop !== null;
    if (busy !== this.pinned) {
      this.pinned = busy;
      if (busy) this.connection.pin();
      else this.connection.unpin();
    }
  }

  private async renew(): Promise<void> {
    const slots = [...this.held];
    const members = [...this.unanswered.values()];
    if (slots.length + members.length === 0) return;
    await this.script(
      RENEW,
      [this.keys.slots, this.keys.sent],
      [
        String(this.leaseMs),
        String(this.heldMs()),
        String(this.ttlMs()),
        String(slots.length),
        ...slots,
        ...members,
      ],
    );
  }

  private every(ms: number, fn: () => void): () => void {
    let cancel: () => void = () => undefined;
    const tick = () => {
      fn();
      cancel = this.clock.setTimer(ms, tick);
    };
    cancel = this.clock.setTimer(ms, tick);
    return () => cancel();
  }

  /** Waits `ms`, or less when this process gives something back. */
  private nap(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        this.naps.delete(done);
        cancel();
        resolve();
      };
      const cancel = this.clock.setTimer(Math.max(1, ms), done);
      this.naps.add(done);
    });
  }

  private wake(): void {
    for (const done of [...this.naps]) done();
  }

  private async script(lua: string, keys: string[], args: string[]): Promise<[number, number]> {
    const now = this.scriptNow === null ? "" : String(this.scriptNow());
    const redis = await this.connection.get();
    const answer = (await redis.eval(lua, keys.length, ...keys, now, ...args)) as
      | [number, number]
      | number;
    return Array.isArray(answer) ? [Number(answer[0]), Number(answer[1] ?? 0)] : [0, 0];
  }
}

/**
 * One Redis connection per URL for the whole process, open while a limiter works: it closes a
 * moment after the last one is idle, so a finished run's process can exit.
 */
class Connection {
  private static readonly byUrl = new Map<string, Connection>();
  private client: Promise<Redis> | null = null;
  private pins = 0;
  private closeTimer: NodeJS.Timeout | null = null;

  private constructor(
    private readonly url: string | null,
    given: Redis | null,
  ) {
    if (given) this.client = Promise.resolve(given);
  }

  static forUrl(url: string): Connection {
    let c = Connection.byUrl.get(url);
    if (!c) {
      c = new Connection(url, null);
      Connection.byUrl.set(url, c);
    }
    return c;
  }

  /** A connection the caller owns: never closed here. */
  static of(redis: Redis): Connection {
    return new Connection(null, redis);
  }

  get(): Promise<Redis> {
    if (this.client === null) {
      const url = this.url as string;
      this.client = import("ioredis").then(({ Redis }) => {
        // Commands wait through a reconnect (a restarted Redis) instead of failing the call.
        const redis = new Redis(url, { maxRetriesPerRequest: null });
        redis.on("error", () => {
          // ioredis reconnects by itself; calls wait for it.
        });
        return redis;
      });
    }
    // Used while no limiter works (a late release): closed again after it.
    if (this.pins === 0) this.closeSoon();
    return this.client;
  }

  pin(): void {
    this.pins += 1;
    if (this.closeTimer !== null) clearTimeout(this.closeTimer);
    this.closeTimer = null;
  }

  unpin(): void {
    this.pins -= 1;
    if (this.pins === 0) this.closeSoon();
  }

  private closeSoon(): void {
    if (this.url === null || this.client === null) return;
    if (this.closeTimer !== null) clearTimeout(this.closeTimer);
    this.closeTimer = setTimeout(() => {
      this.closeTimer = null;
      const client = this.client;
      this.client = null;
      void client?.then((r) => r.quit()).catch(() => undefined);
    }, 500);
    // The pending close must not keep the process alive by itself (the socket does until then).
    this.closeTimer.unref();
  }
}
