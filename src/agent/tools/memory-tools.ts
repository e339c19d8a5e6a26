import { z } from "zod";
import { validateMemoryKey } from "../../memory/memory-key.js";
import { plainText } from "./plain-text.js";
import { defineTool } from "./tool-definition.js";

export const memoryLogTool = defineTool({
  name: "memory_log",
  description:
    "Append one entry to today's journal (journal/<simulated date>.md), stamped with the " +
    "simulated time. Use it for observations, decisions and the end-of-day review. Append-only.",
  parameters: z.strictObject({
    content: plainText(1, 4000).describe("Markdown text, 1-4000 characters."),
  }),
  run: (args, host) => host.memoryLog(args.content),
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

export const memoryNoteTool = defineTool({
  name: "memory_note",
  description:
    "Write a note by key, replacing the previous note of that key (the old version is kept as a " +
    'backup). Special keys: "playbook" does not overwrite the playbook but appends your content ' +
    'as a dated lesson; "position_<SYMBOL>" (e.g. position_AAPL) is your thesis and plan for an ' +
    'open position, shown to you at every decision while it is held; "week_YYYY-Www" (e.g. ' +
    'week_2024-W07) and "month_YYYY-MM" (e.g. month_2024-03) are the weekly and monthly reviews. ' +
    "Any other key is a free note.",
  parameters: z.strictObject({
    key: memoryKey,
    content: plainText(1, 20_000).describe("Markdown text, 1-20000 characters."),
  }),
  run: (args, host) => host.memoryNote(args.key, args.content),
});

export const memoryRecallTool = defineTool({
  name: "memory_recall",
  description:
    "Search your journal, notes, reviews and playbook (only what was written up to now) by " +
    "keywords. Returns citations {path, startLine, endLine, snippet, score, source}, best first.",
  parameters: z.strictObject({
    query: plainText(1, 500).describe("Keywords, 1-500 characters."),
    limit: z
      .number()
      .int()
      .min(1)
      .max(20)
      .default(5)
      .describe("Most citations to return, 1-20 (default 5)."),
  }),
  run: (args, host) => host.memoryRecall(args.query, args.limit),
});
