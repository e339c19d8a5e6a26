import type { MemorySystem, MemorySystemFactory } from "../memory-system.js";

/** The one memory bullet of the system prompt without memory: what the agent must not expect. */
export const NONE_RULES =
  "- You have no memory: each decision starts a fresh conversation, and nothing you say or do is kept for the next one.";

/**
 * No memory: no tools, no moments, nothing injected, nothing kept. The control of every memory
 * comparison: what the same agent does with the same data and no memory at all.
 */
export class NoMemory implements MemorySystem {
  readonly name = "none";
  readonly rules = NONE_RULES;
  readonly tools = [];
  readonly usesMoments = false;

  stableSection(): null {
    return null;
  }

  volatileSections(): [] {
    return [];
  }

  momentPrompt(): null {
    return null;
  }

  pendingPrompt(): null {
    return null;
  }

  onMoment(): void {}

  recall() {
    return { citations: [], seq: 0 };
  }

  stats(): Record<string, number> {
    return {};
  }

  checkpoint(): unknown {
    return {};
  }

  restore(): void {}

  finish(): void {}
}

export const noMemoryFactory: MemorySystemFactory = {
  name: "none",
  description: "no memory: no tools, no moments, nothing in the prompt (the control)",
  create: () => new NoMemory(),
};
