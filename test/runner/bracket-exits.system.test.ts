import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cli, DATA, runArgs, runDirs, tempDir } from "../helpers/cli.js";

const work = tempDir();
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

interface OrderLine {
  event: string;
  bar: number;
  id?: number;
  orderId?: number;
  type?: string;
  size?: { kind: string; weight?: number };
  stopPrice?: number | null;
  limitPrice?: number | null;
  parentId?: number | null;
  price?: number;
  basis?: string;
  reason?: string | null;
}

describe("brackets closed by signals on GOOG", () => {
  it("every exit is at its own entry's leg price or at the open after the signal close", () => {
    const runs = path.join(work, "runs");
    const r = cli(
      runArgs(
        "test/fixtures/strategies/sma-bracket.ts",
        path.join(DATA, "GOOG.csv"),
        runs,
        "--quiet",
      ),
      work,
    );
    expect(r.status, r.stderr).toBe(0);
    const [dir] = runDirs(runs);
    const lines = fs
      .readFileSync(path.join(dir as string, "orders.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as OrderLine);
    const accepted = new Map<number, OrderLine>();
    const fills = new Map<number, OrderLine[]>();
    for (const l of lines) {
      if (l.event === "accepted") accepted.set(l.id as number, l);
      if (l.event === "fill")
        fills.set(l.orderId as number, [...(fills.get(l.orderId as number) ?? []), l]);
    }
    const opens = fs
      .readFileSync(path.join(DATA, "GOOG.csv"), "utf8")
      .trim()
      .split("\n")
      .slice(1)
      .map((row) => Number(row.split(",")[1]));
    const trades = fs
      .readFileSync(path.join(dir as string, "trades.csv"), "utf8")
      .trim()
      .split("\n")
      .slice(1)
      .map((row) => row.split(","))
      .filter((c) => c[15] === "false")
      .map((c) => ({ entry: Number(c[13]), exit: Number(c[14]), exitPrice: Number(c[7]) }));
    expect(trades.length).toBeGreaterThan(20);
    let byLeg = 0;
    let bySignal = 0;
    for (const t of trades) {
      const exit = accepted.get(t.exit) as OrderLine;
      const [fill] = fills.get(t.exit) ?? [];
      expect(fill?.price).toBe(t.exitPrice);
      if (exit.parentId !== null) {
        // A leg only ever closes units of the entry it was attached to, at its own price (or
        // at the open when the bar gapped through it).
        byLeg++;
        expect(exit.parentId, `trade exiting through order ${t.exit}`).toBe(t.entry);
        const legPrice = exit.type === "stop" ? exit.stopPrice : exit.limitPrice;
        if (fill?.basis === "gap") expect(t.exitPrice).toBe(opens[fill.bar]);
        else expect(t.exitPrice).toBe(legPrice);
      } else {
        // A signal close fills at the open of the bar after the signal.
        bySignal++;
        expect(exit.size).toEqual({ kind: "weight", weight: 0 });
        expect(fill?.bar).toBe((exit.bar as number) + 1);
        expect(t.exitPrice).toBe(opens[fill?.bar as number]);
      }
    }
    expect(byLeg).toBeGreaterThan(0);
    expect(bySignal).toBeGreaterThan(0);
    // A leg is never left working on a position it no longer protects: its lot's close cancels it.
    const closedLegs = lines.filter(
      (l) => l.event === "cancelled" && l.reason?.startsWith("position closed"),
    );
    expect(closedLegs.length).toBeGreaterThan(0);
  });
});
