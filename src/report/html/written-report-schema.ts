import { z } from "zod";

/** `agenticbt report --json`: the page written, its size in bytes and the time it took. */
export const writtenReportSchema = z.object({
  file: z.string(),
  bytes: z.number().int().positive(),
  ms: z.number().nonnegative(),
});
export type WrittenReportOutput = z.infer<typeof writtenReportSchema>;
