import { z } from "zod";

/**
 * Control characters a model has no reason to write into memory or order records: C0 controls
 * other than tab, line feed and carriage return, DEL, C1 controls, and the Unicode bidirectional
 * overrides and isolates (which make a note read differently from what it says). Memory files are
 * read back into later prompts and shown in terminals (`agenticbt show`), so an escape sequence
 * stored there would act later, somewhere else.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

/** "U+001B at character 4", for the message: the character itself would not show. */
export function findControlCharacter(text: string): string | null {
  const match = CONTROL.exec(text);
  if (match === null) return null;
  const code = (match[0].codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0");
  return `U+${code} at character ${match.index + 1}`;
}

/** A string parameter of `min`–`max` characters without control characters (see CONTROL). */
export function plainText(min: number, max: number): z.ZodString {
  return z
    .string()
    .min(min)
    .max(max)
    .superRefine((text, ctx) => {
      const found = findControlCharacter(text);
      if (found !== null) {
        ctx.addIssue({
          code: "custom",
          message: `contains a control character (${found}); write plain text (tabs and line breaks are fine)`,
        });
      }
    });
}
