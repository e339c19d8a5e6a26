import { layeredMemoryFactory } from "../layered/layered-system.js";
import type { MemorySystemFactory } from "../memory-system.js";
import { filesMemoryFactory } from "./files-system.js";
import { persistentMemoryFactory } from "./persistent-system.js";

/**
 * Every memory system `--memory` can name, in the order help and `compare` list them. To add one:
 * write its factory in `./<name>-system.ts` and append it here.
 */
export const MEMORY_SYSTEMS: readonly MemorySystemFactory[] = [
  filesMemoryFactory,
  layeredMemoryFactory,
  persistentMemoryFactory,
];
