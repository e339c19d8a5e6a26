import { isoWeekKey, monthKey } from "../../engine/calendar.js";
import type { MemoryPort } from "../../strategy/types.js";
import type { Anonymizer } from "./anonymizer.js";

/**
 * The run's memory on the anonymized clock: every write is stamped, and every recall is asked,
 * at the shifted time, so journal file names, entry stamps, review keys and playbook lesson dates
 * are all in the synthetic era the model sees. Order in time is unchanged.
 */
export function shiftedMemoryPort(inner: MemoryPort, a: Anonymizer): MemoryPort {
  return {
    log: (content, at) => inner.log(content, a.time(at)),
    note: (key, content, at) => inner.note(key, content, a.time(at)),
    review: (period, _periodKey, content, at) =>
      inner.review(
        period,
        period === "week" ? isoWeekKey(a.time(at)) : monthKey(a.time(at)),
        content,
        a.time(at),
      ),
    readNote: (key) => inner.readNote(key),
    recall: (query, limit, asOf) => inner.recall(query, limit, a.time(asOf)),
    recallAsync: (query, limit, asOf) => inner.recallAsync(query, limit, a.time(asOf)),
  };
}
