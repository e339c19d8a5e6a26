import { RATE_WINDOW_MS } from "../../util/backoff.js";

export { RATE_WINDOW_MS };

/** How much one provider (base URL + model) may be asked, by every run of the process together. */
export interface ProviderLimits {
  /** Calls in flight at once (a call keeps its slot through its retries). */
  concurrency: number;
  /** Requests per minute; null: no limit. */
  rpm: number | null;
  /** Tokens per minute (prompt + completion, as billed); null: no limit. */
  tpm: number | null;
  /** The window rpm and tpm are counted over, in ms: 60000, or shorter for a provider that
   * enforces its minute in slices (1000: rpm/60 requests in any second). */
  windowMs: number;
}

/** Where the limits of processes on several machines are kept together: a Redis server, and a
 * namespace (the queue's name) so two queues on one server count apart. */
export interface LimiterStore {
  url: string;
  namespace: string;
}

/** The limiter's view of time: injected so that tests decide when it is. */
export interface LimiterClock {
  /** Milliseconds, epoch-based (pausedUntil is shown to users). */
  now(): number;
  /** Calls `fn` in `ms`; the returned function cancels it. */
  setTimer(ms: number, fn: () => void): () => void;
}

export const SYSTEM_CLOCK: LimiterClock = {
  now: () => Date.now(),
  setTimer(ms, fn) {
    const timer = setTimeout(fn, ms);
    return () => clearTimeout(timer);
  },
};

/** What a live view shows of a provider. */
export interface LimiterSnapshot {
  /** Calls holding a slot (in flight, or between the attempts of their retries). */
  inFlight: number;
  /** Calls waiting for a slot, or for room in the window, or for a pause to end. */
  waiting: number;
  /** Epoch ms until which a server's Retry-After holds every call back; null: not paused. */
  pausedUntil: number | null;
  /** Epoch ms since which the longest-waiting call has waited; null: none waits. */
  oldestWaitingSince: number | null;
}

/** One request sent in the window: counted from its start until windowMs after it ended. */
interface Sent {
  tokens: number;
  /** When its answer (or failure) came back; null while in flight. */
  endedAt: number | null;
}

/** An attempt allowed through: settle it when its answer (or failure) is back. */
export interface AdmittedRequest {
  /** `billedTokens`: what the provider billed (prompt + completion); null keeps the estimate. */
  settle(billedTokens: number | null): void;
}

/**
 * What a call needs of its provider's limiter: in this process (ProviderLimiter), or shared by
 * processes on several machines through Redis (RedisProviderLimiter).
 */
export interface ProviderRateLimiter {
  /** New limits (the latest run's settings): slots and waiters carry on under them. */
  setLimits(limits: ProviderLimits): void;
  readonly current: ProviderLimits;
  /** Waits for a call slot; the returned function gives it back (once). */
  acquireSlot(): Promise<() => void>;
  /** Waits until one request of about `estimatedTokens` fits in the window and no pause holds,
   * then counts it as sent. Rejects with the signal's reason when it is aborted first. */
  admit(estimatedTokens: number, signal?: AbortSignal): Promise<AdmittedRequest>;
  /** A server asked every caller to wait `ms` (Retry-After): nothing is sent before then. */
  pause(ms: number): void;
  snapshot(): LimiterSnapshot;
}

/** The most requests and tokens one window holds (rpm and tpm scaled to the window). */
export function windowCaps(limits: ProviderLimits): {
  requests: number | null;
  tokens: number | null;
} {
  const share = limits.windowMs / RATE_WINDOW_MS;
  return {
    requests: limits.rpm === null ? null : Math.max(1, Math.floor(limits.rpm * share)),
    tokens: limits.tpm === null ? null : Math.max(1, Math.floor(limits.tpm * share)),
  };
}

interface Waiter {
  since: number;
  tokens: number;
  resolve: () => void;
  reject: (err: unknown) => void;
  signal: AbortSignal | undefined;
  onAbort: () => void;
}

