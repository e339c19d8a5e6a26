import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { flowLabel, layeredFlow } from "../../src/report/layered-flow.js";

const work = fs.mkdtempSync(path.join(os.tmpdir(), "agenticbt-flow-"));
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

const line = (o: Record<string, unknown>) => JSON.stringify(o);

describe("layered flow counted from layered.jsonl", () => {
  it("counts stores, reflections, moves by kind, triggers, and any other operation by name", () => {
    const dir = path.join(work, "run");
    fs.mkdirSync(dir);
    const log = [
      line({ seq: 1, op: "store", layer: "short", content: "a" }),
      line({ seq: 2, op: "store", layer: "short", content: "b" }),
      line({ seq: 3, op: "store", layer: "reflection", content: "r" }),
      line({
        seq: 4,
        op: "day_end",
        moves: [
          { id: 1, from: "short", to: "mid", why: "promote" },
          { id: 2, from: "short", to: null, why: "recency" },
        ],
        reflection: "days",
      }),
      line({ seq: 5, op: "duplicate", of: 3, content: "r again" }),
      // An operation this version does not know, with a move of a kind it does not know.
      line({ seq: 6, op: "compress", moves: [{ id: 7, from: "short", to: "mid", why: "merge" }] }),
      line({
        seq: 7,
        op: "day_end",
        moves: [{ id: 1, from: "mid", to: "short", why: "demote" }],
        reflection: "loss",
      }),
      line({ seq: 8, op: "day_end", moves: [], reflection: null }),
      "not json",
      "",
    ].join("\n");
    fs.writeFileSync(path.join(dir, "layered.jsonl"), log);
    expect(layeredFlow(dir)).toEqual({
      stores: 3,
      reflections: 1,
      promotions: 1,
      demotions: 1,
      removals: 1,
      "trigger:days": 1,
      "op:duplicate": 1,
      "op:compress": 1,
      "move:merge": 1,
      "trigger:loss": 1,
    });
    expect(["trigger:days", "op:compress", "move:merge", "promotions"].map(flowLabel)).toEqual([
      "reflection trigger: days",
      "compress operations",
      "moves: merge",
      "promotions",
    ]);
  });

  it("is null for a run without the log", () => {
    expect(layeredFlow(work)).toBeNull();
  });
});
