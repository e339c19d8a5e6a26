import type { Command } from "commander";
import { DISTILL_SETTINGS, DISTILL_TRANSCRIPT_FILE } from "../../config/memory-command-settings.js";
import { UsageError } from "../../errors/usage-error.js";
import type { DistillOutput } from "../../rundir/memory-command-schemas.js";
import { addSettingOptions, runsDirOption } from "../run-options.js";
import { registerMemoryPolicyCommand } from "./memory-policy-command.js";
import { printReport, runsRootOf } from "./runs-root.js";

// Only commander's types and the settings' descriptions at import time: the index, the store and
// zod are loaded by each action, so `agenticbt --help` stays fast.

export interface MemoryCommandOptions {
  runsDir?: string;
  json?: boolean;
}

export interface DistillCommandOptions extends MemoryCommandOptions {
  into: string;
  minRuns?: string;
  reviews?: string;
}

const REINDEX_EXAMPLES = `
Examples:
  $ agenticbt memory reindex 20261122-0735
  $ agenticbt memory reindex .agenticbt/runs/<id> --json

Rebuilds the run's recall index (index.sqlite) from its memory files: built beside it, the old
index kept as index.sqlite.bak, then renamed over it; embeddings are carried over from the old
index. A run still running is refused. The rebuilt index numbers its states by simulated time
(recall --as-of answers by time, not by the recorded write sequences: the backup keeps those).
Exit codes: 0 success, 2 bad usage (unknown run, a running run, a link in the run directory).`;

const DISTILL_EXAMPLES = `
Examples:
  $ agenticbt memory distill 20261122-0735 20261123-0900 --into spy-lessons
  $ agenticbt memory distill runA runB runC --into shared --min-runs 2 --reviews none
  $ agenticbt run strategies/rsi.md --data data/SPY_D.csv --memory persistent --memory-namespace spy-lessons

Builds (or adds to) the persistent store .agenticbt/memory/<namespace>/ from finished runs: each
playbook lesson (the same text in several runs is one entry) and each review becomes an entry,
with no model. With --model, the model reads the runs' lessons and reviews and answers the
entries (JSON: title, text, the runs each draws on), through the response cache, the store's
${DISTILL_TRANSCRIPT_FILE}, the budget and --replay; a bad answer is asked again (--answer-retries),
then the deterministic distillation is written, with a warning. Every entry records the period
its knowledge comes from; a run started before that period ends does not see it (the look-ahead
guard of --memory persistent).
  $ agenticbt memory distill runA runB --into shared --model gpt-4o-mini --temperature 0
  $ agenticbt memory distill runA runB --into shared2 --replay .agenticbt/memory/shared
Exit codes: 0 success, 1 the model cannot be reached (key, model name, URL), 2 bad usage
(unknown or running run, bad namespace or option, a replay that does not match).`;

/** `agenticbt memory reindex <run>`: returns the exit code; bad usage throws (exit code 2). */
export async function reindexCommand(run: string, o: MemoryCommandOptions): Promise<number> {
  const [{ resolveRunDir }, { reindexRun }] = await Promise.all([
    import("../../rundir/resolve-run.js"),
    import("../../report/reindex-run.js"),
  ]);
  const out = reindexRun(resolveRunDir(run, runsRootOf(o.runsDir)));
  printReport(out, o.json, (r) =>
    [
      `Reindexed ${r.run.id}: ${r.index.files} files, ${r.index.chunks} chunks` +
        (r.vectorsKept > 0 ? `, ${r.vectorsKept} vectors kept` : ""),
      ...r.index.errors.map((e) => `  unreadable: ${e}`),
      r.backup === null ? "No previous index." : `Previous index kept as ${r.backup}`,
    ].join("\n"),
  );
  return 0;
}

