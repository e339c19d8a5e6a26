import path from "node:path";
import { fileURLToPath } from "node:url";

/**
 * `file:line:column` of the innermost stack frame inside the strategy's own file, or null (an LLM
 * strategy, a prompt, or an error raised elsewhere). tsx maps frames back to the .ts source.
 */
export function strategyLocation(err: unknown, strategyPath: string): string | null {
  const stack = err instanceof Error ? err.stack : undefined;
  if (!stack) return null;
  const file = path.resolve(strategyPath);
  for (const line of stack.split("\n").slice(1)) {
    // "    at fn (/abs/file.ts:10:13)", "    at /abs/file.ts:10:13" or a file:// URL.
    const m = /(?:\(|at )((?:file:\/\/)?[^()]+?):(\d+):(\d+)\)?\s*$/.exec(line.trim());
    if (!m) continue;
    const where = m[1]?.startsWith("file://") ? fileURLToPath(m[1]) : m[1];
    if (where === file) return `${file}:${m[2]}:${m[3]}`;
  }
  return null;
}
