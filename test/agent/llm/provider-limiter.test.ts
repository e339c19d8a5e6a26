import { describe, expect, it } from "vitest";
import {
  type AdmittedRequest,
  type LimiterClock,
  ProviderLimiter,
  type ProviderLimits,
} from "../../../src/agent/llm/provider-limiter.js";

/** A clock that moves only when the test says so, firing the timers that come due. */
class ManualClock implements LimiterClock {
  private t = 1_000_000;
  private timers: { at: number; fn: () => void }[] = [];
  now = () => this.t;
  setTimer(ms: number, fn: () => void): () => void {
    const timer = { at: this.t + ms, fn };
    this.timers.push(timer);
    return () => {
      this.timers = this.timers.filter((x) => x !== timer);
    };
  }
  /** Moves time on by `ms`, firing each timer at its own moment, then lets promises settle. */
  async advance(ms: number): Promise<void> {
    const end = this.t + ms;
    for (;;) {
      const due = this.timers.filter((x) => x.at <= end).sort((a, b) => a.at - b.at)[0];
      if (due === undefined) break;
      this.timers = this.timers.filter((x) => x !== due);
      this.t = Math.max(this.t, due.at);
      due.fn();
      await settle();
    }
    this.t = end;
    await settle();
  }
}

const settle = async () => {
  for (let i = 0; i < 10; i++) await Promise.resolve();
};

const limits = (l: Partial<ProviderLimits>): ProviderLimits => ({
  concurrency: 64,
  rpm: null,
  tpm: null,
  windowMs: 60_000,
  ...l,
});

/** Asks for `n` admissions of `tokens` each; records when each was let through. */
function ask(limiter: ProviderLimiter, clock: ManualClock, n: number, tokens = 0) {
  const at: (number | null)[] = Array.from({ length: n }, () => null);
  const tickets: (AdmittedRequest | null)[] = Array.from({ length: n }, () => null);
  for (let i = 0; i < n; i++)
    void limiter.admit(tokens).then((t) => {
      at[i] = clock.now();
      tickets[i] = t;
    });
  return { at, tickets };
}

