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
  const [{ runsToRemove, RemoveRefusedError }, { confirmAndDelete }, { sweepsToRemove }, layout] =
    await Promise.all([
      import("../../report/remove-runs.js"),
      import("./remove-flow.js"),
      import("../../sweep/sweep-list.js"),
      import("../../sweep/sweep-layout.js"),
    ]);
  const root = runsRootOf(o.runsDir);
  // Sweeps (.agenticbt/sweeps/<id>) are named as runs are; the other names are runs.
  const sweepsRoot = layout.sweepsRootOf(root);
  const { sweeps, rest, refused } = sweepsToRemove(names, sweepsRoot);
  if (refused.length)
    throw new RemoveRefusedError(`Nothing deleted.\n${refused.map((r) => `  ${r}`).join("\n")}`);
  const runs = rest.length > 0 || sweeps.length === 0 ? runsToRemove(rest, root) : [];
  let code = 0;
  if (rest.length > 0 || sweeps.length === 0) code = await confirmAndDelete(runs, root, o);
  if (sweeps.length > 0) code = Math.max(code, await confirmAndDelete(sweeps, sweepsRoot, o));
  return code;
}

export function registerRmCommand(program: Command): void {
  const rm = program
    .command("rm")
    .description("Delete runs or sweeps (never a running one); asks first unless --yes")
    .argument("<run...>", "run or sweep ids, unique id prefixes, or directories");
  addRemoveOptions(rm)
    .addHelpText("after", EXAMPLES)
    .action(async (names: string[], opts: RmOptions) => {
      process.exitCode = await rmCommand(names, opts);
    });
}
