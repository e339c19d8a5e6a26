import { DEFAULT_MEMORY_SYSTEM } from "../config/run-settings.js";
import type { MemorySystemEntry, MemorySystemFactory } from "./memory-system.js";
import { MEMORY_SYSTEMS } from "./systems/index.js";

/** The default of `--memory`: the files memory. */
export { DEFAULT_MEMORY_SYSTEM };

/** `--memory <name>` names no registered system: bad usage (exit code 2). */
export class UnknownMemorySystemError extends Error {
  override readonly name = "UnknownMemorySystemError";
}

export function memorySystemNames(): string[] {
  return MEMORY_SYSTEMS.map((f) => f.name);
}

/** A system's entry by name (its module not loaded); an unknown name lists the registered ones. */
export function memorySystemEntry(name: string): MemorySystemEntry {
  const found = MEMORY_SYSTEMS.find((f) => f.name === name);
  if (found === undefined) {
    const list = MEMORY_SYSTEMS.map((f) => `  ${f.name}: ${f.description}`).join("\n");
    throw new UnknownMemorySystemError(
      `--memory ${JSON.stringify(name)} is not a memory system. Use one of:\n${list}`,
    );
  }
  return found;
}

/** The factory of a system by name, its module loaded; an unknown name throws as above. */
export async function loadMemorySystem(name: string): Promise<MemorySystemFactory> {
  return memorySystemEntry(name).load();
}

/**
 * `--memory a,b,c`: the names, in order, each checked; duplicates and empty names are refused.
 * One name runs one backtest; several run one backtest per system and compare them.
 */
export function parseMemorySystems(arg: string): string[] {
  const names = arg.split(",").map((n) => n.trim());
  const seen = new Set<string>();
  for (const name of names) {
    if (name === "") {
      throw new UnknownMemorySystemError(
        `--memory ${JSON.stringify(arg)} has an empty name: write names separated by commas, e.g. files,layered.`,
      );
    }
    memorySystemEntry(name);
    if (seen.has(name)) {
      throw new UnknownMemorySystemError(`--memory names ${name} twice: name each system once.`);
    }
    seen.add(name);
  }
  return names;
}
