import path from "node:path";
import { PLAYBOOK_FILE } from "../memory/memory-layout.js";
import { readTextOrNull } from "../rundir/run-files.js";
import { readConfig, readResult } from "../rundir/run-record.js";
import type { DiffOutput } from "../rundir/schemas.js";
import { diffConfig } from "./config-diff.js";
import { readDecisions } from "./decision-lines.js";
import { firstDivergence } from "./divergence.js";
import { journalStats } from "./journal-stats.js";
import { diffMemoryDir } from "./memory-diff.js";
import { diffMetrics } from "./metrics-diff.js";
import { readPolicyHistory } from "./policy-history.js";
import { diffTrades, readTrades } from "./trade-diff.js";
import { unifiedDiff } from "./unified-diff.js";

/** `diff <runA> <runB>`: everything that differs between two run directories, A → B. */
export function diffRuns(dirA: string, dirB: string): DiffOutput {
  const ra = readResult(dirA);
  const rb = readResult(dirB);
  const playbook = (dir: string) => readTextOrNull(path.join(dir, PLAYBOOK_FILE)) ?? "";
  return {
    a: { id: ra.id, dir: dirA },
    b: { id: rb.id, dir: dirB },
    config: diffConfig(readConfig(dirA), readConfig(dirB)),
    metrics: diffMetrics(ra, rb),
    playbookDiff: unifiedDiff(playbook(dirA), playbook(dirB), {
      a: `${ra.id}/playbook.md`,
      b: `${rb.id}/playbook.md`,
    }),
    notes: diffMemoryDir(dirA, dirB, "notes"),
    reviews: diffMemoryDir(dirA, dirB, "reviews"),
    journal: { a: journalStats(dirA), b: journalStats(dirB) },
    trades: diffTrades(readTrades(dirA), readTrades(dirB)),
    divergence: firstDivergence(readDecisions(dirA), readDecisions(dirB)),
    policy: { a: readPolicyHistory(dirA), b: readPolicyHistory(dirB) },
  };
}
