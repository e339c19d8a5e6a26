import { WIDTH } from "./commands/text-layout.js";

/**
 * The width text tables are laid out for: the terminal's columns when stdout is a TTY, else
 * `COLUMNS` when it is a whole number from 20 to 1000, else 100 (pipes, files, CI logs).
 */
export function terminalWidth(
  stream: { isTTY?: boolean; columns?: number } = process.stdout,
  env: NodeJS.ProcessEnv = process.env,
): number {
  if (stream.isTTY && typeof stream.columns === "number" && stream.columns > 0)
    return stream.columns;
  const raw = env.COLUMNS?.trim() ?? "";
  if (/^\d{1,4}$/.test(raw)) {
    const n = Number(raw);
    if (n >= 20 && n <= 1000) return n;
  }
  return WIDTH;
}
