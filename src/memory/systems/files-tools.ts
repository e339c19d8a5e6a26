import { z } from "zod";
import type { Citation, MemoryPort } from "../../strategy/types.js";
import { plainText } from "../../util/plain-text.js";
import { validateMemoryKey } from "../memory-key.js";
import { defineMemoryTool, type MemoryCallSite, type MemoryToolResult } from "../memory-system.js";

// The files memory's three tools, declared once: the agent's definitions
// (src/agent/tools/memory-tools.ts) take their names, descriptions and schemas from here, so what
// the model sees is one fact.

export const memoryLogParameters = z.strictObject({
  content: plainText(1, 4000).describe("Markdown text, 1-4000 characters."),
});

/**
 * The key check of the memory layer, run at validation time so a bad key is reported as an invalid
 * argument with the same message the host would give. `continue: false` stops the pattern check
 * from adding a second, vaguer issue for the same key.
 */
const memoryKey = z
  .string()
  .superRefine((key, ctx) => {
    try {
      validateMemoryKey(key);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      ctx.addIssue({ code: "custom", message, continue: false });
    }
  })
  // Never fails after the check above; it is here so the JSON schema shows the allowed shape.
  .regex(/^[A-Za-z0-9_.-]{1,100}$/)
  .describe(
    'Letters, digits, "_", "." and "-", 1-100 characters, not starting with "." and without "..".',
  );

export const memoryNoteParameters = z.strictObject({
  key: memoryKey,
  content: plainText(1, 20_000).describe("Markdown text, 1-20000 characters."),
});

export const memoryRecallParameters = z.strictObject({
  query: plainText(1, 500).describe("Keywords, 1-500 characters."),
  limit: z
    .number()
    .int()
    .min(1)
    .max(20)
    .default(5)
    .describe("Most citations to return, 1-20 (default 5)."),
});

export const MEMORY_LOG_DESCRIPTION =
  "Append one entry to today's journal (journal/<simulated date>.md), stamped with the " +
  "simulated time. Use it for observations, decisions and the end-of-day review. Append-only.";

export const MEMORY_NOTE_DESCRIPTION =
  "Write a note by key, replacing the previous note of that key (the old version is kept as a " +
  'backup). Special keys: "playbook" does not overwrite the playbook but appends your content ' +
  'as a dated lesson; "position_<SYMBOL>" (e.g. position_AAPL) is your thesis and plan for an ' +
  'open position, shown to you at every decision while it is held; "week_YYYY-Www" (e.g. ' +
  'week_2024-W07) and "month_YYYY-MM" (e.g. month_2024-03) are the weekly and monthly reviews. ' +
  "Any other key is a free note.";

export const MEMORY_RECALL_DESCRIPTION =
  "Search your journal, notes, reviews and playbook (only what was written up to now) by " +
  "keywords. Returns citations {path, startLine, endLine, snippet, score, source}, best first.";

export const FILES_TOOL_GUIDE = [
  "- memory_log(content): append a timestamped line to today's journal.",
  '- memory_note(key, content): overwrite a note (the old version is backed up). key "playbook" appends a dated lesson to your playbook instead; keys week_YYYY-Www / month_YYYY-MM write reviews.',
  "- memory_recall(query, limit): search your journal, notes, reviews and playbook; returns citations with file and line numbers.",
] as const;

/** Where a note of this key is written, as the tool reports it. */
export function noteDestination(key: string): string {
  return key === "playbook"
    ? "playbook.md (lesson appended)"
    : /^(week|month)_/.test(key)
      ? `reviews/${key}.md`
      : `notes/${key}.md`;
}

/** The tools over a run's file memory, for `ctx.memory.use` (the agent has its own adapters). */
export function filesTools(port: MemoryPort) {
  return [
    defineMemoryTool({
      name: "memory_log",
      description: MEMORY_LOG_DESCRIPTION,
      parameters: memoryLogParameters,
      guide: FILES_TOOL_GUIDE[0],
      run: (args, at: MemoryCallSite): MemoryToolResult => {
        port.log(args.content, at.time);
        return {
          result: { ok: true, written: `journal/${at.label.slice(0, 10)}.md` },
          record: { memory: { tool: "log", chars: args.content.length } },
        };
      },
    }),
    defineMemoryTool({
      name: "memory_note",
      description: MEMORY_NOTE_DESCRIPTION,
      parameters: memoryNoteParameters,
      guide: FILES_TOOL_GUIDE[1],
      run: (args, at) => {
        port.note(args.key, args.content, at.time);
        return {
          result: { ok: true, written: noteDestination(args.key) },
          record: { memory: { tool: "note", key: args.key, chars: args.content.length } },
        };
      },
    }),
    defineMemoryTool({
      name: "memory_recall",
      description: MEMORY_RECALL_DESCRIPTION,
      parameters: memoryRecallParameters,
      guide: FILES_TOOL_GUIDE[2],
      run: async (args, at) => {
        const answer = await port.recallAsync(args.query, args.limit, at.time);
        const citations: Citation[] = answer.citations;
        return { result: citations, record: { recall: { ...answer, query: args.query } } };
      },
    }),
  ];
}
