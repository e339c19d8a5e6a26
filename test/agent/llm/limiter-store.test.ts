import { describe, expect, it } from "vitest";
import {
  DEFAULT_LIMITER_NAMESPACE,
  LIMITER_STORE_ENV,
  limiterStoreEnv,
  limiterStoreFromEnv,
  providerLimiterFor,
} from "../../../src/agent/llm/limiter-store.js";
import {
  ProviderLimiter,
  type ProviderLimits,
  sharedProviderLimiter,
} from "../../../src/agent/llm/provider-limiter.js";
import { RedisProviderLimiter } from "../../../src/agent/llm/redis-provider-limiter.js";
import { UsageError } from "../../../src/errors/usage-error.js";

const LIMITS: ProviderLimits = { concurrency: 2, rpm: 60, tpm: null, windowMs: 1_000 };

describe("the provider limiter's store", () => {
  it("is none without the environment variable, or with it blank", () => {
    expect(limiterStoreFromEnv({})).toBeNull();
    expect(limiterStoreFromEnv({ [LIMITER_STORE_ENV.url]: "  " })).toBeNull();
  });

  it("reads the Redis URL and the namespace, the default namespace when it is not given", () => {
    expect(limiterStoreFromEnv({ [LIMITER_STORE_ENV.url]: "redis://h:1/2" })).toEqual({
      url: "redis://h:1/2",
      namespace: DEFAULT_LIMITER_NAMESPACE,
    });
    expect(
      limiterStoreFromEnv({
        [LIMITER_STORE_ENV.url]: "rediss://h:1",
        [LIMITER_STORE_ENV.namespace]: "q1",
      }),
    ).toEqual({ url: "rediss://h:1", namespace: "q1" });
    // What a worker sets is read back as the same store.
    const store = { url: "redis://u:p@h:6379/3", namespace: "sweeps" };
    expect(limiterStoreFromEnv(limiterStoreEnv(store))).toEqual(store);
  });

  it("refuses what is not a Redis URL, without showing a password", () => {
    const refusal = (url: string) => {
      try {
        limiterStoreFromEnv({ [LIMITER_STORE_ENV.url]: url });
      } catch (err) {
        return err;
      }
      return null;
    };
    for (const url of ["localhost:6379", "http://h:1", "redis://"])
      expect(refusal(url)).toBeInstanceOf(UsageError);
    const err = refusal("redis//u:secret@h:1");
    expect(err).toBeInstanceOf(UsageError);
    expect(String(err)).toContain("u:***@h:1");
    expect(String(err)).not.toContain("secret");
  });

  it("without a store, is the process's own limiter, the one every run shares", async () => {
    const limiter = await providerLimiterFor(null, "http://a/v1", "m", LIMITS);
    expect(limiter).toBeInstanceOf(ProviderLimiter);
    expect(limiter).toBe(sharedProviderLimiter("http://a/v1", "m", LIMITS));
  });

  it("with a store, is one Redis limiter per store, namespace and provider, taking the latest limits", async () => {
    // Nothing connects until a call asks (this test has no network).
    const store = { url: "redis://127.0.0.1:1", namespace: "q" };
    const a = await providerLimiterFor(store, "http://a/v1", "m", LIMITS);
    expect(a).toBeInstanceOf(RedisProviderLimiter);
    const again = await providerLimiterFor(store, "http://a/v1", "m", { ...LIMITS, rpm: 30 });
    expect(again).toBe(a);
    expect(a.current.rpm).toBe(30);
    expect(
      await providerLimiterFor({ ...store, namespace: "r" }, "http://a/v1", "m", LIMITS),
    ).not.toBe(a);
    expect(await providerLimiterFor(store, "http://a/v1", "n", LIMITS)).not.toBe(a);
    expect(a).not.toBe(sharedProviderLimiter("http://a/v1", "m", LIMITS));
  });
});
