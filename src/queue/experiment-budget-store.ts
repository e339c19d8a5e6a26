import type { Redis } from "ioredis";
import {
  type BilledRun,
  type BudgetLimit,
  budgetRefusal,
} from "../sweep/experiment/experiment-budget.js";
import type { PlannedRun } from "../sweep/experiment/experiment-plan.js";

// An experiment's `--budget-usd` across a queue's workers: the state the local experiment keeps
// in memory (the finished runs' bills, the runs in flight, whether it stopped) kept in Redis, and
// the decision made by the local experiment's own budgetRefusal inside WATCH/MULTI, so two
// workers asking at once never both take the last place (the loser's EXEC fails, it asks again).

/** A run in flight holds its place this long past its holder's last renewal: a killed worker's
 * place is freed after it, and the worker that takes its job over takes the same place. */
export const BUDGET_LEASE_MS = 30_000;
const RENEW_MS = BUDGET_LEASE_MS / 3;
/** Tries before a worker gives up asking (others kept changing the state under it): each try
 * one asker at least gets through, and a loser waits a few ms at random before it asks again. */
const MAX_TRIES = 200;
const RETRY_JITTER_MS = 20;

/** The experiment's keys: finished runs' bills by run key; runs in flight by run key, scored
 * with the end of their lease (Redis's clock), and their cells by run key; `seeded` and `stop`
 * (the first refusal's reason). */
export function budgetKeys(experimentId: string) {
  const p = `agenticbt-budget:{${experimentId}}`;
  return {
    billed: `${p}:billed`,
    running: `${p}:running`,
    cells: `${p}:cells`,
    state: `${p}:state`,
  };
}

/** Redis's clock in ms: one clock for every machine's leases. */
async function redisNow(redis: Redis): Promise<number> {
  const [s, us] = await redis.time();
  return Number(s) * 1000 + Math.floor(Number(us) / 1000);
}

/**
 * The coordinator, before it adds the jobs (again, on a resume): the finished runs' bills and a
 * cleared stop, so a resume asks afresh. Bills workers added for runs not yet recorded stay
 * (keyed by run, none counts twice), as do the places of runs still in flight.
 */
export async function seedBudget(
  redis: Redis,
  experimentId: string,
  billed: ReadonlyMap<string, BilledRun>,
): Promise<void> {
  const k = budgetKeys(experimentId);
  const tx = redis.multi();
  for (const [key, run] of billed) tx.hset(k.billed, key, JSON.stringify(run));
  tx.hdel(k.state, "stop");
  tx.hset(k.state, "seeded", "1");
  await tx.exec();
}

/** The experiment is over: its keys leave Redis. */
export async function dropBudget(redis: Redis, experimentId: string): Promise<void> {
  const k = budgetKeys(experimentId);
  await redis.del(k.billed, k.running, k.cells, k.state);
}

/** A run's place, freed (its job failed for good, so no worker will). */
export async function freePlace(redis: Redis, experimentId: string, key: string): Promise<void> {
  await redis.zrem(budgetKeys(experimentId).running, key);
}

/** A place taken for one run: renewed until `settle`, which records the run's bill and frees it. */
export interface BudgetPlace {
  settle(billed: BilledRun | null): Promise<void>;
}

/**
 * Asks to start run `key`: a place for it (renewed as it runs), or the reason it may not start.
 * A refusal stops the experiment's budget: every later run is refused with the same reason, as a
 * local experiment starts no run after its first refusal. A place this run held before (a job
 * taken over from a killed worker) is its own, not another run in flight.
 */
export async function takePlace(
  redis: Redis,
  experimentId: string,
  run: Pick<PlannedRun, "key" | "cell">,
  limit: BudgetLimit,
): Promise<{ place: BudgetPlace } | { refused: string }> {
  const k = budgetKeys(experimentId);
  const { key } = run;
  for (let t = 0; t < MAX_TRIES; t++) {
    await redis.watch(k.billed, k.running, k.state);
    const [state, bills, places, cells, now] = await Promise.all([
      redis.hgetall(k.state),
      redis.hvals(k.billed),
      redis.zrange(k.running, "0", "-1", "WITHSCORES"),
      redis.hgetall(k.cells),
      redisNow(redis),
    ]);
    if (state.seeded !== "1") {
      await redis.unwatch();
      return {
        refused: `its experiment's budget is no longer in the queue's Redis (its coordinator finished, or Redis lost it): run agenticbt resume <experiment>`,
      };
    }
    if (state.stop) {
      await redis.unwatch();
      return { refused: state.stop };
    }
    // The cells of the runs in flight (their leases current), this one's earlier place not.
    const running: number[] = [];
    for (let i = 0; i + 1 < places.length; i += 2) {
      const other = places[i];
      if (other === undefined || other === key || Number(places[i + 1]) <= now) continue;
      running.push(Number(cells[other] ?? Number.NaN));
    }
    const runs = bills.map((b) => JSON.parse(b) as BilledRun);
    const reason = budgetRefusal(limit, runs, running, run.cell);
    const tx = redis.multi();
    tx.zremrangebyscore(k.running, "-inf", now);
    if (reason === null) {
      tx.hset(k.cells, key, String(run.cell));
      tx.zadd(k.running, now + BUDGET_LEASE_MS, key);
    } else tx.hset(k.state, "stop", reason);
    // null: another worker changed the state between our read and our write: ask again.
    if ((await tx.exec()) === null) {
      await new Promise((r) => setTimeout(r, Math.random() * RETRY_JITTER_MS));
      continue;
    }
    if (reason !== null) return { refused: reason };
    return { place: holdPlace(redis, experimentId, key) };
  }
  throw new Error(
    `could not take a place under --budget-usd for ${key}: the experiment's budget state in Redis kept changing (${MAX_TRIES} tries)`,
  );
}

function holdPlace(redis: Redis, experimentId: string, key: string): BudgetPlace {
  const k = budgetKeys(experimentId);
  const timer = setInterval(() => {
    void redisNow(redis)
      // XX: a place already freed (its lease ran out) is not taken again behind the budget's back.
      .then((now) => redis.zadd(k.running, "XX", now + BUDGET_LEASE_MS, key))
      .catch(() => {});
  }, RENEW_MS);
  timer.unref();
  return {
    async settle(billed) {
      clearInterval(timer);
      const tx = redis.multi();
      if (billed !== null) tx.hset(k.billed, key, JSON.stringify(billed));
      tx.zrem(k.running, key);
      await tx.exec();
    },
  };
}
