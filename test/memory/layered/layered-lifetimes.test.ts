import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { resolveLayeredParams } from "../../../src/memory/layered/layered-config.js";
import {
  DEFAULT_LAYERED_PARAMS,
  type Layer,
  type LayeredParams,
  maintain,
  memoryLifetimeDays,
} from "../../../src/memory/layered/layered-math.js";
import { ROOT } from "../../helpers/cli.js";

/** Day ends on weekdays, the storing day being weekday `start` (0: Monday). */
const weekdays = (start: number) => (day: number) => (start + day) % 7 < 5;

/** `layers.mid.importanceDecay` 0.99 → {layers: {mid: {importanceDecay: 0.99}}}. */
function paramsOf(cell: string): LayeredParams {
  if (cell === "defaults") return DEFAULT_LAYERED_PARAMS;
  const m = /^`([\w.]+)` ([\d.]+)$/.exec(cell);
  if (m === null) throw new Error(`cannot read the parameters ${cell}`);
  const keys = (m[1] as string).split(".");
  const config: Record<string, unknown> = {};
  let at = config;
  for (const k of keys.slice(0, -1)) {
    const next: Record<string, unknown> = {};
    at[k] = next;
    at = next;
  }
  at[keys.at(-1) as string] = Number(m[2]);
  return resolveLayeredParams(config);
}

describe("layered lifetimes (docs/memory-layered.md)", () => {
  const doc = fs.readFileSync(path.join(ROOT, "docs", "memory-layered.md"), "utf8");
  const section = doc.slice(doc.indexOf("## Lifetimes"), doc.indexOf("## Moments"));
  const rows = section
    .split("\n")
    .filter((l) => /^\| (short|mid|long|reflection) \(/.test(l))
    .map((l) => l.split("|").map((c) => c.trim()));

  it("every figure of the table is what the maintenance gives", () => {
    expect(rows.length).toBeGreaterThanOrEqual(4);
    for (const [, memory, params, daily, weekday] of rows) {
      const [, layer, imp] = /^(\w+) \((\d+)\)$/.exec(memory as string) ?? [];
      const p = paramsOf(params as string);
      const life = (isDayEnd?: (d: number) => boolean) =>
        memoryLifetimeDays(layer as Layer, Number(imp), p, isDayEnd);
      expect(String(life()), `${memory} ${params}`).toBe(daily);
      const week = [0, 1, 2, 3, 4].map((s) => life(weekdays(s)) as number);
      expect(`${Math.min(...week)}–${Math.max(...week)}`, `${memory} ${params}`).toBe(weekday);
    }
  });

  it("the seed's long memory: in long 2 days, in mid 11, in short 9", () => {
    const p = resolveLayeredParams(undefined);
    const items = [
      {
        id: 1,
        layer: "long" as Layer,
        content: "",
        importance: 90,
        ageDays: 0,
        day: 0,
        created: 0,
        line: 1,
      },
    ];
    const moves: string[] = [];
    for (let day = 1; items.length > 0; day++) {
      for (const m of maintain(items, day, p)) moves.push(`${day}:${m.from}>${m.to ?? m.why}`);
    }
    expect(moves).toEqual(["2:long>mid", "13:mid>short", "22:short>recency"]);
  });
});
