import type { RunEvent } from "../runner/run-events.js";
import { escapeControl } from "./terminal-text.js";

/**
 * Plain progress lines (no escape codes), for logs, CI and any non-TTY. Names and warnings can
 * quote stored text, so every line goes out through escapeControl.
 */
export function plainRenderer(stream: NodeJS.WritableStream): (event: RunEvent) => void {
  const out = { write: (text: string) => stream.write(escapeControl(text)) };
  let lastDecile = -1;
  return (e) => {
    switch (e.type) {
      case "run_started":
        out.write(`run ${e.id}: ${e.strategy} on ${e.symbols.join(", ")}, ${e.bars} bars\n`);
        return;
      case "warning":
        out.write(`warning: ${e.message}\n`);
        return;
      case "progress": {
        const decile = Math.floor((e.done / e.total) * 10);
        if (decile !== lastDecile) {
          lastDecile = decile;
          out.write(
            `${String(Math.round((e.done / e.total) * 100)).padStart(3)}%  ${e.time}  equity ${e.equity.toFixed(2)}\n`,
          );
        }
        return;
      }
      case "run_finished":
        out.write(
          `run ${e.result.id}: ${e.result.status} in ${(e.result.timings.totalMs / 1000).toFixed(2)} s\n`,
        );
        return;
      default:
        return;
    }
  };
}
