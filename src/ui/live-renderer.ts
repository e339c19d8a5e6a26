import { fork } from "node:child_process";
import net from "node:net";
import { fileURLToPath } from "node:url";
import { CLEAR_LINE, type LoadingEvent, type RunEvent } from "../runner/run-events.js";
import { CLOSED, type FrameMessage, READY } from "./live-frames.js";
import { foldLiveEvent, initialLiveState, type LiveBudget } from "./live-state.js";

/** At most 10 frames a second: events are folded at once, frames sent on this tick. */
export const FRAME_MS = 100;

export interface LiveRendererOptions {
  /** The view's program (default: the bundle the build makes beside this module). */
  viewUrl?: URL;
  /** Where the line saying the view failed goes (default: stderr). */
  warn?: (line: string) => void;
}

/** The data's worker drawing the loading line itself, while the view's process loads ink. */
export interface LoadingLineControl {
  draw(on: boolean): void;
  /** Whether it has drawn one (it is on the cursor's line). */
  drawn(): boolean;
  /** What the last line drawn shows (null: none drawn). */
  lastDrawn(): LoadingEvent | null;
}

export interface LiveRenderer {
  /** Hands the loading line to the data's worker until the view can draw (a long load only). */
  loadingLine(control: LoadingLineControl): void;
  /** Draws the loading line once, before the data's worker exists (it draws over it later). */
  earlyLoadingLine(text: string): void;
  /** An LLM run's `--max-cost` / `--max-tokens`, for the budget left (null: not an LLM run). */
  budget(budget: LiveBudget | null): void;
  onEvent(event: RunEvent): void;
  /** A line about the run itself (Ctrl-C), shown in the view rather than written over it. */
  notice(text: string): void;
  /** Draws the final frame and waits until it is on screen, for the summary to follow below. */
  close(): Promise<void>;
  /** Ends the view's process at once, drawing nothing more, and clears the loading line: the
   * process is about to exit (a stop signal before the run began, or a second one). */
  kill(): void;
  /** Why the view's process failed, once it has (close() then says so on stderr); null if not. */
  failure(): string | null;
}

/**
 * The view's process runs its JavaScript unoptimized (baseline code at most) and yoga's wasm
 * as first compiled: a run of 20 frames is too short to earn back optimizing compiles.
 * No flag of this process (a loader under tsx, an inspector) is passed on: the bundle needs none.
 */
const VIEW_V8_FLAGS = ["--max-opt=1", "--liftoff-only"];

let viewCpuMs: number | null = null;

/** The CPU time (ms) the last closed live view's process used, as it told (a bench reads it: the
 * run's own process does not count it). Null when no view has closed. */
export function lastViewCpuMs(): number | null {
  return viewCpuMs;
}

/** How much of what the view's process wrote to stderr is kept, for the line saying it failed. */
const STDERR_KEPT = 8192;

/**
 * The ink live view on the terminal on fd 1 (the caller checks it is one). This thread only folds
 * events into the view state (in place) and, at most every FRAME_MS, sends the state to a child
 * process that loads ink and draws, at a lower priority: the run pays neither ink's start-up nor
 * its layout, nor the compiling and garbage collection they bring (a worker thread shares the
 * run's V8 threads, which run at the run's priority). The timer and the channel are unref'd, so
 * the view never keeps the process alive.
 */
