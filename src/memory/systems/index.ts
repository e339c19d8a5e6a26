import { LAYERED_SYSTEM } from "../layered/layered-config.js";
import type { MemorySystemEntry } from "../memory-system.js";
import { PERSISTENT_SYSTEM } from "../persistent/persistent-config.js";
import { filesMemoryFactory } from "./files-system.js";
import { noMemoryFactory } from "./none-system.js";

/**
 * Every memory system `--memory` can name, in the order help and `compare` list them. To add one:
 * write its factory in `./<name>-system.ts` and append its entry here, its module imported in
 * `load()` (a run loads only the system it uses; the files memory is every run's default).
 */
export const MEMORY_SYSTEMS: readonly MemorySystemEntry[] = [
  {
    name: filesMemoryFactory.name,
    description: filesMemoryFactory.description,
    load: async () => filesMemoryFactory,
  },
  {
    ...LAYERED_SYSTEM,
    load: async () => (await import("../layered/layered-system.js")).layeredMemoryFactory,
  },
  {
    ...PERSISTENT_SYSTEM,
    load: async () => (await import("./persistent-system.js")).persistentMemoryFactory,
  },
  {
    name: noMemoryFactory.name,
    description: noMemoryFactory.description,
    load: async () => noMemoryFactory,
  },
];
