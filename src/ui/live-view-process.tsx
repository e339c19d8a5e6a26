// The live view's process: ink and React load and lay out frames here, while the run goes on in
// the process that started this one. It draws straight to the terminal it inherited on fd 1. The
// build bundles this file with ink and React (dist/ui/live-view.bundle.js, the file that runs),
// which loads far faster than ink's modules one by one.
import fs from "node:fs";
import os from "node:os";
import type { Instance } from "ink";
import { CLEAR_LINE } from "../runner/run-events.js";
import { CLOSED, type FrameMessage, READY } from "./live-frames.js";

/** Nice 10: about a tenth of a core's share when every core is busy (nice 0 weighs ~9× more). */
const NICE = 10;

/**
 * Lowers every thread of this process to NICE, not only the main one: V8 compiles and collects
 * garbage on threads of its own, and in a process of its own the view's share of that work is
 * the view's alone, so it yields the CPU to the run as its drawing does. On Linux a thread has
 * its own nice value (its id is a pid to setpriority); elsewhere the call on the process does it.
 * Not the lowest: the run waits for the final frame, which must still come promptly.
 */
function yieldToTheRun(): void {
  let tids: string[] = [];
  try {
    tids = fs.readdirSync("/proc/self/task");
  } catch {
    // No /proc: the process's own priority is the one there is.
  }
  const targets = tids.length > 0 ? tids.map(Number) : [0];
  for (const tid of targets) {
    try {
      // Never raise a priority the run was started below.
      os.setPriority(tid, Math.max(NICE, os.getPriority(tid)));
    } catch {
      // Not permitted here: the view still works at normal priority.
    }
  }
}

yieldToTheRun();
let instance: Instance | null = null;
// The run's Ctrl-C reaches this process too (same process group): the run decides, and tells
// this view with a notice and then its last frame. A hang-up ends the terminal, and the view.
process.on("SIGINT", () => {});
process.on("SIGTERM", () => {});
// The run is gone (it exited, or aborted at a second Ctrl-C): nothing more may be drawn over
// what it printed last; give the cursor back and go.
process.on("disconnect", () => {
  if (instance !== null) process.stdout.write("\u001B[?25h");
  process.exit(0);
});

const { render } = await import("ink");
const { LiveView } = await import("./live-view.js");

const send = (m: string | { cpuMs: number }) => {
  if (process.connected) process.send?.(m);
};
let latest: FrameMessage | null = null;
/** The frame on screen, drawn again at the new width when the terminal is resized. */
let shown: FrameMessage | null = null;
let scheduled = false;

/** The terminal's width; 80 when it reports none (the run chose this view on a terminal). */
const columns = () => process.stdout.columns || 80;

const renderOptions = {
  stdout: process.stdout,
  patchConsole: false,
  exitOnCtrlC: false,
  maxFps: 10,
} as const;

function draw(): void {
  scheduled = false;
  const m = latest;
  if (m === null) return;
  latest = null;
  // Nothing is drawn before the run starts (or its long load): bad input prints its error alone.
  if (instance === null && m.state.runId === null && m.state.loading === null) {
    if (m.last) send(CLOSED);
    return;
  }
  shown = m;
  const view = (
    <LiveView state={m.state} elapsedMs={m.elapsedMs} notice={m.notice} columns={columns()} />
  );
  if (instance) instance.rerender(view);
  else {
    if (m.rawLine) process.stdout.write(CLEAR_LINE);
    // No input is read: stdin is not this process's, so Ctrl-C stays a SIGINT for the run.
    instance = render(view, renderOptions);
  }
  if (!m.last) return;
  const last = instance;
  const exited = last.waitUntilExit();
  last.unmount();
  void exited.then(() => {
    // The view's own cost, for the bench: it is not in the run's process.
    const u = process.resourceUsage();
    send({ cpuMs: (u.userCPUTime + u.systemCPUTime) / 1000 });
    send(CLOSED);
  });
}

/**
 * A resized terminal reflows (tmux, VTE, iTerm) or cuts the lines already drawn, so ink's count
 * of the lines to erase no longer holds and old header and progress lines stay behind. The view
 * is drawn again from a cleared screen instead: a new ink instance, whose count starts at zero.
 * Runs after ink's own handler (registered at render), which may have drawn at the old count.
 */
process.stdout.on("resize", () => {
  setImmediate(() => {
    if (instance === null || shown === null || shown.last) return;
    instance.unmount();
    // Cursor home, clear the screen: the view starts again at the top.
    process.stdout.write("\u001B[H\u001B[2J");
    const m = shown;
    instance = render(
      <LiveView state={m.state} elapsedMs={m.elapsedMs} notice={m.notice} columns={columns()} />,
      renderOptions,
    );
  });
});

if (!process.send) throw new Error("live-view-process runs only as a child process with IPC");
send(READY);

process.on("message", (m: FrameMessage) => {
  // Frames queued while ink loaded: only the newest is drawn (a last one always is).
  latest = latest?.last ? latest : m;
  if (!scheduled) {
    scheduled = true;
    setImmediate(draw);
  }
});