export function liveRenderer(opts: LiveRendererOptions = {}): LiveRenderer {
  const t0 = performance.now();
  const warn = opts.warn ?? ((line: string) => process.stderr.write(`${line}\n`));
  let failure: string | null = null;
  const state = initialLiveState();
  let notice: string | null = null;
  let dirty = false;
  let ready = false;
  let rawLine: LoadingLineControl | null = null;
  /** A loading line drawn by earlyLoadingLine is on the cursor's line. */
  let early = false;
  const lineOnScreen = () => early || (rawLine?.drawn() ?? false);
  /** Stops the worker drawing the loading line, and clears it if one is on screen. */
  const clearLoadingLine = () => {
    rawLine?.draw(false);
    if (lineOnScreen()) process.stdout.write(CLEAR_LINE);
  };
  /** The view is being closed on purpose: its exit is no failure. */
  let closingStarted = false;
  // The program is live-view-process.tsx bundled with ink and React by the build
  // (scripts/bundle-live-view.mjs): one file loads in a quarter of the time and CPU.
  const child = fork(
    fileURLToPath(opts.viewUrl ?? new URL("./live-view.bundle.js", import.meta.url)),
    [],
    {
      stdio: ["ignore", "inherit", "pipe", "ipc"],
      execArgv: VIEW_V8_FLAGS,
    },
  );
  let stderr = "";
  child.stderr?.setEncoding("utf8");
  child.stderr?.on("data", (chunk: string) => {
    stderr = (stderr + chunk).slice(-STDERR_KEPT);
  });
  if (child.stderr instanceof net.Socket) child.stderr.unref();
  child.unref();
  child.channel?.unref();
  const gone = new Promise<void>((resolve) => {
    child.on("message", (m) => {
      if (m === READY) {
        ready = true;
        rawLine?.draw(false);
        // The worker's line may be ahead of the events this thread has read: the view goes on
        // from what it showed, never back.
        const shown = rawLine?.lastDrawn() ?? null;
        if (shown !== null) {
          foldLiveEvent(state, shown);
          dirty = true;
        }
      }
      if (m === CLOSED) resolve();
      else if (typeof m === "object" && m !== null && "cpuMs" in m) {
        viewCpuMs = Number(m.cpuMs);
      }
    });
    // A view that cannot draw must not take the run down: the summary still prints, after a
    // line saying why there was no view.
    child.on("error", (err) => {
      failure ??= err.message;
      resolve();
    });
    child.on("exit", (code, signal) => {
      if (code !== 0 && failure === null && !closingStarted) {
        failure = errorLine(stderr) ?? `it exited with ${signal ?? `code ${code}`}`;
      }
      resolve();
    });
  });
  const send = (last: boolean) => {
    // Not while the data's worker draws the loading line and ink still loads: a frame queued now
    // would be drawn after the worker's later lines, taking the bytes read back (sent at READY).
    if (!ready && !last && rawLine !== null) return;
    dirty = false;
    // Not once the view's process has exited (or failed to start).
    if (!child.connected) return;
    const frame: FrameMessage = {
      state,
      elapsedMs: performance.now() - t0,
      notice,
      last,
      rawLine: lineOnScreen(),
    };
    child.send(frame);
  };
  const timer = setInterval(() => {
    // A call under way ages on screen though no event comes.
    if (dirty || state.callStartedMs !== null) send(false);
  }, FRAME_MS);
  timer.unref();
  let closing: Promise<void> | null = null;
  return {
    loadingLine(control) {
      if (ready) return;
      rawLine = control;
      control.draw(true);
    },
    earlyLoadingLine(text) {
      if (ready) return;
      // As the worker writes it: at the line's start, the line cleared, short of the last column.
      process.stdout.write(`${CLEAR_LINE}${text.slice(0, (process.stdout.columns || 80) - 1)}`);
      early = true;
    },
    budget(budget) {
      state.llm = initialLiveState(budget).llm;
    },
    onEvent(event) {
      // A model call's start, on this clock (the fold has none): a decision's first call starts
      // with it, each next one as the previous ends; the view shows its age.
      if (event.type === "decision_started" || event.type === "llm_call") {
        state.callStartedMs = performance.now() - t0;
      } else if (event.type === "decision_finished" || event.type === "run_finished") {
        state.callStartedMs = null;
      }
      foldLiveEvent(state, event);
      dirty = true;
    },
    notice(text) {
      notice = text;
      dirty = true;
    },
    failure: () => failure,
    kill() {
      clearInterval(timer);
      closingStarted = true;
      child.kill("SIGKILL");
      clearLoadingLine();
    },
    close() {
      if (closing) return closing;
      clearInterval(timer);
      const reported = () => {
        if (failure !== null) {
          warn(
            `agenticbt: the live view could not draw (${failure.split("\n")[0]}); the run itself was not affected. --no-ui prints plain progress lines instead.`,
          );
        }
      };
      // A run that ended before ink loaded shows no view at all (its summary follows at once)
      // rather than waiting for ink.
      if (!ready) {
        closingStarted = true;
        child.kill("SIGKILL");
        // The worker's loading line goes too: what follows (an error) starts on a clean line.
        clearLoadingLine();
        closing = Promise.resolve().then(reported);
        return closing;
      }
      // Waiting for the last frame keeps this process alive until it is drawn.
      child.channel?.ref();
      send(true);
      closing = gone
        .then(() => {
          // Told to go, the view's process exits by itself (it ignores the run's signals).
          closingStarted = true;
          if (child.connected) child.disconnect();
        })
        .then(reported);
      return closing;
    },
  };
}

/** The message of the error the view's process died of, from what Node printed on its stderr. */
function errorLine(stderr: string): string | null {
  const m = /^\w*Error(?: \[\w+\])?: (.+)$/m.exec(stderr);
  return m?.[1] ?? null;
}
