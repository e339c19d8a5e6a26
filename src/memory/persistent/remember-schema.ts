import { z } from "zod";
import { plainText } from "../../util/plain-text.js";
import { ENTRY_TYPES } from "./entry-file.js";
import type { RememberArgs } from "./persistent-session.js";
import { TOOL_RECALL_LIMIT } from "./persistent-session.js";

/**
 * The `remember` tool's arguments (Vibe-Trading's tool): one object with an `action`, because a
 * JSON-schema union is refused by several OpenAI-compatible servers. Which fields an action needs
 * is checked here, so a call missing one gets an invalid-arguments error naming the field.
 */
export const rememberParameters = z
  .strictObject({
    action: z
      .enum(["save", "recall", "forget"])
      .describe("save a memory, recall memories by keywords, or forget one by its exact title"),
    title: plainText(1, 200)
      .optional()
      .describe("save and forget: the memory's title (its file name keeps CJK characters)"),
    content: plainText(1, 8000).optional().describe("save: the memory, 1-8000 characters"),
    type: z.enum(ENTRY_TYPES).optional().describe('save: the kind of memory (default "lesson")'),
    description: plainText(0, 300)
      .optional()
      .describe("save: one line for the index (default: the title)"),
    query: plainText(1, 500).optional().describe("recall: keywords, 1-500 characters"),
    limit: z
      .number()
      .int()
      .min(1)
      .max(20)
      .optional()
      .describe(`recall: most memories to return, 1-20 (default ${TOOL_RECALL_LIMIT})`),
  })
  .superRefine((a, ctx) => {
    const need = (field: "title" | "content" | "query") => {
      if (a[field] === undefined) {
        ctx.addIssue({
          code: "custom",
          path: [field],
          message: `action "${a.action}" needs ${field}`,
        });
      }
    };
    if (a.action === "save") {
      need("title");
      need("content");
    } else if (a.action === "recall") need("query");
    else need("title");
  })
  .transform((a): RememberArgs => {
    if (a.action === "save") {
      const out: RememberArgs = { action: "save", title: a.title ?? "", content: a.content ?? "" };
      if (a.type !== undefined) out.type = a.type;
      if (a.description !== undefined) out.description = a.description;
      return out;
    }
    if (a.action === "recall") {
      return a.limit === undefined
        ? { action: "recall", query: a.query ?? "" }
        : { action: "recall", query: a.query ?? "", limit: a.limit };
    }
    return { action: "forget", title: a.title ?? "" };
  });
