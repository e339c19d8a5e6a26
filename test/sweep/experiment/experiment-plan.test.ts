import { describe, expect, it } from "vitest";
import { UsageError } from "../../../src/errors/usage-error.js";
import { validateNamespace } from "../../../src/memory/persistent/namespace.js";
import type { ExperimentConfig } from "../../../src/sweep/experiment/experiment-dir.js";
import {
  baselineCells,
  cellLabel,
  experimentCells,
  experimentRuns,
  parseWindows,
  planRuns,
  rollingWindows,
  runNamespace,
} from "../../../src/sweep/experiment/experiment-plan.js";
import { plannedRunConfig } from "../../../src/sweep/experiment/run-experiment.js";

describe("parseWindows", () => {
  it("reads from:to windows in order", () => {
    expect(parseWindows("2012-01-01:2012-06-30, 2012-07-01:2012-12-31")).toEqual([
      { from: "2012-01-01", to: "2012-06-30" },
      { from: "2012-07-01", to: "2012-12-31" },
    ]);
  });

  it.each([
    ["2012-01-01", "from:to"],
    ["2012-06-30:2012-01-01", "ends before it starts"],
    ["2012-01-01:2012-06-30,2012-01-01:2012-06-30", "twice"],
    ["2012-1-1:2012-06-30", "from:to"],
  ])("refuses %s", (arg, message) => {
    expect(() => parseWindows(arg)).toThrow(UsageError);
    expect(() => parseWindows(arg)).toThrow(message);
  });
});

describe("rollingWindows", () => {
  it("cuts consecutive months from the first day of the start's month, dropping a short tail", () => {
    expect(rollingWindows("rolling:6m", "2012-01-03", "2013-03-28")).toEqual([
      { from: "2012-01-03", to: "2012-06-30" },
      { from: "2012-07-01", to: "2012-12-31" },
    ]);
    expect(rollingWindows("rolling:1y", "2010-01-04", "2012-12-31")).toEqual([
      { from: "2010-01-04", to: "2010-12-31" },
      { from: "2011-01-01", to: "2011-12-31" },
      { from: "2012-01-01", to: "2012-12-31" },
    ]);
  });

  it("refuses a bad spec and a span shorter than one window", () => {
    expect(() => rollingWindows("rolling:0m", "2012-01-01", "2012-12-31")).toThrow(UsageError);
    expect(() => rollingWindows("rolling:6w", "2012-01-01", "2012-12-31")).toThrow("rolling:<n>m");
    expect(() => rollingWindows("rolling:2y", "2012-01-01", "2012-12-31")).toThrow(
      "shorter than one window",
    );
  });
});

describe("cells, runs and seeds", () => {
  const axes = [
    { name: "model", values: ["a", "b"] },
    { name: "memory", values: ["none", "files", "layered"] },
  ];
  const cells = experimentCells(axes);

  it("makes every combination, the last axis fastest", () => {
    expect(cells.map(cellLabel)).toEqual([
      "model=a memory=none",
      "model=a memory=files",
      "model=a memory=layered",
      "model=b memory=none",
      "model=b memory=files",
      "model=b memory=layered",
    ]);
    expect(cellLabel({})).toBe("all");
  });

  it("pairs each cell with none of the same other settings", () => {
    expect(baselineCells(cells)).toEqual([null, 0, 0, null, 3, 3]);
    expect(baselineCells(experimentCells([{ name: "model", values: ["a", "b"] }]))).toEqual([
      null,
      null,
    ]);
    expect(
      baselineCells(experimentCells([{ name: "memory", values: ["files", "layered"] }])),
    ).toEqual([null, null]);
  });

  it("gives every run its key, and each repeat its own seed shared across cells", () => {
    const windows = [
      { from: "2012-01-01", to: "2012-06-30" },
      { from: "2012-07-01", to: "2012-12-31" },
    ];
    const runs = planRuns(cells.length, windows, 3, 7);
    expect(runs).toHaveLength(6 * 2 * 3);
    expect(new Set(runs.map((r) => r.key)).size).toBe(runs.length);
    for (const r of runs) expect(r.seed).toBe(7 + r.repeat - 1);
    expect(new Set(runs.filter((r) => r.cell === 2).map((r) => r.seed))).toEqual(
      new Set([7, 8, 9]),
    );
    expect(runs[0]).toEqual({ key: "c0-w0-r1", cell: 0, window: 0, repeat: 1, seed: 7 });
  });

  it("names a valid persistent store per experiment, run and attempt", () => {
    const [run] = planRuns(1, [{ from: "2012-01-01", to: "2012-06-30" }], 1, 1);
    const a = runNamespace("20261127-144304-680-rsi-mean-reversion-fvv0", run!, 1);
    expect(validateNamespace(a)).toBe(a);
    expect(runNamespace("20261127-144304-680-rsi-mean-reversion-fvv0", run!, 2)).not.toBe(a);
    expect(runNamespace("another", run!, 1)).not.toBe(a);
  });
});

describe("plannedRunConfig", () => {
  const config = {
    kind: "experiment",
    id: "20261127-000000-000-x-abc0",
    name: "x",
    createdAt: "",
    axes: [{ name: "memory", values: ["files", "persistent"] }],
    cells: [
      {
        settings: { memory: "files" },
        run: { agent: { seed: null }, memory: { system: "files", config: null } },
      },
      {
        settings: { memory: "persistent" },
        run: {
          agent: { seed: null },
          memory: { system: "persistent", config: { namespace: "default" } },
        },
      },
    ],
    windows: [{ from: "2012-01-01", to: "2012-06-30" }],
    repeats: 2,
    seed: 5,
    jobs: 1,
    replayOf: null,
    total: 4,
  } as unknown as ExperimentConfig;
  const runs = planRuns(2, config.windows, 2, 5);

  it("sets the window, the name and the repeat's seed", () => {
    const c = plannedRunConfig(config, runs[1]!, 1);
    expect([c.from, c.to, c.name, c.agent?.seed]).toEqual([
      "2012-01-01",
      "2012-06-30",
      "x-c0-w0-r2",
      6,
    ]);
    expect(c.memory).toEqual({ system: "files", config: null });
  });

  it("gives a persistent run a store of its own per attempt", () => {
    const a = plannedRunConfig(config, runs[2]!, 1).memory?.config as { namespace: string };
    const b = plannedRunConfig(config, runs[2]!, 2).memory?.config as { namespace: string };
    const other = plannedRunConfig(config, runs[3]!, 1).memory?.config as { namespace: string };
    expect(a.namespace).toBe(runNamespace(config.id, runs[2]!, 1));
    expect(new Set([a.namespace, b.namespace, other.namespace, "default"]).size).toBe(4);
  });
});

describe("experimentRuns", () => {
  it("runs a code baseline cell once per window, as repeat 1, with the LLM cells' keys unchanged", () => {
    const windows = [
      { from: "2012-01-01", to: "2012-06-30" },
      { from: "2012-07-01", to: "2012-12-31" },
    ];
    const runs = experimentRuns({ cells: [{}, {}, { code: true }], windows, repeats: 3, seed: 5 });
    expect(runs).toHaveLength(2 * 2 * 3 + 2);
    expect(runs.filter((r) => r.cell === 2).map((r) => [r.key, r.seed])).toEqual([
      ["c2-w0-r1", 5],
      ["c2-w1-r1", 5],
    ]);
    expect(runs.filter((r) => r.cell < 2)).toEqual(planRuns(2, windows, 3, 5));
  });
});
