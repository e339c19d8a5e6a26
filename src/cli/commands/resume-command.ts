import type { Command } from "commander";
import { QUEUE_SETTINGS } from "../../config/queue-settings.js";
import { OUTPUT_SETTINGS, RUN_SETTINGS } from "../../config/run-settings.js";
import { addSettingOptions, addSomeRunOptions } from "../run-options.js";

// Only commander at import time: the runner is loaded by the action.

export interface ResumeOptions {
  runsDir?: string;
  json?: boolean;
  quiet?: boolean;
  ui?: boolean;
  metrics?: string;
  queue?: string;
}

const EXAMPLES = `
Examples:
  $ agenticbt resume 20261122-0735         # a run killed (kill -9, power cut) or interrupted
  $ agenticbt resume .agenticbt/runs/<id> --json

A code run goes on from its last checkpoint: the broker (orders, positions, cash), the curves
and records so far and the strategy's \`state\` are restored from .resume/, and only the bars
after the checkpoint are simulated. Where that state cannot be restored, the run re-executes
from the first bar (N s of work), and the output says so with the reason: a strategy whose
\`state\` is not plain JSON (a Map, a class instance, NaN...; indicator views are fine), one that
wrote memory, a memory system with its own state, and every LLM run (its agent is answered from
the run's transcript for every call it had made: no network, no cost; then it goes on as usual).
A re-execution must re-derive the checkpoint exactly. Data files and strategy must be unchanged
(sha256), and the strategy deterministic, with all its state in \`state\`. The result equals
that of an uninterrupted run; result.json records the resume under "resumed". See docs/resume.md.
Exit codes: 0 completed, 1 the run failed or was interrupted again, 2 cannot be resumed
(finished already, changed data or strategy, or the run diverged from the checkpoint).`;

export function registerResumeCommand(program: Command): void {
  const resume = program
    .command("resume")
    .description(
      "Continue a run (from its last checkpoint) or a sweep (its missing combinations) that was killed or interrupted",
    )
    .argument("<run>", "run or sweep directory, id, or unique id prefix");
  const { json, quiet, metrics, ui } = OUTPUT_SETTINGS;
  addSettingOptions(resume, { queue: QUEUE_SETTINGS.queue });
  addSomeRunOptions(resume, [RUN_SETTINGS.runsDir, json, quiet, metrics, ui]);
  resume.addHelpText("after", EXAMPLES).action(async (run: string, opts: ResumeOptions) => {
    // A sweep's directory or id: only the combinations its results.jsonl lacks run.
    const [{ findSweepDir }, { sweepsRootOf }, { runsRootOf }] = await Promise.all([
      import("../../sweep/sweep-list.js"),
      import("../../sweep/sweep-layout.js"),
      import("./runs-root.js"),
    ]);
    const sweepsRoot = sweepsRootOf(runsRootOf(opts.runsDir));
    // An LLM experiment: its missing runs, and those in flight from their checkpoints.
    const { findExperimentDir, resumeExperimentCommand } = await import("../experiment-command.js");
    const experiment = findExperimentDir(run, sweepsRoot);
    if (experiment !== null) {
      process.exitCode = await resumeExperimentCommand(experiment, { ...opts });
      return;
    }
    const sweep = findSweepDir(run, sweepsRoot);
    if (sweep !== null) {
      const { resumeSweepCommand } = await import("../sweep-run-command.js");
      process.exitCode = await resumeSweepCommand(sweep, { ...opts });
      return;
    }
    const { runCommand } = await import("../run-command.js");
    process.exitCode = await runCommand(undefined, { ...opts, resume: run });
  });
}
