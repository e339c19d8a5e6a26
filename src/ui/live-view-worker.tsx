// The live view's thread: ink and React load and lay out frames here, while the run goes on in the
// main thread. It draws straight to the terminal on fd 1. The build bundles this file with ink and
// React (dist/ui/live-view.bundle.js, the file the worker runs): ≈0.27 s of CPU to load, against
// ≈1.1 s for ink's modules one by one.
import os from "node:os";
import tty from "node:tty";
import { parentPort } from "node:worker_threads";
import type { Instance } from "ink";
import { CLOSED, type FrameMessage, READY } from "./live-frames.js";

/** Nice 10: about a tenth of a core's share when every core is busy (nice 0 weighs ~9× more). */
const NICE = 10;

// On Linux a thread has its own nice value (setpriority on the calling thread): the view yields
// the CPU to the run (and to the machine's other work), so it does not slow the run down. Set
// before ink loads, which is most of the view's CPU. Not the lowest: the run waits for the final
// frame, which must still come promptly on a busy machine.
try {
  os.setPriority(NICE);
} catch {
  // Not permitted here: the view still works at normal priority.
}
const { render } = await import("ink");
const { LiveView } = await import("./live-view.js");

const port = parentPort;
if (port === null) throw new Error("live-view-worker runs only as a worker thread");
const stdout = new tty.WriteStream(1);
let instance: Instance | null = null;
let latest: FrameMessage | null = null;
let scheduled = false;

function draw(): void {
  scheduled = false;
  const m = latest;
  if (m === null) return;
  latest = null;
  // Nothing is drawn before the run starts: bad input prints its error alone.
  if (instance === null && m.state.runId === null) {
    if (m.last) port?.postMessage(CLOSED);
    return;
  }
  const view = <LiveView state={m.state} elapsedMs={m.elapsedMs} notice={m.notice} />;
  if (instance) instance.rerender(view);
  // No input is read: stdin stays cooked, so Ctrl-C is a SIGINT for the run's own handler.
  else instance = render(view, { stdout, patchConsole: false, exitOnCtrlC: false, maxFps: 10 });
  if (!m.last) return;
  const shown = instance;
  const exited = shown.waitUntilExit();
  shown.unmount();
  void exited.then(() => port?.postMessage(CLOSED));
}

port.postMessage(READY);

port.on("message", (m: FrameMessage) => {
  // Frames queued while ink loaded: only the newest is drawn (a last one always is).
  latest = latest?.last ? latest : m;
  if (!scheduled) {
    scheduled = true;
    setImmediate(draw);
  }
});
