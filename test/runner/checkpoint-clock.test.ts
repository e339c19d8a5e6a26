import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { alignSeries } from "../../src/engine/align-series.js";
import { brokerConfig } from "../../src/engine/broker-config.js";
import { timeLabel } from "../../src/engine/calendar.js";
import { Checkpointer, MemoryTally, readCheckpoint } from "../../src/runner/checkpoint.js";
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

describe("a code run's checkpoints, at most one a second", () => {
  it("look at the clock every 128 bars while the second is not up, not at every bar", () => {
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
