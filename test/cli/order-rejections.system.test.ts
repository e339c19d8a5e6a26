import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runResultSchema, showOutputSchema } from "../../src/rundir/schemas.js";
import { cli, DATA, ROOT, readJson, runArgs, runDirs, tempDir } from "../helpers/cli.js";

const work = tempDir();
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

const SHORT = "a negative target weight is a short; pass --allow-short to permit shorts";

interface Result {
  status: string;
  error: { type: string; message: string } | null;
  warnings: string[];
  orders: {
    submitted: number;
    filled: number;
    rejected: number;
    rejectReasons: { reason: string; count: number }[];
  };
}

const orderEvents = (dir: string) =>
  fs
    .readFileSync(path.join(dir, "orders.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { event: string; id: number; reason: string | null });

describe("rejected orders are reported", () => {
  it("a long/short run without --allow-short shows its order counts and warns with the reasons", () => {
    const runs = path.join(work, "runs-ls");
    const r = cli(
      [
        "run",
        path.join(ROOT, "strategies/sma-crossover.ts"),
        "--data",
        path.join(DATA, "SPY_D.csv"),
        "--param",
        "longShort=true",
        "--runs-dir",
        runs,
      ],
      work,
    );
    const [dir] = runDirs(runs);
    // Counted independently from orders.jsonl: one "accepted"/"rejected" line per order placed.
    const events = orderEvents(dir as string);
    const rejected = events.filter((e) => e.event === "rejected");
    const placed = new Set(
      events.filter((e) => e.event === "accepted" || e.event === "rejected").map((e) => e.id),
    );
    const filled = new Set(events.filter((e) => e.event === "fill").map((e) => e.id));
    const cancelled = events.filter((e) => e.event === "cancelled").length;
    expect(rejected.length).toBe(89);
    expect(rejected.every((e) => e.reason === SHORT)).toBe(true);
    // Some orders filled: the run did its job, with a loud warning (exit 0).
    expect(r.status, r.stderr).toBe(0);
    const result = readJson<Result>(path.join(dir as string, "result.json"));
    runResultSchema.parse(result);
    expect(result.status).toBe("completed");
    expect(result.orders.submitted).toBe(placed.size);
    expect(result.orders.filled).toBe(filled.size);
    expect(result.orders.rejected).toBe(89);
    expect(result.orders.rejectReasons).toEqual([{ reason: SHORT, count: 89, example: SHORT }]);
    const warning = `89 of ${placed.size} orders were rejected (${filled.size} filled). Top reasons:\n  89× ${SHORT}`;
    expect(result.warnings).toContain(warning);
    expect(r.stdout).toMatch(
      new RegExp(
        `^Orders: ${placed.size} submitted, ${filled.size} filled, 89 rejected, ${cancelled} cancelled, 0 expired$`,
        "m",
      ),
    );
    expect(r.stderr).toContain(`WARNING: ${warning}`);
    // `show` lists them too, from result.json.
    const show = cli(["show", dir as string], work);
    expect(show.status, show.stderr).toBe(0);
    expect(show.stdout).toContain(`89 rejected`);
    expect(show.stdout).toContain(`89× ${SHORT}`);
    const json = showOutputSchema.parse(
      JSON.parse(cli(["show", dir as string, "--json"], work).stdout),
    );
    expect(json.result).toMatchObject({ orders: { rejected: 89 } });
  }, 60_000);

  it("target weights the cash cannot buy one unit of are rejected as sizing to zero: the run fails, not completes quietly", () => {
    // GOOG never trades below 95.96 in the file: 40 of cash never buys a unit, long or short.
    const runs = path.join(work, "runs-zero-units");
    const r = cli(
      [
        "run",
        path.join(ROOT, "strategies/sma-crossover.ts"),
        "--data",
        path.join(DATA, "GOOG.csv"),
        "--cash",
        "40",
        "--param",
        "longShort=true",
        "--allow-short",
        "--runs-dir",
        runs,
        "--json",
      ],
      work,
    );
    expect(r.status, r.stderr).toBe(1);
    const [dir] = runDirs(runs);
    const events = orderEvents(dir as string);
    const placed = new Set(events.filter((e) => e.event === "accepted").map((e) => e.id));
    const rejected = events.filter((e) => e.event === "rejected");
    const zero = "the order sizes to zero units at this price and equity";
    expect(placed.size).toBeGreaterThan(10);
    expect(rejected.map((e) => e.id).sort((a, b) => a - b)).toEqual(
      [...placed].sort((a, b) => a - b),
    );
    expect(rejected.every((e) => e.reason === zero)).toBe(true);
    expect(events.some((e) => e.event === "cancelled")).toBe(false);
    const result = JSON.parse(r.stdout) as Result;
    expect(result.status).toBe("failed");
    expect(result.error?.type).toBe("AllOrdersRejected");
    expect(result.orders).toMatchObject({
      submitted: placed.size,
      filled: 0,
      rejected: placed.size,
    });
    expect(r.stderr).toContain(`${placed.size}× ${zero}`);
  }, 60_000);

  it("a run whose every order was rejected is not completed: it fails with the counts and reasons (exit 1)", () => {
    const runs = path.join(work, "runs-all-rejected");
    const r = cli(
      runArgs(
        "test/fixtures/strategies/shorts-only.ts",
        path.join(DATA, "GOOG.csv"),
        runs,
        "--json",
      ),
      work,
    );
    expect(r.status).toBe(1);
    const result = JSON.parse(r.stdout) as Result;
    const reason =
      "shorting is not allowed: this sell is larger than the position; pass --allow-short to permit shorts";
    expect(result.status).toBe("failed");
    expect(result.orders).toMatchObject({ submitted: 2, filled: 0, rejected: 2 });
    expect(result.error?.type).toBe("AllOrdersRejected");
    expect(result.error?.message).toContain(`2× ${reason}`);
    expect(result.warnings).toContain(
      `every order was rejected (2 of 2, none filled). Top reasons:\n  2× ${reason}`,
    );
    // --json keeps stdout for JSON; the error, with the counts, still goes to stderr.
    expect(r.stderr).toContain(
      "error: the run failed: AllOrdersRejected: every order was rejected (2 of 2, none filled)",
    );
  }, 60_000);

  it("a run with rejections and no fill fails like one whose every order was rejected (exit 1)", () => {
    // A billion units never fit the cash: each order is rejected at the next bar, but the one
    // placed at the last bar is still working when the data ends.
    const strategy = path.join(work, "huge-order.ts");
    fs.writeFileSync(
      strategy,
      'export default { name: "huge-order", onBar(ctx) { ctx.buy({ qty: 1e9 }); } };\n',
    );
    const runs = path.join(work, "runs-no-fill");
    const r = cli(
      ["run", strategy, "--data", path.join(DATA, "GOOG.csv"), "--runs-dir", runs, "--json"],
      work,
    );
    expect(r.status, r.stderr).toBe(1);
    const result = JSON.parse(r.stdout) as Result & { orders: { working: number } };
    const { submitted, rejected } = result.orders;
    expect(result.orders).toMatchObject({ filled: 0, working: 1 });
    expect(rejected).toBe(submitted - 1);
    expect(result.status).toBe("failed");
    expect(result.error?.type).toBe("AllOrdersRejected");
    const head = `no order filled: ${rejected} of ${submitted} orders were rejected, 1 still working at the end.`;
    expect(result.error?.message).toContain(head);
    expect(result.error?.message).toContain(
      `${rejected}× insufficient cash: the fill needs … and the account has …`,
    );
    expect(r.stderr).toContain(`error: the run failed: AllOrdersRejected: ${head}`);
    // The error carries the counts: no second WARNING repeats them.
    expect(r.stderr).not.toContain("WARNING");
  }, 60_000);
});
