import type { MemoryModel } from "../memory/memory-system.js";
import { splitReasoning } from "./text-tool-calls.js";
import { BudgetExhaustedError } from "./tool-loop.js";
import { CallStoppedError, type ChatModel, type ChatRequest, LlmError } from "./types.js";

/** A replay that no longer matches its recording must stop the run, not fall back quietly. */
const FATAL = new Set(["replay_divergence", "replay_exhausted"]);

/**
 * The memory systems' port to the run's model: the decisions' client (cache, replay, transcript,
 * usage meter) with the decisions' request settings (model, temperature, output cap, seed), so a
 * memory call is keyed, recorded, budgeted and replayed like a decision. A failed call, a spent
 * budget or an empty answer resolves to null: the system falls back to its deterministic rule.
 */
export function memoryModel(
  model: ChatModel,
  request: Omit<ChatRequest, "messages" | "tools">,
  checkBudget: () => void,
): MemoryModel {
  return async (purpose, messages) => {
    try {
      checkBudget();
      const response = await model.complete(
        { ...request, messages: messages.map((m) => ({ role: m.role, content: m.content })) },
        purpose,
      );
      const text = splitReasoning(response.message).text.trim();
      return text === "" ? null : text;
    } catch (err) {
      if (err instanceof LlmError && FATAL.has(err.type)) throw err;
      if (
        err instanceof BudgetExhaustedError ||
        err instanceof CallStoppedError ||
        err instanceof LlmError
      ) {
        return null;
      }
      throw err;
    }
  };
}
