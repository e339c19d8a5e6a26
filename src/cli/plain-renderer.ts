import { retryWaitLine } from "../agent/agent-events.js";
import { loadingText, type RunEvent, type RunEventListener } from "../runner/run-events.js";
import { assertNever } from "../util/assert-never.js";
import { escapeControl } from "../util/terminal-text.js";

/** A progress line at most this often: enough to see a long run move, few enough for a log. */
const LINE_EVERY_MS = 5000;

export interface PlainRendererOptions {
  /** Milliseconds, monotonic; injected by tests. Default performance.now. */
  now?: () => number;
}

/**
 * Plain progress lines (no escape codes), for logs, CI and any non-TTY: a start line, a progress
 * line every 5 s of wall time, warnings, retry waits and failed decisions the moment they happen,
 * and an end line. Names and warnings can quote stored text, so every line goes out through escapeControl.
 */
export function plainRenderer(
  stream: NodeJS.WritableStream,
  options: PlainRendererOptions = {},
): RunEventListener {
  const now = options.now ?? (() => performance.now());
  const out = (text: string) => stream.write(escapeControl(`${text}\n`));
  let lastLine = now();
  return (e: RunEvent) => {
    switch (e.type) {
      case "run_started": {
        lastLine = now();
        const window = e.start !== null ? ` (${e.start} → ${e.end})` : "";
        out(`run ${e.id}: ${e.strategy} on ${e.symbols.join(", ")}, ${e.bars} bars${window}`);
        const from = e.resumedFrom;
        if (from !== null) {
          out(
            `run ${e.id}: continues from its checkpoint at ${from.time} (${from.done} of ${e.bars} bars done)`,
          );
        }
        return;
      }
      case "warning":
        out(`warning: ${e.message}`);
        return;
      // A load long enough to be seen says how far it is, at the progress lines' pace.
      case "loading": {
        const t = now();
        if (t - lastLine < LINE_EVERY_MS) return;
        lastLine = t;
        out(`loading data: ${loadingText(e)}`);
        return;
      }
      // A wait can last minutes: say so the moment it starts, or the run looks hung.
      case "retry":
        out(retryWaitLine(e));
        return;
      case "decision_finished":
        if (e.failed && e.error) {
          out(`failed decision at ${e.time}: ${e.error.type}: ${e.error.message}`);
        }
        return;
      case "progress": {
        const t = now();
        if (t - lastLine < LINE_EVERY_MS) return;
        lastLine = t;
        const pct = String(Math.floor((e.done / e.total) * 100)).padStart(3);
        out(
          `${pct}%  ${e.time}  equity ${e.equity.toFixed(2)}  return ${signed(e.returnPct)}  buy & hold ${signed(e.benchmarkReturnPct)}  drawdown ${e.drawdownPct.toFixed(2)}%`,
        );
        return;
      }
      case "run_finished": {
        const r = e.result;
        const vs =
          r.metrics?.returnPct != null
            ? `, return ${signed(r.metrics.returnPct)} (buy & hold ${r.metrics.buyHoldReturnPct != null ? signed(r.metrics.buyHoldReturnPct) : "n/a"})`
            : "";
        out(`run ${r.id}: ${r.status} in ${(r.timings.totalMs / 1000).toFixed(2)} s${vs}`);
        return;
      }
      // The live view's business: a line each would drown the progress lines.
      case "decision_started":
      case "order_accepted":
      case "order_rejected":
      case "order_cancelled":
      case "fill":
      case "trade_closed":
      case "memory_write":
      case "recall":
      case "llm_call":
        return;
      default:
        assertNever(e, "run event");
    }
  };
}

const signed = (pct: number) => `${pct >= 0 ? "+" : ""}${pct.toFixed(2)}%`;

export interface RendererChoice {
  /** `-q`: no progress output at all. */
  quiet: boolean;
  /** `--json`: stdout is result.json's; progress still goes to `stream` (stderr). */
  json: boolean;
  /** `--ui` (default) / `--no-ui`: a live view where the terminal allows one. */
  ui: boolean;
  stream: NodeJS.WritableStream;
}

/**
 * The one place the run's renderer is chosen. Nothing with `-q`; otherwise plain lines on
 * `stream`. The live view (ink) belongs where `ui` is on, `stream` is a TTY and CI is unset.
 */
export function chooseRenderer(c: RendererChoice): RunEventListener {
  if (c.quiet) return () => {};
  return plainRenderer(c.stream);
}
