import path from "node:path";
import { stripAttribution } from "../memory/attribution.js";
import { markdownFiles, readTextOrNull } from "../rundir/run-files.js";
import type { MemoryDiff } from "../rundir/schemas.js";

/**
 * Files of one memory directory (notes/ or reviews/) added in B, removed from A, or changed. The
 * attribution line ("written … by run <id>") is left out of the comparison: it names the run, so
 * it differs between any two runs even when the agent wrote the same thing.
 */
export function diffMemoryDir(dirA: string, dirB: string, sub: "notes" | "reviews"): MemoryDiff {
  const a = new Set(markdownFiles(dirA, sub));
  const b = new Set(markdownFiles(dirB, sub));
  const diff: MemoryDiff = { added: [], removed: [], changed: [], unchanged: 0 };
  for (const f of b) if (!a.has(f)) diff.added.push(f);
  for (const f of a) {
    if (!b.has(f)) {
      diff.removed.push(f);
      continue;
    }
    if (content(dirA, f) === content(dirB, f)) diff.unchanged++;
    else diff.changed.push(f);
  }
  diff.changed.sort();
  return diff;
}

const content = (dir: string, rel: string) =>
  stripAttribution(readTextOrNull(path.join(dir, rel)) ?? "");
