import { escapeControl } from "../util/terminal-text.js";
import { usdText } from "../util/usd-text.js";
import {
  callsInFlight,
  type ExperimentLiveState,
  type ExperimentRunView,
  spentSoFar,
  tokensSoFar,
  waitingRuns,
} from "./experiment-state.js";
import { progressBar } from "./progress-bar.js";

const INT = new Intl.NumberFormat("en-US");
const int = (v: number) => INT.format(v);

/** m:ss, or h:mm:ss past an hour. */
function clock(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = String(seconds % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${s}` : `${m}:${s}`;
}

const secondsText = (ms: number) => `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;

/** One line cut to `width` columns with an ellipsis (the view's text is one column a character). */
export function cut(text: string, width: number): string {
  // Spaces kept as they are: the view aligns with them.
  const flat = escapeControl(text).replace(/[\n\r\t\v\f]/g, " ");
  return flat.length > width ? `${flat.slice(0, Math.max(0, width - 1))}…` : flat;
}

/** Runs done, running, waiting and failed. */
export function runsText(s: ExperimentLiveState): string {
  const failed = s.failed > 0 ? ` · ${int(s.failed)} failed` : "";
  return `runs ${int(s.done)}/${int(s.total)} done · ${int(s.running.length)} running · ${int(waitingRuns(s))} waiting${failed}`;
}

/** Calls in flight (and the oldest's wait), calls answered, retries, tokens. */
export function callsText(s: ExperimentLiveState, nowMs: number): string {
  const { count, oldestMs } = callsInFlight(s);
  const oldest = oldestMs === null ? "" : ` (oldest ${secondsText(nowMs - oldestMs)})`;
  const retries = s.retries > 0 ? ` · retries ${int(s.retries)}` : "";
  return `calls in flight ${count}${oldest} · calls ${int(s.calls)}${retries} · tokens ${int(tokensSoFar(s))}`;
}

/** The spend so far against the budget: "unknown" when a model's price is (never $0.0000). */
export function spentText(s: ExperimentLiveState): string {
  const spent = spentSoFar(s);
  const budget = s.budgetUsd === null ? "" : ` of budget $${s.budgetUsd}`;
  const why = spent === null ? " (a model's price is unknown)" : "";
  // Before the first call nothing says whether the model has a price: no $0.0000 for it.
  const nothingYet = s.calls === 0 && s.billedUsd === 0 && !s.billedUnknown;
  return `spent ${nothingYet ? "—" : usdText(spent)}${budget}${why}`;
}

/** A running run: key and cell, its bars and its call's wait, then its window and repeat (what
 * a narrow terminal cuts first: the key names them too). */
function runLine(r: ExperimentRunView, nowMs: number, width: number): string {
  const head = `  ${r.key}  ${r.cell}  `;
  const bars =
    r.barsTotal > 0
      ? `${int(r.barsDone)}/${int(r.barsTotal)} bars`
      : r.remote
        ? "on a worker"
        : "starting";
  const call = r.callStartedMs === null ? "" : ` · call ${secondsText(nowMs - r.callStartedMs)}`;
  const where = `  ${r.window}  repeat ${r.repeat}${r.resumed ? " (resumed)" : ""}`;
  const tail = `${bars}${call}`;
  // The bar takes what the width leaves, up to 20 cells; under 6 it goes.
  const room = Math.min(20, width - head.length - tail.length - where.length - 3);
  const bar = room >= 6 && r.barsTotal > 0 ? `${progressBar(r.barsDone, r.barsTotal, room)} ` : "";
  return `${head}${bar}${tail}${where}`;
}

/**
 * The experiment's view as lines, each at most `columns - 1` wide (a line never wraps: a
 * wrapped line could not be erased); at most `rows - 1` lines (it is drawn again from its top).
 */
export function experimentFrame(
  s: ExperimentLiveState,
  nowMs: number,
  elapsedMs: number,
  columns: number,
  rows = 40,
  notice: string | null = null,
): string[] {
  const width = Math.max(20, columns - 1);
  const status = s.status === null ? "" : ` (${s.status})`;
  const runs = runsText(s);
  const room = Math.min(30, width - runs.length - clock(elapsedMs).length - 6);
  const bar = room >= 10 ? `${progressBar(s.done, s.total, room)} ` : "";
  const head = [
    `Experiment ${s.name}${status} · ${s.id}`,
    `${bar}${runs} · ${clock(elapsedMs)}`,
    callsText(s, nowMs),
    spentText(s),
  ];
  const tail: string[] = [];
  if (s.budgetStop !== null) tail.push(`No more runs start: ${s.budgetStop}`);
  for (const w of s.warnings) tail.push(`warning: ${w}`);
  if (notice !== null) tail.push(notice);
  const fit = Math.max(1, rows - 1 - head.length - tail.length);
  const shown = s.running.length > fit ? s.running.slice(0, fit - 1) : s.running;
  const more = s.running.length - shown.length;
  const body = shown.map((r) => runLine(r, nowMs, width));
  if (more > 0) body.push(`  +${more} more running`);
  return [...head, ...body, ...tail].map((l) => cut(l, width));
}
