import type { MemoryPort } from "../../strategy/types.js";
import type {
  MemoryDecisionView,
  MemorySection,
  MemorySystem,
  MemorySystemFactory,
} from "../memory-system.js";
import { filesTools } from "./files-tools.js";

/** The memory bullets of the system prompt for the files memory. */
export const FILES_RULES = [
  "- Your memory is a set of files you write with tools: a journal (memory_log), notes (memory_note) and your playbook. Each decision starts a fresh conversation: anything you do not write down is forgotten.",
  "- The notes position_<SYMBOL> are shown to you while you hold that symbol. The playbook is always shown.",
].join("\n");

/**
 * The files memory (the default): playbook.md always in the prefix, position notes of held symbols
 * in each decision, journal/notes/reviews recalled on demand. The files and their recall index are
 * the state; nothing else is kept, so a checkpoint is empty.
 */
export class FilesMemory implements MemorySystem {
  readonly name = "files";
  readonly rules = FILES_RULES;
  readonly usesMoments = false;
  readonly tools;

  constructor(
    private readonly port: MemoryPort,
    private readonly fileStats: () => Record<string, number>,
  ) {
    this.tools = filesTools(port);
  }

  stableSection(): MemorySection {
    return { heading: "Playbook (playbook.md)", body: this.port.readNote("playbook") ?? "" };
  }

  volatileSections(view: MemoryDecisionView): MemorySection[] {
    const notes: string[] = [];
    for (const symbol of view.held) {
      const key = `position_${symbol}`;
      const content = this.port.readNote(key);
      if (content !== null) notes.push(`## ${key}\n\n${content.trim()}`);
    }
    return notes.length ? [{ heading: "Position notes", body: notes.join("\n\n") }] : [];
  }

  momentPrompt(): null {
    return null;
  }

  pendingPrompt(): null {
    return null;
  }

  onMoment(): void {}

  recall(query: string, limit: number, asOf: number) {
    return this.port.recallAsync(query, limit, asOf);
  }

  stats(): Record<string, number> {
    return this.fileStats();
  }

  checkpoint(): unknown {
    return {};
  }

  restore(): void {}

  finish(): void {}
}

export const filesMemoryFactory: MemorySystemFactory = {
  name: "files",
  description:
    "playbook, journal, notes, reviews in the run directory; BM25/hybrid recall (the default)",
  create: (env) => new FilesMemory(env.files, env.fileStats),
};
