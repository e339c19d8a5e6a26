import type { MemoryWorkspace } from "../memory/workspace.js";
import type { RunRecall } from "../rundir/run-recall.js";
import type { MemoryPort } from "../strategy/types.js";

const REVIEW_KEY = /^(week|month)_(\d{4}-(?:W\d{2}|\d{2}))$/;

/** Binds the strategy-facing memory functions to the run's workspace and recall index. A note key
 * shaped like a review (`week_2024-W07`, `month_2024-03`) is written to reviews/, as a trader would
 * expect. Every write is indexed at once as the next write sequence, so each recall (and
 * `recall --as-of` for it) sees exactly the memory written before it. */
export function memoryPort(workspace: MemoryWorkspace, recall: RunRecall): MemoryPort {
  return {
    log: (content, at) => {
      recall.written(workspace.log(content, at).path, at);
    },
    note: (key, content, at) => {
      const m = REVIEW_KEY.exec(key);
      const written = m
        ? workspace.review(m[1] as "week" | "month", m[2] as string, content, at)
        : workspace.note(key, content, at);
      recall.written(written.path, at);
    },
    review: (period, periodKey, content, at) => {
      recall.written(workspace.review(period, periodKey, content, at).path, at);
    },
    readNote: (key) => workspace.readNote(key),
    recall: (query, limit, asOf) => recall.searchSync(query, limit, asOf),
    recallAsync: (query, limit, asOf) => recall.search(query, limit, asOf),
  };
}