/** `agenticbt memory distill <runs…> --into <namespace>`. */
export async function distillCommand(runs: string[], o: DistillCommandOptions): Promise<number> {
  const [{ resolveRunDir }, { distillRuns }, { settingValuesOf }] = await Promise.all([
    import("../../rundir/resolve-run.js"),
    import("../../report/distill-runs.js"),
    import("../run-option-values.js"),
  ]);
  const s = settingValuesOf(DISTILL_SETTINGS, o as unknown as Record<string, unknown>);
  const root = runsRootOf(o.runsDir);
  const dirs = runs.map((r) => resolveRunDir(r, root));
  const options = { namespace: o.into, runsRoot: root, minRuns: s.minRuns, reviews: s.reviews };
  let out: DistillOutput;
  if (s.model === null && s.replay === null) {
    refuseModelSettings(s);
    out = distillRuns(dirs, options);
  } else {
    const { distillRunsWithModel } = await import("../../report/distill-model.js");
    out = await distillRunsWithModel(dirs, options, {
      ...s,
      onWarning: (m) => process.stderr.write(`warning: ${m}\n`),
    });
  }
  printReport(out, o.json, (r) =>
    [
      `Distilled ${r.runs.length} run(s) into ${r.store}` +
        (r.model === undefined
          ? ":"
          : r.model.fallback === null
            ? ` with ${r.model.name} (${callsText(r.model.calls)}):`
            : ` by the rules (${r.model.name} not used: see the warning):`),
      ...r.runs.map((x) => `  ${x.id}  ${x.period}  ${x.lessons} lessons, ${x.reviews} reviews`),
      `${r.entries.filter((e) => e.kind === "lesson").length} lesson entries, ` +
        `${r.entries.filter((e) => e.kind === "review").length} review entries` +
        (r.lessonsBelowMinRuns > 0
          ? r.model?.fallback === null
            ? `; ${r.lessonsBelowMinRuns} entries drawing on fewer runs than --min-runs left out`
            : `; ${r.lessonsBelowMinRuns} lessons learned by fewer runs than --min-runs left out`
          : ""),
      ...r.entries.map((e) => `  ${e.file}  (${e.period})`),
      ...(r.model?.transcript ? [`Model calls recorded in ${r.model.transcript}`] : []),
    ].join("\n"),
  );
  return 0;
}

/** The model's settings mean nothing without a model: given alone, they are bad usage. */
function refuseModelSettings(s: Record<string, unknown>): void {
  if (s.dateBy !== DISTILL_SETTINGS.dateBy.default) {
    throw new UsageError(
      `${DISTILL_SETTINGS.dateBy.flag} applies to a model's distillation: pass --model <name> too (without it each entry is dated by the runs whose lesson it is).`,
    );
  }
  for (const [key, setting] of Object.entries(DISTILL_SETTINGS)) {
    if (setting.group !== "agent" || setting.default !== null || s[key] === null) continue;
    throw new UsageError(
      `${setting.flag} applies to a model's distillation: pass --model <name> too (without it the distillation is deterministic).`,
    );
  }
}

const callsText = (c: { total: number; network: number; cache: number; replay: number }) =>
  `${c.total} call(s): ${c.network} network, ${c.cache} cache, ${c.replay} replay`;

/**
 * `agenticbt memory …`: one group, each subcommand added by its own function (another file may
 * add its own subcommands to the group it returns).
 */
export function registerMemoryCommand(program: Command): Command {
  const group = program
    .command("memory")
    .description(
      "Work on memory: rebuild a run's recall index, distil runs into a store, roll back a policy",
    );
  addReindexCommand(group);
  addDistillCommand(group);
  registerMemoryPolicyCommand(group);
  return group;
}

function addReindexCommand(group: Command): void {
  group
    .command("reindex")
    .description("Rebuild a run's recall index (index.sqlite) from its memory files, safely")
    .argument("<run>", "run directory, id, or unique id prefix")
    .addOption(runsDirOption())
    .option("--json", "print JSON on stdout")
    .addHelpText("after", REINDEX_EXAMPLES)
    .action(async (run: string, opts: MemoryCommandOptions) => {
      process.exitCode = await reindexCommand(run, opts);
    });
}

function addDistillCommand(group: Command): void {
  const command = group
    .command("distill")
    .description("Build a persistent store from finished runs' playbook lessons and reviews")
    .argument("<runs...>", "run directories, ids, or unique id prefixes")
    .requiredOption("--into <namespace>", "the persistent store .agenticbt/memory/<namespace>/");
  addSettingOptions(command, DISTILL_SETTINGS);
  command
    .addOption(runsDirOption())
    .option("--json", "print JSON on stdout")
    .addHelpText("after", DISTILL_EXAMPLES)
    .action(async (runs: string[], opts: DistillCommandOptions) => {
      process.exitCode = await distillCommand(runs, opts);
    });
}
