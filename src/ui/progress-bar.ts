/** The live views' bar: 30 cells unless the width leaves fewer. */
export const BAR_WIDTH = 30;

/** `[████░░░░]` for done of total. */
export function progressBar(done: number, total: number, width = BAR_WIDTH): string {
  const filled = total > 0 ? Math.min(width, Math.round((done / total) * width)) : 0;
  return `[${"█".repeat(filled)}${"░".repeat(width - filled)}]`;
}
