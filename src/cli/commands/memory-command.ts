import type { Command } from "commander";
import { registerMemoryPolicyCommand } from "./memory-policy-command.js";

/** `agenticbt memory …`: commands over runs' memory. Returns the group, for more subcommands. */
export function registerMemoryCommand(program: Command): Command {
  const memory = program.command("memory").description("Commands over runs' memory");
  registerMemoryPolicyCommand(memory);
  return memory;
}
