import { Box, Text } from "ink";
import type { ReactNode } from "react";
import { loadingLine } from "../runner/run-events.js";
import { escapeControl } from "../util/terminal-text.js";
import type { LiveState } from "./live-state.js";
import { BAR_WIDTH, progressBar } from "./progress-bar.js";

export { progressBar };

// Built once: `toLocaleString` with a locale builds a formatter on every call, several per frame.
const MONEY = new Intl.NumberFormat("en-US", {
  minimumFractionDigits: 2,
  maximumFractionDigits: 2,
});
const INT = new Intl.NumberFormat("en-US");
const money = (v: number) => MONEY.format(v);
const pct = (v: number) => `${v >= 0 ? "+" : ""}${v.toFixed(2)}%`;
const int = (v: number) => INT.format(v);

/** Time left at the pace so far, as m:ss (h:mm:ss past an hour); "—" before the first bar. */
export function eta(done: number, total: number, elapsedMs: number): string {
  if (done <= 0 || total <= 0) return "—";
  const seconds = Math.max(0, Math.round(((total - done) * elapsedMs) / done / 1000));
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = String(seconds % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${s}` : `${m}:${s}`;
}

/** One line of stored text: control characters made visible, newlines folded, cut to `max`. */
export function oneLine(text: string, max: number): string {
  const flat = escapeControl(text).replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

const signColor = (v: number) => (v > 0 ? "green" : v < 0 ? "red" : undefined);

export interface LiveViewProps {
  state: LiveState;
  /** Wall-clock time since the renderer started: the ETA's pace until the run reports its own. */
  elapsedMs: number;
  /** A line about the run itself (Ctrl-C was pressed). */
  notice?: string | null;
  /** The terminal's width: every line is cut to it, none wraps (a wrapped line cannot be erased
   * once the terminal reflows it). */
  columns?: number;
}

/** One line, cut to the width with an ellipsis rather than wrapped. */
function Line({ children, color }: { children: ReactNode; color?: string | undefined }) {
  return (
    <Text wrap="truncate-end" {...(color ? { color } : {})}>
      {children}
    </Text>
  );
}

/** Figures that flow onto as many lines as the width needs, each one whole (or cut if alone). */
function Cells({ columns, children }: { columns: number; children: ReactNode }) {
  return (
    <Box flexWrap="wrap" columnGap={2} width={columns}>
      {children}
    </Box>
  );
}

/** The progress line without its bar: the bar takes what the width leaves of its 30 cells. */
function progressText(s: LiveState, elapsedMs: number): string {
  const percent = s.total > 0 ? Math.floor((s.done / s.total) * 100) : 0;
  return `${String(percent).padStart(3)}% ${s.time ?? "—"} · bar ${int(s.done)}/${int(s.total)} · ETA ${eta(s.done, s.total, s.elapsedMs ?? elapsedMs)}`;
}

/** A model call this old is drawn in yellow: the model is slow, or the server stalled. */
const SLOW_CALL_MS = 30_000;

/** The narrowest bar drawn: with less room the figures go without it. */
const MIN_BAR = 10;

/** The live view of a run: pure function of the folded events. */
export function LiveView({ state: s, elapsedMs, notice = null, columns = 80 }: LiveViewProps) {
  if (s.runId === null && s.loading !== null) {
    return (
      <Box flexDirection="column" width={Math.max(1, columns)}>
        <Line>{loadingLine(s.loading)}</Line>
        {notice ? <Line color="yellow">{notice}</Line> : null}
      </Box>
    );
  }
  const ret = s.returnPct;
  const bench = s.benchmarkReturnPct;
  const c = s.counts;
  const progress = progressText(s, elapsedMs);
  // Shown from a second on: most calls end sooner, and a line that flickers says nothing.
  const callAge =
    s.callStartedMs !== null && elapsedMs - s.callStartedMs >= 1000
      ? elapsedMs - s.callStartedMs
      : null;
  const status = s.status ? ` · ${s.status}` : "";
  // The bar's brackets and the space after it take 3 columns.
  const room = Math.min(BAR_WIDTH, columns - 3 - progress.length - status.length);
  const width = Math.max(1, columns);
  return (
    <Box flexDirection="column" width={width}>
      <Line>
        <Text bold>
          {oneLine(s.strategy, 40)} on {oneLine(s.symbols.join(", "), 40)}
        </Text>
        {s.runId ? <Text dimColor> · run {oneLine(s.runId, 60)}</Text> : null}
        {s.resumedFrom ? <Text dimColor> · resumed at {s.resumedFrom}</Text> : null}
      </Line>
      <Line>
        {room >= MIN_BAR ? `${progressBar(s.done, s.total, room)} ` : ""}
        {progress}
        {s.status ? <Text bold>{status}</Text> : null}
      </Line>
      <Cells columns={width}>
        <Line>Equity {s.equity === null ? "—" : money(s.equity)}</Line>
        <Line>
          Return{" "}
          <Text color={ret === null ? undefined : signColor(ret)}>
            {ret === null ? "—" : pct(ret)}
          </Text>
        </Line>
        <Line>Buy & hold {bench === null ? "—" : pct(bench)}</Line>
        <Line>Drawdown now {s.drawdownPct === null ? "—" : `${s.drawdownPct.toFixed(2)}%`}</Line>
        <Line>
          Max drawdown {s.maxDrawdownPct === null ? "—" : `${s.maxDrawdownPct.toFixed(2)}%`}
        </Line>
      </Cells>
      <Line>
        Positions{" "}
        {s.positions.length === 0
          ? "none"
          : s.positions
              .slice(0, 8)
              .map((p) => `${oneLine(p.symbol, 12)} ${p.qty}`)
              .join("  ") + (s.positions.length > 8 ? `  +${s.positions.length - 8} more` : "")}
      </Line>
      {s.lastDecision ? (
        <Box flexDirection="column">
          <Line>
            Last decision {s.lastDecision.time}
            {s.lastDecision.failed ? <Text color="red"> (failed)</Text> : null}:{" "}
            {s.lastDecision.orders.length === 0
              ? "no order"
              : s.lastDecision.orders.map((o) => oneLine(o, 40)).join(", ")}
          </Line>
          {s.lastDecision.rationale ? (
            <Line>
              <Text dimColor> “{oneLine(s.lastDecision.rationale, 100)}”</Text>
            </Line>
          ) : null}
        </Box>
      ) : null}
      {s.lastOrders ? (
        <Line>
          Last orders {s.lastOrders.time}:{" "}
          {s.lastOrders.orders.map((o) => oneLine(o, 60)).join(", ")}
          {s.lastOrders.more > 0 ? ` +${int(s.lastOrders.more)} more` : ""}
        </Line>
      ) : null}
      {s.toolCalls.length > 0 ? (
        <Line>Tools {s.toolCalls.map((t) => oneLine(t, 30)).join(" › ")}</Line>
      ) : null}
      {s.llm ? (
        <Cells columns={width}>
          <Line>LLM calls {int(s.llm.calls)}</Line>
          <Line>tokens {s.llm.tokensUnknown ? "unknown" : int(s.llm.tokens)}</Line>
          {/* A price unknown for one call makes the total unknown, not $0.0000; before the
          first call nothing says whether the model has a price. */}
          <Line>
            cost{" "}
            {s.llm.calls === 0
              ? "—"
              : s.llm.costUnknown
                ? "unknown"
                : `$${s.llm.costUsd.toFixed(4)}`}
          </Line>
          {s.llm.maxCostUsd !== null && !s.llm.costUnknown ? (
            <Line>budget left ${Math.max(0, s.llm.maxCostUsd - s.llm.costUsd).toFixed(4)}</Line>
          ) : null}
          {s.llm.maxTokens !== null && !s.llm.tokensUnknown ? (
            <Line>tokens left {int(Math.max(0, s.llm.maxTokens - s.llm.tokens))}</Line>
          ) : null}
          {callAge !== null ? (
            <Line color={callAge >= SLOW_CALL_MS ? "yellow" : undefined}>
              model call in flight {(callAge / 1000).toFixed(0)} s
            </Line>
          ) : null}
        </Cells>
      ) : null}
      <Cells columns={width}>
        <Line>Fills {int(c.fills)}</Line>
        {/* At the end, as the summary counts them: the closed and the still open. */}
        <Line>
          {c.trades === null
            ? `trades closed ${int(c.tradesClosed)}`
            : `trades ${int(c.trades)}${c.openAtEnd > 0 ? ` (${int(c.openAtEnd)} open at end)` : ""}`}
        </Line>
        <Line color={c.rejected > 0 ? "yellow" : undefined}>rejected {int(c.rejected)}</Line>
        {/* A code run has no model: no decision of its can fail, no call be retried. */}
        {s.llm ? (
          <Line color={c.failedDecisions > 0 ? "red" : undefined}>
            failed decisions {int(c.failedDecisions)}
          </Line>
        ) : null}
        {s.llm ? (
          <Line color={c.retries > 0 ? "yellow" : undefined}>retries {int(c.retries)}</Line>
        ) : null}
      </Cells>
      {s.waiting ? <Line color="yellow">{oneLine(s.waiting, 110)}</Line> : null}
      {s.warnings.map((w, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: warnings are only appended, never reordered
        <Line key={i} color="yellow">
          warning: {oneLine(w, 110)}
        </Line>
      ))}
      {notice ? <Line color="yellow">{notice}</Line> : null}
    </Box>
  );
}
