import type { ExperimentEvent } from "../sweep/experiment/experiment-events.js";
import {
  type ExperimentLiveState,
  foldExperimentEvent,
  initialExperimentState,
} from "../ui/experiment-state.js";
import { callsText, experimentFrame, runsText, spentText } from "../ui/experiment-view.js";
import { assertNever } from "../util/assert-never.js";
import { escapeControl } from "../util/terminal-text.js";

/** The live view is drawn again at most this often (and as often while a call is under way,
 * whose wait ages on screen). */
const FRAME_MS = 250;
/** Plain lines: a status line this often, as `run`'s progress lines. */
const STATUS_EVERY_MS = 5000;

const pct = (v: number | null | undefined) =>
  v === null || v === undefined ? "n/a" : v.toFixed(2);

/** Cursor to the frame's first line, and everything from there down cleared. */
const eraseLines = (n: number) => `\r${n > 1 ? `\u001B[${n - 1}A` : ""}\u001B[J`;

export interface ExperimentRenderer {
  onEvent(e: ExperimentEvent): void;
  /** A line about the experiment itself (Ctrl-C): in the view, or a plain line. */
  notice(text: string): void;
  /** The last frame (it stays on screen), or nothing more in plain lines. */
  close(): void;
  /** The state the view shows (tests read its figures). */
  readonly state: ExperimentLiveState;
}

type Stream = NodeJS.WritableStream & {
  columns?: number;
  rows?: number;
  on?(event: "resize", listener: () => void): unknown;
  off?(event: "resize", listener: () => void): unknown;
};

/**
 * An experiment's progress on `stream`. On a terminal (`live`) a frame of a few lines drawn again
 * in place: runs done, running and waiting; the model calls in flight and the oldest's wait;
 * tokens and spend against --budget-usd; a line per running run. Failed runs are written above
 * it as they end. Otherwise plain lines: each run's start and end, warnings, and a status line
 * every 5 s.
 */
export function experimentRenderer(
  stream: Stream,
  live: boolean,
  now: () => number = () => performance.now(),
): ExperimentRenderer {
  const state = initialExperimentState();
  const t0 = now();
  let drawn = 0;
  let dirty = false;
  let closed = false;
  let notice: string | null = null;
  let lastStatus = t0;

  const draw = () => {
    const t = now();
    const lines = experimentFrame(
      state,
      t,
      t - t0,
      stream.columns ?? 80,
      stream.rows ?? 40,
      notice,
    );
    stream.write(`${drawn > 0 ? eraseLines(drawn) : ""}${lines.join("\n")}`);
    drawn = lines.length;
    dirty = false;
  };
  const line = (text: string) => {
    const frame = live && drawn > 0;
    if (frame) {
      stream.write(eraseLines(drawn));
      drawn = 0;
    }
    stream.write(escapeControl(`${text}\n`));
    // The line goes above the frame, which is drawn again below it.
    if (frame) draw();
  };
  const statusLine = () => `${runsText(state)}; ${callsText(state, now())}; ${spentText(state)}`;

  const timer = setInterval(
    () => {
      if (closed || state.id === "") return;
      if (live) {
        if (dirty || state.running.length > 0) draw();
      } else if (now() - lastStatus >= STATUS_EVERY_MS) {
        lastStatus = now();
        line(statusLine());
      }
    },
    live ? FRAME_MS : 1000,
  );
  timer.unref();
  // A resized terminal reflows the lines drawn: the frame starts again on a cleared screen.
  const resized = () => {
    if (closed || drawn === 0) return;
    stream.write("\u001B[H\u001B[2J");
    drawn = 0;
    draw();
  };
  if (live) stream.on?.("resize", resized);

  return {
    state,
    onEvent(e) {
      foldExperimentEvent(state, e, now());
      dirty = true;
      switch (e.type) {
        case "experiment_started":
          if (!live)
            line(
              `experiment ${e.id}: ${e.total} runs${e.done > 0 ? ` (${e.done} done already)` : ""}, ${e.jobs === null ? "on the queue's workers" : `${e.jobs} at a time`}${e.budgetUsd === null ? "" : `, --budget-usd ${e.budgetUsd}`}`,
            );
          else draw();
          return;
        case "run_started":
          if (!live)
            line(
              `${e.run.key}: ${e.resumed ? "resuming from its checkpoint" : "started"} (seed ${e.run.seed})`,
            );
          return;
        case "run_finished": {
          const l = e.line;
          const text = `[${e.done}/${e.total}] ${l.key}: ${l.status}, return ${pct(l.metrics.returnPct)}%${l.error ? ` (${l.error})` : ""}`;
          if (!live || l.status !== "completed") line(text);
          return;
        }
        case "run_left":
          if (!live) line(`${e.key}: ${e.reason}`);
          return;
        case "warning":
          if (!live) line(`${e.key}: warning: ${e.message}`);
          return;
        case "experiment_finished":
          if (!live && e.budgetStop !== null) line(`No more runs start: ${e.budgetStop}`);
          return;
        case "run_event":
          return;
        default:
          assertNever(e, "experiment event");
      }
    },
    notice(text) {
      if (live && state.id !== "" && !closed) {
        notice = text;
        draw();
      } else line(text);
    },
    close() {
      if (closed) return;
      clearInterval(timer);
      if (live) {
        stream.off?.("resize", resized);
        if (state.id !== "") {
          draw();
          stream.write("\n");
        }
        drawn = 0;
      }
      closed = true;
    },
  };
}
