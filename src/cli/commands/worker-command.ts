import type { Command } from "commander";
import { QUEUE_SETTINGS } from "../../config/queue-settings.js";
import { addSettingOptions } from "../run-options.js";

// Only commander and the settings at import time: BullMQ loads in the action.

const EXAMPLES = `
Examples:
  $ agenticbt worker --queue redis://127.0.0.1:6379 --concurrency 4
  $ agenticbt worker --queue rediss://agenticbt:secret@redis.internal:6380/2

Takes the jobs of \`agenticbt sweep --queue\` from Redis and runs them, each in a worker thread,
until stopped (Ctrl-C, SIGTERM: the jobs under way finish first). Run it on every machine that has
the project and the sweep's data and strategy files at the same paths: each job carries their
sha256, and a worker whose files differ fails the job, naming the file and both hashes.
A worker killed mid-job leaves its job to another after --lock-ms. See docs/scale-out.md.`;

export function registerWorkerCommand(program: Command): void {
  const worker = program
    .command("worker")
    .description("Run the jobs of sweeps started with --queue, from their Redis queue");
  addSettingOptions(worker, QUEUE_SETTINGS);
  worker.addHelpText("after", EXAMPLES).action(async (opts: Record<string, unknown>) => {
    const { workerCommand } = await import("../worker-run-command.js");
    process.exitCode = await workerCommand(opts);
  });
}
