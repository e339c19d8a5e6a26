import { describe, expect, it } from "vitest";
import { layeredMemoryFactory } from "../../src/memory/layered/layered-system.js";
import {
  loadMemorySystem,
  memorySystemEntry,
  memorySystemNames,
  UnknownMemorySystemError,
} from "../../src/memory/memory-registry.js";
import { filesMemoryFactory } from "../../src/memory/systems/files-system.js";
import { MEMORY_SYSTEMS } from "../../src/memory/systems/index.js";
import { persistentMemoryFactory } from "../../src/memory/systems/persistent-system.js";

describe("memory registry: entries known without their modules, factories loaded on use", () => {
  const factories = [filesMemoryFactory, layeredMemoryFactory, persistentMemoryFactory];

  it("lists every system in order, and each entry loads its own factory", async () => {
    expect(memorySystemNames()).toEqual(["files", "layered", "persistent", "none"]);
    for (const factory of factories) {
      expect(await loadMemorySystem(factory.name)).toBe(factory);
    }
  });

  it("an entry says what its factory says: name, description, config check, run files", () => {
    for (const factory of factories) {
      const entry = memorySystemEntry(factory.name);
      expect(entry.name).toBe(factory.name);
      expect(entry.description).toBe(factory.description);
      expect(entry.resolveConfig).toBe(factory.resolveConfig);
      expect(entry.runFiles).toEqual(factory.runFiles);
    }
    expect(MEMORY_SYSTEMS.flatMap((e) => e.runFiles ?? [])).toEqual([
      "layered.jsonl",
      "persistent/ops.jsonl",
    ]);
  });

  it("checks a system's config without loading it, with the same messages", () => {
    expect(() => memorySystemEntry("layered").resolveConfig?.({ jumpLower: 500 })).toThrow(
      /^jumpLower: .*See docs\/memory-systems\.md/,
    );
    expect(() => memorySystemEntry("persistent").resolveConfig?.({ namespace: 3 })).toThrow(
      /^namespace: .*The block takes \{"namespace": "<name>"\}\./,
    );
    expect(memorySystemEntry("persistent").resolveConfig?.(undefined)).toEqual({
      namespace: "default",
    });
  });

  it("an unknown name lists the registered systems, loading or not", async () => {
    const message =
      '--memory "vector" is not a memory system. Use one of:\n' +
      MEMORY_SYSTEMS.map((e) => `  ${e.name}: ${e.description}`).join("\n");
    expect(() => memorySystemEntry("vector")).toThrow(UnknownMemorySystemError);
    expect(() => memorySystemEntry("vector")).toThrow(message);
    await expect(loadMemorySystem("vector")).rejects.toThrow(message);
  });
});
