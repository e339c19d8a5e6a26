import type { Command } from "commander";
import { QUEUE_SETTINGS } from "../../config/queue-settings.js";
import { OUTPUT_SETTINGS, RUN_SETTINGS } from "../../config/run-settings.js";
import { addSettingOptions, addSomeRunOptions } from "../run-options.js";

// Only commander and the settings at import time: BullMQ loads in the actions.

const EXAMPLES = `
Examples:
  $ agenticbt queue status redis://127.0.0.1:6379
  $ agenticbt queue cancel 20261127-1652     # the sweep's queue is read from its config.json

status counts each sweep's jobs (waiting, including those delayed for a retry; active; completed;
failed) and lists the workers connected now. cancel removes a sweep's jobs that are not under way
(those under way finish on their workers); its coordinator stops, the sweep interrupted, and
\`agenticbt resume\` queues what it lacks again. See docs/scale-out.md.`;

export function registerQueueCommand(program: Command): void {
  const queue = program
    .command("queue")
    .description("The Redis job queue of sweeps run with --queue: status, cancel")
    .addHelpText("after", EXAMPLES);
  const status = queue
    .command("status")
    .description("Each sweep's jobs by state, and the workers seen")
    .argument("<redis-url>", "the queue's Redis, as --queue takes it");
  addSomeRunOptions(status, [OUTPUT_SETTINGS.json]);
  status.action(async (url: string, opts: Record<string, unknown>) => {
    const { queueStatusCommand } = await import("../queue-run-command.js");
    process.exitCode = await queueStatusCommand(url, opts);
  });
  const cancel = queue
    .command("cancel")
    .description("Remove a sweep's jobs that are not under way")
    .argument("<sweep>", "sweep directory, id, or unique id prefix");
  addSettingOptions(cancel, { queue: QUEUE_SETTINGS.queue });
  addSomeRunOptions(cancel, [RUN_SETTINGS.runsDir]);
  cancel.action(async (sweep: string, opts: Record<string, unknown>) => {
    const { queueCancelCommand } = await import("../queue-run-command.js");
    process.exitCode = await queueCancelCommand(sweep, opts);
  });
}
