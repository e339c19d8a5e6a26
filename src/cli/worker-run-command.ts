import { QUEUE_SETTINGS } from "../config/queue-settings.js";
import { UsageError } from "../errors/usage-error.js";
import { redactedUrl } from "../queue/connection.js";
import { startQueueWorker } from "../queue/run-worker.js";
import { settingValuesOf } from "./run-option-values.js";
import { listenForStopSignals } from "./stop-signals.js";

/** `agenticbt worker --queue <url>`: runs jobs until a stop signal; returns the exit code. */
export async function workerCommand(o: Record<string, unknown>): Promise<number> {
  const s = settingValuesOf(QUEUE_SETTINGS, o);
  if (s.queue === null)
    throw new UsageError("No queue: pass --queue redis://host:port (the sweep's --queue).");
  const worker = await startQueueWorker({
    url: s.queue,
    concurrency: s.concurrency,
    lockMs: s.lockMs,
    runsDir: s.runsDir,
    onJob: (e) =>
      process.stderr.write(
        e.status === "completed" ? `job ${e.id} done\n` : `job ${e.id} failed: ${e.error}\n`,
      ),
  });
  process.stderr.write(
    `${worker.name} on ${redactedUrl(s.queue)}: ${s.concurrency} job${s.concurrency === 1 ? "" : "s"} at once\n`,
  );
  await new Promise<void>((resolve) => {
    const signals = listenForStopSignals(() => {
      signals.remove();
      process.stderr.write("Stopping: the jobs under way finish first.\n");
      resolve();
    });
  });
  await worker.close();
  return 0;
}