/**
 * Calls in flight, requests and tokens per window, and Retry-After pauses of one provider,
 * shared by every run that calls it. A request counts from the moment it is sent until a full
 * window after its answer came back: the server saw it somewhere in between, so the count never
 * falls below what the server's own window holds, however late the request reached it. Waiters
 * are served first come, first served (a large request is not passed over by small ones).
 */
export class ProviderLimiter implements ProviderRateLimiter {
  private limits: ProviderLimits;
  private active = 0;
  private readonly slotWaiters: { since: number; resolve: () => void }[] = [];
  private readonly rateWaiters: Waiter[] = [];
  private readonly sent: Sent[] = [];
  private pausedUntil = 0;
  private cancelTimer: (() => void) | null = null;
  private timerAt = Number.POSITIVE_INFINITY;

  constructor(
    limits: ProviderLimits,
    private readonly clock: LimiterClock = SYSTEM_CLOCK,
  ) {
    this.limits = checkLimits(limits);
  }

  /** New limits (the latest run's settings): slots and waiters carry on under them. */
  setLimits(limits: ProviderLimits): void {
    this.limits = checkLimits(limits);
    while (this.active < this.limits.concurrency && this.slotWaiters.length > 0) {
      this.active += 1;
      this.slotWaiters.shift()?.resolve();
    }
    this.pump();
  }

  get current(): ProviderLimits {
    return this.limits;
  }

  /** Waits for a call slot; the returned function gives it back (once). */
  async acquireSlot(): Promise<() => void> {
    if (this.active < this.limits.concurrency) this.active += 1;
    // The slot is handed over directly by release, so a newcomer never slips in between.
    else
      await new Promise<void>((resolve) =>
        this.slotWaiters.push({ since: this.clock.now(), resolve }),
      );
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.active <= this.limits.concurrency ? this.slotWaiters.shift() : undefined;
      if (next) next.resolve();
      else this.active -= 1;
    };
  }

  /**
   * Waits until one request of about `estimatedTokens` fits in the window and no pause holds,
   * then counts it as sent. Rejects with the signal's reason when it is aborted first.
   */
  admit(estimatedTokens: number, signal?: AbortSignal): Promise<AdmittedRequest> {
    const tokens = Math.max(0, Math.ceil(estimatedTokens));
    return new Promise<AdmittedRequest>((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const waiter: Waiter = {
        since: this.clock.now(),
        tokens,
        signal,
        resolve: () => resolve(this.record(tokens)),
        reject,
        onAbort: () => {
          const at = this.rateWaiters.indexOf(waiter);
          if (at >= 0) this.rateWaiters.splice(at, 1);
          reject(signal?.reason);
          this.pump();
        },
      };
      signal?.addEventListener("abort", waiter.onAbort, { once: true });
      this.rateWaiters.push(waiter);
      this.pump();
    });
  }

  /** A server asked every caller to wait `ms` (Retry-After): nothing is sent before then. */
  pause(ms: number): void {
    const until = this.clock.now() + Math.max(0, ms);
    if (until > this.pausedUntil) this.pausedUntil = until;
    this.pump();
  }

  snapshot(): LimiterSnapshot {
    const now = this.clock.now();
    const since = [this.slotWaiters[0]?.since, this.rateWaiters[0]?.since].filter(
      (t): t is number => t !== undefined,
    );
    return {
      inFlight: this.active,
      waiting: this.slotWaiters.length + this.rateWaiters.length,
      pausedUntil: this.pausedUntil > now ? this.pausedUntil : null,
      oldestWaitingSince: since.length > 0 ? Math.min(...since) : null,
    };
  }

  private record(tokens: number): AdmittedRequest {
    const entry: Sent = { tokens, endedAt: null };
    this.sent.push(entry);
    return {
      settle: (billed) => {
        if (entry.endedAt !== null) return;
        entry.endedAt = this.clock.now();
        if (billed !== null && Number.isFinite(billed)) entry.tokens = Math.max(0, billed);
        this.pump();
      },
    };
  }

  /** Lets the waiters through that fit now, in order; sets a timer for the next that may. */
  private pump(): void {
    const now = this.clock.now();
    const { windowMs } = this.limits;
    for (let i = this.sent.length - 1; i >= 0; i--) {
      const s = this.sent[i] as Sent;
      if (s.endedAt !== null && s.endedAt + windowMs <= now) this.sent.splice(i, 1);
    }
    while (this.rateWaiters.length > 0) {
      if (this.pausedUntil > now) {
        this.wakeAt(this.pausedUntil);
        return;
      }
      const head = this.rateWaiters[0] as Waiter;
      if (!this.fits(head.tokens)) {
        // Room comes back when a finished request leaves the window (or an answer comes in,
        // which pumps again).
        let next = Number.POSITIVE_INFINITY;
        for (const s of this.sent)
          if (s.endedAt !== null) next = Math.min(next, s.endedAt + windowMs);
        if (Number.isFinite(next)) this.wakeAt(next);
        return;
      }
      this.rateWaiters.shift();
      head.signal?.removeEventListener("abort", head.onAbort);
      head.resolve();
    }
  }

  private fits(tokens: number): boolean {
    const caps = windowCaps(this.limits);
    if (caps.requests !== null && this.sent.length >= caps.requests) return false;
    if (caps.tokens !== null && this.sent.length > 0) {
      // A request larger than the whole window's tokens still goes, alone.
      const used = this.sent.reduce((n, s) => n + s.tokens, 0);
      if (used + tokens > caps.tokens) return false;
    }
    return true;
  }

  private wakeAt(at: number): void {
    if (this.cancelTimer !== null && this.timerAt <= at) return;
    this.cancelTimer?.();
    this.timerAt = at;
    this.cancelTimer = this.clock.setTimer(Math.max(0, at - this.clock.now()), () => {
      this.cancelTimer = null;
      this.timerAt = Number.POSITIVE_INFINITY;
      this.pump();
    });
  }
}

