// Runs the built CLI with the report commands (list, show, diff) registered, for as long as
// src/cli.ts does not register them itself; then bin/agenticbt is used directly (see report-cli.ts).

import { registerDiffCommand } from "../../../dist/cli/commands/diff-command.js";
import { registerListCommand } from "../../../dist/cli/commands/list-command.js";
import { registerShowCommand } from "../../../dist/cli/commands/show-command.js";
import { buildProgram } from "../../../dist/cli.js";

const program = buildProgram();
const has = (name) => program.commands.some((c) => c.name() === name);
if (!has("list")) registerListCommand(program);
if (!has("show")) registerShowCommand(program);
if (!has("diff")) registerDiffCommand(program);
try {
  await program.parseAsync(process.argv);
} catch (err) {
  // As main() in src/cli.ts: commander's own errors (already printed) are usage errors.
  if (
    err &&
    typeof err === "object" &&
    "code" in err &&
    String(err.code).startsWith("commander.")
  ) {
    const ok = ["commander.helpDisplayed", "commander.version", "commander.help"];
    process.exitCode = ok.includes(err.code) ? 0 : 2;
  } else {
    process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = err && typeof err.exitCode === "number" ? err.exitCode : 1;
  }
}
