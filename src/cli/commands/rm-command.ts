import type { Command } from "commander";
import type { RemoveFlags } from "./remove-flow.js";
import { addRemoveOptions } from "./remove-options.js";
import { runsRootOf } from "./runs-root.js";

// Only commander's types and path helpers at import time; the action loads the rest.

export interface RmOptions extends RemoveFlags {
  runsDir?: string;
}

const EXAMPLES = `
Examples:
  $ agenticbt rm 20261122-073512
  $ agenticbt rm 20261122-0735 20261122-0801 --yes
  $ agenticbt rm .agenticbt/runs/<id> --dry-run --json

Each run is an id, a unique id prefix, or a run directory inside --runs-dir. A running run, a
symbolic link, or a directory outside the runs root is refused, and then nothing is deleted.
On a terminal rm asks first; otherwise it needs --yes.
Exit codes: 0 success (or declined), 2 bad usage (unknown or refused run, no --yes without a terminal).`;

/** `agenticbt rm`: returns the exit code; a refused run throws (exit code 2). */
export async function rmCommand(names: string[], o: RmOptions): Promise<number> {
  const [{ runsToRemove }, { confirmAndDelete }] = await Promise.all([
    import("../../report/remove-runs.js"),
    import("./remove-flow.js"),
  ]);
  const root = runsRootOf(o.runsDir);
  return confirmAndDelete(runsToRemove(names, root), root, o);
}

export function registerRmCommand(program: Command): void {
  const rm = program
    .command("rm")
    .description("Delete runs (never a running one); asks first unless --yes")
    .argument("<run...>", "run ids, unique id prefixes, or run directories");
  addRemoveOptions(rm)
    .addHelpText("after", EXAMPLES)
    .action(async (names: string[], opts: RmOptions) => {
      process.exitCode = await rmCommand(names, opts);
    });
}
