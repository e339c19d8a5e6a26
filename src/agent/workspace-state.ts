// The run's workspace state as the model is told it when its conversation is compacted: how many
// times each tool has been called in this run. The compaction drops older tool results, so
// without it the model would lose track of what it has already done.

/** The line that opens the state message; a later compaction replaces the message. */
export const STATE_HEADER = "Current agent state:";

/**
 * Tool-call counters over the whole run (every decision and memory moment), by tool name. A
 * replay or a resume (which re-executes from the first bar) counts the same calls again, so the
 * state message is the same.
 */
export class WorkspaceState {
  private readonly counters = new Map<string, number>();

  /** Counts one call of `tool` (made, whatever its outcome); returns its count. */
  increment(tool: string): number {
    const n = (this.counters.get(tool) ?? 0) + 1;
    this.counters.set(tool, n);
    return n;
  }

  count(tool: string): number {
    return this.counters.get(tool) ?? 0;
  }

  /** The state message's text: the header, then the counters by tool name (code-unit order). */
  summary(): string {
    const names = [...this.counters.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const total = names.reduce((sum, n) => sum + (this.counters.get(n) ?? 0), 0);
    const counts = names.map((n) => `${n} ${this.counters.get(n)}`).join(", ");
    return `${STATE_HEADER}\nTool calls this run: ${total === 0 ? "none yet" : `${total} (${counts})`}.`;
  }
}
