import path from "node:path";
import { LAYERED_LOG } from "../memory/layered/layered-config.js";
import { readTextOrNull } from "../rundir/run-files.js";
import { isJsonObject } from "../util/json-object.js";

/** The flow counts compare shows first, in this order; others follow as first seen. */
export const FLOW_KEYS = ["stores", "reflections", "promotions", "demotions", "removals"] as const;

/** How an operation of the log counts: the store and day-end operations are read for their
 * parts (layer, moves, reflection trigger); any other operation is counted by its name. */
const READ_FOR_PARTS = new Set(["store", "day_end"]);

/**
 * The layered memory's flow, counted from a run's layered.jsonl, or null when the run has none.
 * Read generically, so an operation this version does not know (a compression) is counted too:
 * `stores` (store operations), `reflections` (stores in the reflection layer), every move of any
 * operation by its kind (`promotions`, `demotions`; `removals` for a move out of the memory;
 * `merged` and `compressed` for one merged into a like memory or compressed into a summary,
 * `move:<why>` for another kind), `trigger:<kind>` for each reflection trigger, and `op:<name>`
 * for every other operation (`op:duplicate`, `op:compress`, …). Unreadable lines are skipped.
 */
export function layeredFlow(dir: string): Record<string, number> | null {
  const text = readTextOrNull(path.join(dir, LAYERED_LOG));
  if (text === null) return null;
  const counts: Record<string, number> = {};
  for (const key of FLOW_KEYS) counts[key] = 0;
  const add = (key: string, n = 1) => {
    counts[key] = (counts[key] ?? 0) + n;
  };
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    let op: unknown;
    try {
      op = JSON.parse(line);
    } catch {
      continue;
    }
    if (!isJsonObject(op)) continue;
    const name = String(op.op);
    if (name === "store") {
      add("stores");
      if (op.layer === "reflection") add("reflections");
    } else if (!READ_FOR_PARTS.has(name)) {
      add(`op:${name}`);
    }
    if (Array.isArray(op.moves)) {
      for (const m of op.moves) {
        if (!isJsonObject(m)) continue;
        // Out of the memory: merged into a like memory, compressed into a summary, or removed
        // (decayed, over capacity), as the system's own counts keep them apart.
        if (m.to === null)
          add(m.why === "duplicate" ? "merged" : m.why === "compress" ? "compressed" : "removals");
        else if (m.why === "promote") add("promotions");
        else if (m.why === "demote") add("demotions");
        else add(`move:${String(m.why)}`);
      }
    }
    if (typeof op.reflection === "string") add(`trigger:${op.reflection}`);
  }
  return counts;
}

/** A flow key as compare's table shows it. */
export function flowLabel(key: string): string {
  if (key.startsWith("trigger:")) return `reflection trigger: ${key.slice("trigger:".length)}`;
  if (key.startsWith("op:")) return `${key.slice("op:".length)} operations`;
  if (key.startsWith("move:")) return `moves: ${key.slice("move:".length)}`;
  return key;
}
