import type { MemorySystem } from "../../memory/memory-system.js";
import {
  MEMORY_LOG_DESCRIPTION,
  MEMORY_NOTE_DESCRIPTION,
  MEMORY_RECALL_DESCRIPTION,
  memoryLogParameters,
  memoryNoteParameters,
  memoryRecallParameters,
} from "../../memory/systems/files-tools.js";
import { defineTool, type ToolDefinition } from "./tool-definition.js";

// The files memory's tools: names, descriptions and schemas come from the memory layer
// (one fact); the calls go through the ToolHost's file-memory methods.

export const memoryLogTool = defineTool({
  name: "memory_log",
  description: MEMORY_LOG_DESCRIPTION,
  parameters: memoryLogParameters,
  run: (args, host) => host.memoryLog(args.content),
});

export const memoryNoteTool = defineTool({
  name: "memory_note",
  description: MEMORY_NOTE_DESCRIPTION,
  parameters: memoryNoteParameters,
  run: (args, host) => host.memoryNote(args.key, args.content),
});

export const memoryRecallTool = defineTool({
  name: "memory_recall",
  description: MEMORY_RECALL_DESCRIPTION,
  parameters: memoryRecallParameters,
  run: (args, host) => host.memoryRecall(args.query, args.limit),
});

/** The files memory's tools, offered alone at memory moments (reviews, position notes). */
export const FILES_MEMORY_TOOLS: readonly ToolDefinition<unknown>[] = [
  memoryLogTool,
  memoryNoteTool,
  memoryRecallTool,
];

const adapted = new WeakMap<MemorySystem, readonly ToolDefinition<unknown>[]>();

/**
 * The agent's memory tools for a run's system. `files` keeps its own definitions (their
 * results and decisions.jsonl records are unchanged); any other system's tools are declared by
 * the system and run through `ctx.memory`, exactly as a code strategy's `ctx.memory.use` does.
 * Built once per system, so the rendered JSON schemas are cached.
 */
export function memoryToolsOf(system: MemorySystem): readonly ToolDefinition<unknown>[] {
  // files under the policy layer with evolution on has one more tool (propose_policy): its own
  // three keep their definitions, the extra ones are adapted like any system's.
  const own = (name: string) => FILES_MEMORY_TOOLS.some((t) => t.name === name);
  const extra = system.name === "files" ? system.tools.filter((t) => !own(t.name)) : system.tools;
  if (system.name === "files" && extra.length === 0) return FILES_MEMORY_TOOLS;
  let tools = adapted.get(system);
  if (tools === undefined) {
    const prefix = system.name === "files" ? FILES_MEMORY_TOOLS : [];
    tools = [
      ...prefix,
      ...extra.map((spec) =>
        defineTool<unknown>({
          name: spec.name,
          description: spec.description,
          parameters: spec.parameters,
          run: (args, host) => {
            if (!host.memoryUse) throw new Error(`${spec.name} is not available in this backtest.`);
            return host.memoryUse(spec.name, args);
          },
        }),
      ),
    ];
    adapted.set(system, tools);
  }
  return tools;
}