describe("ProviderLimiter", () => {
  it("lets rpm requests through per minute, each counted until a minute after its answer", async () => {
    const clock = new ManualClock();
    const t0 = clock.now();
    const limiter = new ProviderLimiter(limits({ rpm: 3 }), clock);
    const { at, tickets } = ask(limiter, clock, 5);
    await settle();
    expect(at.map((t) => t === null)).toEqual([false, false, false, true, true]);
    // Answers come back 200 ms and 500 ms later: the window frees a minute after each.
    await clock.advance(200);
    tickets[0]?.settle(10);
    await clock.advance(300);
    tickets[1]?.settle(10);
    await clock.advance(59_699);
    expect(at[3]).toBeNull();
    await clock.advance(1);
    expect(at[3]).toBe(t0 + 200 + 60_000);
    expect(at[4]).toBeNull();
    await clock.advance(300);
    expect(at[4]).toBe(t0 + 500 + 60_000);
    expect(limiter.snapshot()).toEqual({
      inFlight: 0,
      waiting: 0,
      pausedUntil: null,
      oldestWaitingSince: null,
    });
  });

  it("never frees a slot of a request still in flight, however old", async () => {
    const clock = new ManualClock();
    const limiter = new ProviderLimiter(limits({ rpm: 1, windowMs: 1_000 }), clock);
    const { at, tickets } = ask(limiter, clock, 2);
    await clock.advance(5_000);
    expect(at[1]).toBeNull();
    tickets[0]?.settle(null);
    await clock.advance(999);
    expect(at[1]).toBeNull();
    await clock.advance(1);
    expect(at[1]).toBe(clock.now());
  });

  it("scales rpm to a shorter window: 60 a minute over 1 s is 1 in any second", async () => {
    const clock = new ManualClock();
    const t0 = clock.now();
    const limiter = new ProviderLimiter(limits({ rpm: 60, windowMs: 1_000 }), clock);
    const { at, tickets } = ask(limiter, clock, 3);
    await settle();
    expect(at).toEqual([t0, null, null]);
    await clock.advance(100);
    tickets[0]?.settle(1);
    await clock.advance(999);
    expect(at[1]).toBeNull();
    await clock.advance(1);
    await clock.advance(100);
    tickets[1]?.settle(1);
    await clock.advance(1_000);
    expect(at).toEqual([t0, t0 + 1_100, t0 + 2_200]);
  });

  it("counts tokens by the estimate, then by the bill, and lets a lone oversized request go", async () => {
    const clock = new ManualClock();
    const t0 = clock.now();
    const limiter = new ProviderLimiter(limits({ tpm: 1_000 }), clock);
    const first = ask(limiter, clock, 1, 600);
    await settle();
    expect(first.at[0]).toBe(t0);
    // 600 estimated + 500 > 1000: waits.
    const second = ask(limiter, clock, 1, 500);
    await settle();
    expect(second.at[0]).toBeNull();
    // The bill says 400: 400 + 500 fits, and the second goes at once.
    await clock.advance(10);
    first.tickets[0]?.settle(400);
    await settle();
    expect(second.at[0]).toBe(t0 + 10);
    // A request larger than the whole minute waits for an empty window, then goes alone.
    const huge = ask(limiter, clock, 1, 5_000);
    await clock.advance(20);
    second.tickets[0]?.settle(500);
    // The first request leaves the window at t0 + 10 + 60000, the second 20 ms later.
    await clock.advance(59_999);
    expect(huge.at[0]).toBeNull();
    await clock.advance(1);
    expect(huge.at[0]).toBe(t0 + 30 + 60_000);
  });

  it("serves waiters first come, first served: a small request does not pass a large one", async () => {
    const clock = new ManualClock();
    const limiter = new ProviderLimiter(limits({ tpm: 100 }), clock);
    const a = ask(limiter, clock, 1, 80);
    const b = ask(limiter, clock, 1, 50);
    const c = ask(limiter, clock, 1, 10);
    await settle();
    expect([a.at[0] !== null, b.at[0] !== null, c.at[0] !== null]).toEqual([true, false, false]);
    expect(limiter.snapshot().waiting).toBe(2);
  });

  it("holds every caller through a pause (Retry-After), then lets them go", async () => {
    const clock = new ManualClock();
    const t0 = clock.now();
    const limiter = new ProviderLimiter(limits({}), clock);
    limiter.pause(2_000);
    expect(limiter.snapshot().pausedUntil).toBe(t0 + 2_000);
    const { at } = ask(limiter, clock, 3);
    await clock.advance(1_000);
    // A shorter pause asked meanwhile does not cut the longer one.
    limiter.pause(500);
    await clock.advance(999);
    expect(at).toEqual([null, null, null]);
    expect(limiter.snapshot()).toMatchObject({ waiting: 3, oldestWaitingSince: t0 });
    await clock.advance(1);
    expect(at).toEqual([t0 + 2_000, t0 + 2_000, t0 + 2_000]);
    expect(limiter.snapshot()).toEqual({
      inFlight: 0,
      waiting: 0,
      pausedUntil: null,
      oldestWaitingSince: null,
    });
  });

  it("rejects a waiting admission when its signal aborts, and the next in line goes on", async () => {
    const clock = new ManualClock();
    const limiter = new ProviderLimiter(limits({ rpm: 1 }), clock);
    const held = ask(limiter, clock, 1);
    const stop = new AbortController();
    const aborted = limiter.admit(0, stop.signal);
    const after = ask(limiter, clock, 1);
    await settle();
    stop.abort(new Error("stopping"));
    await expect(aborted).rejects.toThrow("stopping");
    held.tickets[0]?.settle(0);
    await clock.advance(60_000);
    expect(after.at[0]).toBe(clock.now());
  });

  it("keeps at most `concurrency` slots, handed on in arrival order", async () => {
    const limiter = new ProviderLimiter(limits({ concurrency: 2 }), new ManualClock());
    const order: number[] = [];
    const releases: (() => void)[] = [];
    for (let i = 0; i < 4; i++)
      void limiter.acquireSlot().then((release) => {
        order.push(i);
        releases.push(release);
      });
    await settle();
    expect(order).toEqual([0, 1]);
    expect(limiter.snapshot()).toMatchObject({ inFlight: 2, waiting: 2 });
    releases[0]?.();
    releases[0]?.(); // twice is once
    await settle();
    expect(order).toEqual([0, 1, 2]);
    expect(limiter.snapshot()).toMatchObject({ inFlight: 2, waiting: 1 });
    // Raising the limit lets the next waiter in at once.
    limiter.setLimits(limits({ concurrency: 3 }));
    await settle();
    expect(order).toEqual([0, 1, 2, 3]);
  });

  it("refuses limits that make no sense", () => {
    expect(() => new ProviderLimiter(limits({ concurrency: 0 }))).toThrow(RangeError);
    expect(() => new ProviderLimiter(limits({ rpm: 0 }))).toThrow(RangeError);
    expect(() => new ProviderLimiter(limits({ windowMs: 0 }))).toThrow(RangeError);
  });
});
