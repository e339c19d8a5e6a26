import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { alignSeries } from "../../src/engine/align-series.js";
import { brokerConfig } from "../../src/engine/broker-config.js";
import { timeLabel } from "../../src/engine/calendar.js";
import { Checkpointer, MemoryTally, readCheckpoint } from "../../src/rundir/checkpoint.js";
import { simulateSync } from "../../src/runner/simulate.js";
import type { Strategy } from "../../src/strategy/types.js";
import { series } from "../engine/helpers.js";
import { tempDir } from "../helpers/cli.js";

const BARS = 5000;
const t0 = Date.UTC(2024, 0, 2);
const data = alignSeries([
  series(
    "AAA",
    Array.from({ length: BARS }, (_, k) => [t0 + k * 60_000, 10, 10, 10, 10, 1] as const),
  ),
]);
const idle: Strategy<unknown> = { name: "idle", onBar() {} };

afterEach(() => {
  vi.restoreAllMocks();
});

describe("a code run's checkpoints, a minimum interval apart", () => {
  it("look at the clock every 128 bars while the interval is not up, not at every bar", () => {
    const dir = tempDir("abt-clock-");
    try {
      const checkpoint = new Checkpointer({
        dir,
        runId: "clock",
        every: 1000,
        // Never up during the test: only the first checkpoint (bar 0) is saved.
        minIntervalMs: 3_600_000,
        label: (i) => timeLabel(data.times[i] ?? 0, true),
        memory: new MemoryTally(),
        usage: () => null,
        transcript: null,
        expected: null,
      });
      const now = vi.spyOn(performance, "now");
      simulateSync({ data, broker: brokerConfig({}), strategy: idle, checkpoint });
      // Bars 1000…4999 wait for the interval: one look every 128 bars is 32 looks (a look a bar
      // was 4000); the run and the one save add a handful.
      expect(now.mock.calls.length).toBeLessThan(50);
      expect(checkpoint.saves).toBe(1);
      expect(readCheckpoint(dir)?.bar).toBe(0);
      expect(fs.existsSync(path.join(dir, "checkpoint.json"))).toBe(true);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("a checkpoint's digests of orders.jsonl and decisions.jsonl", () => {
  it("are sha256 over the lines as written, each ending in a newline, however they were hashed", () => {
    const dir = tempDir("abt-digest-");
    try {
      // 300 bars, a checkpoint after each: the last one covers every line, hashed piece by piece.
      const flip: Strategy<unknown> = {
        name: "flip",
        onBar(ctx) {
          if (ctx.index % 3 === 0) ctx.targetWeight(ctx.index % 2 === 0 ? 1 : -1);
        },
      };
      const bars = alignSeries([
        series(
          "AAA",
          Array.from(
            { length: 300 },
            (_, k) => [t0 + k * 60_000, 10 + (k % 7), 20, 5, 10 + (k % 5), 1] as const,
          ),
        ),
      ]);
      const checkpoint = new Checkpointer({
        dir,
        runId: "digest",
        every: 1,
        label: (i) => timeLabel(bars.times[i] ?? 0, true),
        memory: new MemoryTally(),
        usage: () => null,
        transcript: null,
        expected: null,
      });
      const out = simulateSync({
        data: bars,
        broker: brokerConfig({ allowShort: true }),
        strategy: flip,
        checkpoint,
      });
      const saved = readCheckpoint(dir);
      const sha = (lines: Iterable<string>) => {
        const h = createHash("sha256");
        for (const l of lines) h.update(`${l}\n`);
        return h.digest("hex");
      };
      expect(saved?.bar).toBe(299);
      expect(out.orderLog.length).toBe(200);
      expect(saved?.orderLines).toBe(out.orderLog.length);
      expect(saved?.decisionLines).toBe(out.decisionLog.length);
      expect(saved?.ordersSha256).toBe(sha(out.orderLog));
      expect(saved?.decisionsSha256).toBe(sha(out.decisionLog));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
