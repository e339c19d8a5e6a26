import { describe, expect, it } from "vitest";
import { redactedUrl } from "../../src/queue/connection.js";
import {
  canonicalJson,
  chunkSize,
  decodeEquity,
  type ExperimentJobData,
  encodeEquity,
  jobIdOf,
  type SweepJobData,
} from "../../src/queue/sweep-job.js";

const job = (over: Partial<SweepJobData> = {}): SweepJobData =>
  ({
    sweepId: "s1",
    run: { strategyPath: "/x/s.ts", data: [{ file: "/x/d.csv" }] },
    search: { grid: [{ name: "fast", values: [1, 2] }], constraint: null },
    data: [{ file: "/x/d.csv", sha256: "a".repeat(64) }],
    strategy: { file: "/x/s.ts", sha256: "b".repeat(64) },
    items: [{ index: 0, settings: { fast: 1 } }],
    ...over,
  }) as unknown as SweepJobData;

describe("a queue job's id", () => {
  it("is the same for the same settings whatever their keys' order", () => {
    const a = job();
    const b = JSON.parse(canonicalJson(a)) as SweepJobData;
    const reordered = Object.fromEntries(Object.entries(b).reverse()) as unknown as SweepJobData;
    expect(jobIdOf(reordered)).toBe(jobIdOf(a));
    expect(jobIdOf(a)).toMatch(/^[0-9a-f]{64}$/);
  });

  it("changes with the data's or the strategy's sha256, the combinations and the sweep", () => {
    const ids = new Set([
      jobIdOf(job()),
      jobIdOf(job({ data: [{ file: "/x/d.csv", sha256: "c".repeat(64) }] })),
      jobIdOf(job({ strategy: { file: "/x/s.ts", sha256: "d".repeat(64) } })),
      jobIdOf(job({ items: [{ index: 0, settings: { fast: 2 } }] })),
      jobIdOf(job({ sweepId: "s2" })),
    ]);
    expect(ids.size).toBe(5);
  });
});

it("cuts a sweep into about 32 jobs, from its size alone", () => {
  expect(chunkSize(1)).toBe(1);
  expect(chunkSize(32)).toBe(1);
  expect(chunkSize(175)).toBe(6);
  expect(Math.ceil(175 / chunkSize(175))).toBeLessThanOrEqual(32);
});

it("sends an equity curve exactly, NaN and -0 too", () => {
  const curve = new Float64Array([1e5, 100000.1, Number.NaN, -0, 1 / 3]);
  const back = decodeEquity(encodeEquity(curve));
  expect(back).not.toBeNull();
  expect(Array.from(back ?? [])).toEqual(Array.from(curve));
  expect(Object.is(back?.[3], -0)).toBe(true);
  expect(decodeEquity(encodeEquity(null))).toBeNull();
});

it("shows a queue URL without its password", () => {
  expect(redactedUrl("redis://u:secret@h:6379/2")).toBe("redis://u@h:6379/2");
  expect(redactedUrl("rediss://:secret@h:6380")).toBe("rediss://h:6380");
  expect(redactedUrl("redis://127.0.0.1:6379")).toBe("redis://127.0.0.1:6379");
});

describe("an LLM experiment run's job id", () => {
  const run = (over: Partial<ExperimentJobData> = {}): ExperimentJobData =>
    ({
      experimentId: "e1",
      run: { key: "c0-w0-r1", cell: 0, window: 0, repeat: 1, seed: 1 },
      config: {
        strategyPath: "/x/s.md",
        data: [{ file: "/x/d.csv" }],
        agent: { model: "m", seed: 1 },
      },
      data: [{ file: "/x/d.csv", sha256: "a".repeat(64) }],
      strategy: { file: "/x/s.md", sha256: "b".repeat(64) },
      ...over,
    }) as unknown as ExperimentJobData;

  it("is the same for the same run whatever its keys' order", () => {
    const a = run();
    const reordered = Object.fromEntries(
      Object.entries(JSON.parse(canonicalJson(a)) as object).reverse(),
    ) as unknown as ExperimentJobData;
    expect(jobIdOf(reordered)).toBe(jobIdOf(a));
  });

  it("changes with the run's config (its seed), the data's and strategy's sha256 and the experiment", () => {
    const base = run();
    const ids = new Set([
      jobIdOf(base),
      jobIdOf(
        run({ config: { ...base.config, agent: { ...base.config.agent, seed: 2 } } as never }),
      ),
      jobIdOf(run({ data: [{ file: "/x/d.csv", sha256: "c".repeat(64) }] })),
      jobIdOf(run({ strategy: { file: "/x/s.md", sha256: "d".repeat(64) } })),
      jobIdOf(run({ experimentId: "e2" })),
    ]);
    expect(ids.size).toBe(5);
  });
});
