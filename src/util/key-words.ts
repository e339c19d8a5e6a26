/**
 * A camelCase key as words for people: `journalFiles` → "journal files", `dayEnds` → "day ends".
 * For the keys a memory system chooses for its statistics (they differ per system, so they have
 * no labels of their own); `--json` keeps the keys.
 */
export function keyWords(key: string): string {
  return key
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .toLowerCase();
}
