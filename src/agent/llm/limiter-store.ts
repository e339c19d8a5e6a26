import { UsageError } from "../../errors/usage-error.js";
import {
  keptLimiter,
  type LimiterStore,
  type ProviderLimits,
  type ProviderRateLimiter,
  sharedProviderLimiter,
} from "./provider-limiter.js";

export type { LimiterStore };

/** The URL without its password, for a message. */
function redactUrl(url: string): string {
  return url.replace(/\/\/([^:@/]*):[^@/]*@/, "//$1:***@");
}

/** The environment variables that make every run of a process count its provider limits in
 * Redis (a queue's worker sets them for the runs it starts). */
export const LIMITER_STORE_ENV = {
  url: "AGENTICBT_LIMITS_REDIS",
  namespace: "AGENTICBT_LIMITS_QUEUE",
} as const;

export const DEFAULT_LIMITER_NAMESPACE = "agenticbt";

/** The environment that selects `store` (a worker sets it before it starts its runs' processes
 * or threads, which inherit it). */
export function limiterStoreEnv(store: LimiterStore): Record<string, string> {
  return { [LIMITER_STORE_ENV.url]: store.url, [LIMITER_STORE_ENV.namespace]: store.namespace };
}

/** The store the environment names; null (the default): limits are this process's own. */
export function limiterStoreFromEnv(
  env: Readonly<Record<string, string | undefined>>,
): LimiterStore | null {
  const url = env[LIMITER_STORE_ENV.url]?.trim();
  if (!url) return null;
  if (!/^rediss?:\/\/[^/]/.test(url))
    throw new UsageError(
      `${LIMITER_STORE_ENV.url} must be a Redis URL, redis://[user:pass@]host:port[/db] or rediss:// for TLS; got "${redactUrl(url)}". Unset it to keep each process's limits to itself.`,
    );
  const namespace = env[LIMITER_STORE_ENV.namespace]?.trim() || DEFAULT_LIMITER_NAMESPACE;
  return { url, namespace };
}

/**
 * The limiter every run of this process shares for one provider: this process's own without a
 * store (nothing changes, Redis is never loaded), or one counted in Redis with every other
 * process that uses the same store and namespace.
 */
export async function providerLimiterFor(
  store: LimiterStore | null,
  baseURL: string,
  model: string,
  limits: ProviderLimits,
): Promise<ProviderRateLimiter> {
  if (store === null) return sharedProviderLimiter(baseURL, model, limits);
  // Loaded only with a store: a run without one never loads ioredis.
  const { RedisProviderLimiter } = await import("./redis-provider-limiter.js");
  return keptLimiter(
    `${store.url}\n${store.namespace}\n${baseURL}\n${model}`,
    baseURL,
    model,
    limits,
    () => new RedisProviderLimiter(store, baseURL, model, limits),
  );
}
