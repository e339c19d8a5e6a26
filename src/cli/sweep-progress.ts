import { CLEAR_LINE } from "../runner/run-events.js";
import type { SweepEvent } from "../sweep/run-sweep.js";
import { assertNever } from "../util/assert-never.js";
import { escapeControl } from "../util/terminal-text.js";

/** Plain lines at most this often (as `run`'s). */
const LINE_EVERY_MS = 5000;
/** The live line is drawn again at most this often. */
const FRAME_MS = 100;

const settingsText = (s: Readonly<Record<string, unknown>>) =>
  Object.entries(s)
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(" ");

function etaText(ms: number | null): string {
  if (ms === null) return "?";
  const s = ms / 1000;
  return s < 60 ? `${s.toFixed(1)} s` : `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`;
}

/** One progress line: done/total, combinations/s, the best so far with its settings, ETA. */
export function progressLine(
  e: Extract<SweepEvent, { type: "combination" }>,
  metric: string,
): string {
  const pct = ((e.done / e.total) * 100).toFixed(1);
  const best = e.best
    ? `best ${metric} ${e.best.value.toFixed(4)} (${settingsText(e.best.settings)})`
    : "no best yet";
  const failed = e.failed > 0 ? `, ${e.failed} failed` : "";
  return `${e.done}/${e.total} (${pct}%${failed})  ${e.perSecond.toFixed(0)} combinations/s  ${best}  ETA ${etaText(e.etaMs)}`;
}

/**
 * A sweep's progress on `stream`: on a terminal (`live`), one line drawn again in place as
 * combinations finish; otherwise plain lines (start, every 5 s, warnings, end), as `run`'s.
 */
export function sweepRenderer(
  stream: NodeJS.WritableStream & { columns?: number },
  live: boolean,
  now: () => number = () => performance.now(),
): { onEvent: (e: SweepEvent) => void; close(): void } {
  let metric = "";
  let last = now();
  let drawn = false;
  const clear = () => {
    if (drawn) stream.write(CLEAR_LINE);
    drawn = false;
  };
  const line = (text: string) => {
    clear();
    stream.write(escapeControl(`${text}\n`));
  };
  return {
    onEvent(e) {
      switch (e.type) {
        case "sweep_started":
          metric = e.objective.split(" ")[1] ?? e.objective;
          line(
            `sweep ${e.id}: ${e.total} combinations${e.done > 0 ? ` (${e.done} done already)` : ""}, ${e.jobs} job${e.jobs === 1 ? "" : "s"}, ${e.objective}`,
          );
          return;
        case "warning":
          line(`warning: ${e.message}`);
          return;
        case "combination": {
          const t = now();
          const end = e.done === e.total;
          if (live) {
            if (t - last < FRAME_MS && !end) return;
            last = t;
            const width = Math.max(20, (stream.columns ?? 100) - 1);
            stream.write(`${CLEAR_LINE}${escapeControl(progressLine(e, metric)).slice(0, width)}`);
            drawn = true;
            return;
          }
          if (t - last < LINE_EVERY_MS && !end) return;
          last = t;
          line(progressLine(e, metric));
          return;
        }
        case "top_run":
          line(`run ${e.runId}: combination ${e.index}, written in full`);
          return;
        case "walk_forward_started":
          line(`walk-forward ${e.spec}: ${e.windows} windows, each a sweep of its training span`);
          return;
        case "walk_forward_window": {
          const w = e.result;
          const best = w.best
            ? `${settingsText(w.best.settings)} ${metric} ${w.best.value.toFixed(4)}`
            : "no best";
          const oos =
            w.outOfSampleValue.value === null ? "n/a" : w.outOfSampleValue.value.toFixed(4);
          line(`walk-forward ${w.window}/${e.windows}: ${best} → out of sample ${oos}`);
          return;
        }
        case "sweep_finished":
          clear();
          return;
        default:
          assertNever(e);
      }
    },
    close: clear,
  };
}
