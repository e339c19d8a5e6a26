import type { Command } from "commander";
import { runsDirOption } from "../run-options.js";

// Only commander's types at import time: `--help` loads none of the deletion code.

/** The options `rm` and `prune` share: asking, a dry run, where runs are, and JSON output. */
export function addRemoveOptions(command: Command): Command {
  return command
    .option("-y, --yes", "delete without asking (required when stdin is not a terminal)")
    .option("--dry-run", "list what would be deleted, delete nothing")
    .addOption(runsDirOption())
    .option("--json", "print the deleted runs as JSON on stdout");
}