export function checkLimits(l: ProviderLimits): ProviderLimits {
  if (!Number.isInteger(l.concurrency) || l.concurrency < 1)
    throw new RangeError(`Concurrency must be a whole number of at least 1, got ${l.concurrency}.`);
  for (const [name, v] of [
    ["rpm", l.rpm],
    ["tpm", l.tpm],
  ] as const)
    if (v !== null && !(Number.isFinite(v) && v > 0))
      throw new RangeError(`${name} must be a positive number or null, got ${v}.`);
  if (!(Number.isFinite(l.windowMs) && l.windowMs > 0))
    throw new RangeError(`The rate window must be a positive number of ms, got ${l.windowMs}.`);
  return { ...l };
}

/** Every provider's limiter of this process, by base URL and model (and Redis store). */
const shared = new Map<string, { baseURL: string; model: string; limiter: ProviderRateLimiter }>();

/**
 * The limiter every run of this process shares for one provider (base URL + model). The run
 * that asks last sets its limits: the runs of an experiment give the same ones.
 */
export function sharedProviderLimiter(
  baseURL: string,
  model: string,
  limits: ProviderLimits,
): ProviderRateLimiter {
  return keptLimiter(
    `${baseURL}\n${model}`,
    baseURL,
    model,
    limits,
    () => new ProviderLimiter(limits),
  );
}

/**
 * The limiter kept under `key` for the whole process, made by `make` the first time; the one
 * asking last sets its limits. Every kept limiter is in the snapshots.
 */
export function keptLimiter(
  key: string,
  baseURL: string,
  model: string,
  limits: ProviderLimits,
  make: () => ProviderRateLimiter,
): ProviderRateLimiter {
  const known = shared.get(key);
  if (known) {
    known.limiter.setLimits(limits);
    return known.limiter;
  }
  const limiter = make();
  shared.set(key, { baseURL, model, limiter });
  return limiter;
}

/** Each provider's limiter now (for a live view of an experiment). */
export function providerLimiterSnapshots(): ({
  baseURL: string;
  model: string;
} & LimiterSnapshot)[] {
  return [...shared.values()].map(({ baseURL, model, limiter }) => ({
    baseURL,
    model,
    ...limiter.snapshot(),
  }));
}
