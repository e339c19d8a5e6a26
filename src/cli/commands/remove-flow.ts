import { deleteRuns, RemoveRefusedError } from "../../report/remove-runs.js";
import type { RemovedRun, RemoveOutput } from "../../rundir/schemas.js";
import { escapeControl } from "../../util/terminal-text.js";
import { confirm } from "../confirm.js";
import { printReport } from "./runs-root.js";

export interface RemoveFlags {
  yes?: boolean;
  dryRun?: boolean;
  json?: boolean;
}

/** Where `rm` and `prune` ask; injectable so the prompt is testable without a terminal. */
export interface PromptIo {
  input: NodeJS.ReadableStream & { isTTY?: boolean };
  output: NodeJS.WritableStream;
}

const STDIO: PromptIo = { input: process.stdin, output: process.stderr };

/**
 * The end of `rm` and `prune`: lists the runs with `--dry-run`; otherwise asks on a terminal
 * unless `--yes` (without a terminal, `--yes` is required), deletes, and prints what went.
 */
export async function confirmAndDelete(
  runs: RemovedRun[],
  runsRoot: string,
  flags: RemoveFlags,
  io: PromptIo = STDIO,
): Promise<number> {
  const report = (out: RemoveOutput) => printReport(out, flags.json, formatRemoved);
  if (runs.length === 0 || flags.dryRun) {
    report({ runsRoot, dryRun: flags.dryRun === true, runs });
    return 0;
  }
  if (!flags.yes) {
    if (!io.input.isTTY) {
      throw new RemoveRefusedError(
        `Refusing to delete ${runs.length} run(s) without confirmation: stdin is not a terminal. Pass --yes to delete them (--dry-run lists them first).`,
      );
    }
    const names = runs.map((r) => r.id).join(", ");
    const ok = await confirm(
      escapeControl(`Delete ${runs.length} run(s) (${names})?`),
      io.input,
      io.output,
    );
    if (!ok) {
      report({ runsRoot, dryRun: false, runs: [] });
      return 0;
    }
  }
  const { deleted, skipped } = deleteRuns(runs, runsRoot);
  for (const why of skipped) process.stderr.write(`${escapeControl(`Skipped: ${why}`)}\n`);
  report({ runsRoot, dryRun: false, runs: deleted });
  return skipped.length ? 2 : 0;
}

function formatRemoved(out: RemoveOutput): string {
  if (out.runs.length === 0) return out.dryRun ? "No run matches." : "Nothing deleted.";
  const verb = out.dryRun ? "Would delete" : "Deleted";
  return [
    `${verb} ${out.runs.length} run(s) in ${out.runsRoot}:`,
    ...out.runs.map((r) => `  ${r.id}  ${r.status}`),
  ].join("\n");
}
