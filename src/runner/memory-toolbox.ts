import type { MemorySystem } from "../memory/memory-system.js";
import { StrategyUsageError } from "../strategy/strategy-usage-error.js";
import type { MemoryToolbox } from "../strategy/types.js";

/**
 * A memory system's tools as `ctx.memory.use` runs them: the arguments checked by the tool's own
 * schema (the one the model's calls are checked by), then the tool run at the caller's bar.
 */
export function memoryToolbox(system: MemorySystem): MemoryToolbox {
  return {
    system: system.name,
    tools: system.tools.map((t) => t.name),
    call(tool, args, at) {
      const spec = system.tools.find((t) => t.name === tool);
      if (spec === undefined) {
        throw new StrategyUsageError(
          `ctx.memory.use: the ${system.name} memory has no tool ${JSON.stringify(tool)}; it has: ${system.tools.map((t) => t.name).join(", ")}.`,
        );
      }
      const parsed = spec.parameters.safeParse(args);
      if (!parsed.success) {
        const issues = parsed.error.issues
          .map((i) => `${i.path.join(".") || "(arguments)"}: ${i.message}`)
          .join("; ");
        throw new StrategyUsageError(`ctx.memory.use(${JSON.stringify(tool)}): ${issues}`);
      }
      return spec.run(parsed.data, at);
    },
  };
}
