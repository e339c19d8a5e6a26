import { Box, Text } from "ink";
import { escapeControl } from "../util/terminal-text.js";
import type { LiveState } from "./live-state.js";

const BAR_WIDTH = 30;

// Built once: `toLocaleString` with a locale builds a formatter on every call, several per frame.
const MONEY = new Intl.NumberFormat("en-US", {
  minimumFractionDigits: 2,
  maximumFractionDigits: 2,
});
const INT = new Intl.NumberFormat("en-US");
const money = (v: number) => MONEY.format(v);
const pct = (v: number) => `${v >= 0 ? "+" : ""}${v.toFixed(2)}%`;
const int = (v: number) => INT.format(v);

/** `[████░░░░]` for done of total. */
export function progressBar(done: number, total: number, width = BAR_WIDTH): string {
  const filled = total > 0 ? Math.min(width, Math.round((done / total) * width)) : 0;
  return `[${"█".repeat(filled)}${"░".repeat(width - filled)}]`;
}

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
}

/** The live view of a run: pure function of the folded events. */
export function LiveView({ state: s, elapsedMs, notice = null }: LiveViewProps) {
  const percent = s.total > 0 ? Math.floor((s.done / s.total) * 100) : 0;
  const ret = s.returnPct;
  const bench = s.benchmarkReturnPct;
  const c = s.counts;
  return (
    <Box flexDirection="column">
      <Text bold>
        {oneLine(s.strategy, 40)} on {oneLine(s.symbols.join(", "), 40)}
        {s.runId ? <Text dimColor> · run {oneLine(s.runId, 60)}</Text> : null}
      </Text>
      <Text>
        {progressBar(s.done, s.total)} {String(percent).padStart(3)}% {s.time ?? "—"} · bar{" "}
        {int(s.done)}/{int(s.total)} · ETA {eta(s.done, s.total, s.elapsedMs ?? elapsedMs)}
        {s.status ? <Text bold> · {s.status}</Text> : null}
      </Text>
      <Text>
        Equity {s.equity === null ? "—" : money(s.equity)}
        {"  "}Return{" "}
        <Text color={ret === null ? undefined : signColor(ret)}>
          {ret === null ? "—" : pct(ret)}
        </Text>
        {"  "}Buy & hold {bench === null ? "—" : pct(bench)}
        {"  "}Drawdown {s.drawdownPct === null ? "—" : `${s.drawdownPct.toFixed(2)}%`}
      </Text>
      <Text>
        Positions{" "}
        {s.positions.length === 0
          ? "none"
          : s.positions
              .slice(0, 8)
              .map((p) => `${oneLine(p.symbol, 12)} ${p.qty}`)
              .join("  ") + (s.positions.length > 8 ? `  +${s.positions.length - 8} more` : "")}
      </Text>
      {s.lastDecision ? (
        <Box flexDirection="column">
          <Text>
            Last decision {s.lastDecision.time}
            {s.lastDecision.failed ? <Text color="red"> (failed)</Text> : null}:{" "}
            {s.lastDecision.orders.length === 0
              ? "no order"
              : s.lastDecision.orders.map((o) => oneLine(o, 40)).join(", ")}
          </Text>
          {s.lastDecision.rationale ? (
            <Text dimColor> “{oneLine(s.lastDecision.rationale, 100)}”</Text>
          ) : null}
        </Box>
      ) : null}
      {s.toolCalls.length > 0 ? (
        <Text>Tools {s.toolCalls.map((t) => oneLine(t, 30)).join(" › ")}</Text>
      ) : null}
      {s.llm ? (
        <Text>
          LLM calls {int(s.llm.calls)} · tokens {int(s.llm.tokens)} · cost $
          {s.llm.costUsd.toFixed(4)}
          {s.llm.maxCostUsd !== null
            ? ` · budget left $${Math.max(0, s.llm.maxCostUsd - s.llm.costUsd).toFixed(4)}`
            : ""}
          {s.llm.maxTokens !== null
            ? ` · tokens left ${int(Math.max(0, s.llm.maxTokens - s.llm.tokens))}`
            : ""}
        </Text>
      ) : null}
      <Text>
        Fills {int(c.fills)} · trades closed {int(c.tradesClosed)} ·{" "}
        <Text color={c.rejected > 0 ? "yellow" : undefined}>rejected {int(c.rejected)}</Text> ·{" "}
        <Text color={c.failedDecisions > 0 ? "red" : undefined}>
          failed decisions {int(c.failedDecisions)}
        </Text>{" "}
        · <Text color={c.retries > 0 ? "yellow" : undefined}>retries {int(c.retries)}</Text>
      </Text>
      {s.waiting ? <Text color="yellow">{oneLine(s.waiting, 110)}</Text> : null}
      {s.warnings.map((w, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: warnings are only appended, never reordered
        <Text key={i} color="yellow">
          warning: {oneLine(w, 110)}
        </Text>
      ))}
      {notice ? <Text color="yellow">{notice}</Text> : null}
    </Box>
  );
}
