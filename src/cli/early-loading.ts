import { parseSymbolArg } from "../data/symbol-name.js";
import { preloadBytes } from "../runner/data-preload.js";
import { loadingLine } from "../runner/run-events.js";
import type { LiveRenderer } from "../ui/live-renderer.js";
import { exitNow } from "../util/exit-now.js";
import { exitCodeOf, listenForStopSignals, type StopSignalsHandle } from "./stop-signals.js";

/**
 * The loading line at 0 bytes for `--data`'s files, when they are big enough for the data's
 * worker to draw it later; null otherwise (or when a file cannot be read: the run says why).
 * Drawn before the runner's modules load, it shows a big load from the command's first moments.
 */
export function earlyLoadingText(data: unknown): string | null {
  if (!Array.isArray(data)) return null;
  const files: string[] = [];
  for (const arg of data) {
    if (typeof arg !== "string") return null;
    try {
      files.push(parseSymbolArg(arg).file);
    } catch {
      return null;
    }
  }
  const bytes = preloadBytes(files);
  if (bytes === null) return null;
  return loadingLine({ type: "loading", bytesRead: 0, bytesTotal: bytes, elapsedMs: 0 });
}

/**
 * Until the run's own listener is in place (run-command.ts), a stop signal ends the process at
 * once, as Node's default would, but first ends the view's process and clears the loading line,
 * so the shell's prompt starts on a clean line. The run removes these listeners once its own
 * are in place (the CLI too, once the command is over).
 */
export function stopBeforeTheRun(view: LiveRenderer): StopSignalsHandle {
  return listenForStopSignals((signal) => {
    view.kill();
    exitNow(exitCodeOf(signal));
  });
}
