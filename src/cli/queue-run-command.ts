import path from "node:path";
import { checkSetting } from "../config/check-setting.js";
import { QUEUE_SETTINGS } from "../config/queue-settings.js";
import { UsageError } from "../errors/usage-error.js";
import { redactedUrl } from "../queue/connection.js";
import { cancelSweep, queueStatus, STATUS_STATES } from "../queue/queue-admin.js";
import { readExperimentConfig } from "../sweep/experiment/experiment-dir.js";
import { readSweepConfig } from "../sweep/sweep-dir.js";
import { sweepsRootOf } from "../sweep/sweep-layout.js";
import { findSweepDir } from "../sweep/sweep-list.js";
import { printReport, runsRootOf } from "./commands/runs-root.js";
import { settingValuesOf } from "./run-option-values.js";

/** `agenticbt queue status <url>`. */
export async function queueStatusCommand(url: string, o: Record<string, unknown>): Promise<number> {
  checkSetting(QUEUE_SETTINGS.queue, url, "<redis-url>");
  const status = await queueStatus(url);
  printReport(status, o.json === true, (s) => {
    const lines = [`Queue ${redactedUrl(url)}`];
    if (s.sweeps.length === 0) lines.push("No sweep has jobs here.");
    else {
      const width = Math.max(5, ...s.sweeps.map((x) => x.sweepId.length));
      lines.push(`${"sweep".padEnd(width)}  ${STATUS_STATES.map((k) => k.padStart(9)).join("  ")}`);
      for (const x of s.sweeps)
        lines.push(
          `${x.sweepId.padEnd(width)}  ${STATUS_STATES.map((k) => String(x.counts[k]).padStart(9)).join("  ")}`,
        );
    }
    lines.push(`Workers: ${s.workers.length}`);
    for (const w of s.workers)
      lines.push(`  ${w.name}  ${w.addr}  connected ${w.ageS} s, idle ${w.idleS} s`);
    return lines.join("\n");
  });
  return 0;
}

/** `agenticbt queue cancel <sweep>`. */
export async function queueCancelCommand(
  sweep: string,
  o: Record<string, unknown>,
): Promise<number> {
  const runsDir = typeof o.runsDir === "string" ? o.runsDir : undefined;
  const dir = findSweepDir(sweep, sweepsRootOf(runsRootOf(runsDir)));
  if (dir === null) throw new UsageError(`No sweep ${sweep}: pass its directory or id.`);
  // A code sweep's or an LLM experiment's: both are a flow parent on the queue.
  const config = readSweepConfig(dir) ?? readExperimentConfig(dir);
  const { queue } = settingValuesOf(QUEUE_SETTINGS, o);
  const url = queue ?? config?.queue ?? null;
  if (url === null || config === null)
    throw new UsageError(
      `${path.basename(dir)} did not run on a queue (its config.json names none): stop its process instead.`,
    );
  const { removed, underWay } = await cancelSweep(url, config.id);
  process.stdout.write(
    `Cancelled sweep ${config.id}: ${removed} job${removed === 1 ? "" : "s"} removed${underWay > 0 ? `, ${underWay} under way finish on their workers` : ""}. agenticbt resume ${config.id} queues what it lacks again.\n`,
  );
  return 0;
}
