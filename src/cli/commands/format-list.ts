import path from "node:path";
import type { ListOutput, RunListEntry } from "../../rundir/schemas.js";
import { usdText } from "../../util/usd-text.js";
import { type FitColumn, fitTable } from "./fit-table.js";
import { fixed, WIDTH, wrap } from "./text-layout.js";

// The id is never cut (users copy it). A name longer than 24 characters and the symbols,
// parameters, model and status are cut first; then B&H, the model and the parameters are
// dropped; then names are cut to 16 characters, the symbols dropped, names cut to 8, and last
// cost, trades, status and return dropped.
const COLUMNS: FitColumn[] = [
  { header: "ID", align: "left" },
  {
    header: "NAME",
    align: "left",
    cuts: [
      [0, 24],
      [3, 16],
      [4, 8],
    ],
  },
  { header: "SYMBOLS", align: "left", min: 7, drop: 4 },
  { header: "PARAMS", align: "left", min: 12, drop: 3 },
  { header: "MODEL", align: "left", min: 8, drop: 2 },
  { header: "STATUS", align: "left", min: 9, drop: 7 },
  { header: "RETURN %", align: "right", drop: 8 },
  { header: "B&H %", align: "right", drop: 1 },
  { header: "TRADES", align: "right", drop: 6 },
  { header: "COST", align: "right", drop: 5 },
];
const MODEL = 4;
const COST = 9;

export interface ListView extends ListOutput {
  /** Every run id in the root before filtering: shown prefixes are unique among all of them. */
  allIds?: string[];
}

/** `list` as a table fitting `width`, one row per run, then the reasons of unreadable runs. */
export function formatList(out: ListView, width = WIDTH): string {
  if (out.runs.length === 0) {
    return out.allIds?.length
      ? `No run matches (${out.allIds.length} run(s) in ${out.runsRoot}).`
      : `No runs in ${out.runsRoot}.`;
  }
  const all = out.allIds ?? out.runs.map((r) => r.id);
  const short = new Map(shortIds(all).map((s, i) => [all[i], s]));
  const ids = out.runs.map((r) => short.get(r.id));
  const rows = out.runs.map((r, i) => [
    oneLine(ids[i] ?? r.id),
    oneLine(r.name ?? r.strategy ?? "-"),
    oneLine(r.symbols.join(",") || "-"),
    oneLine(r.keyParams),
    oneLine(r.model ?? "-"),
    oneLine(r.status),
    r.returnPct === null ? "-" : fixed(r.returnPct),
    r.buyHoldReturnPct === null ? "-" : fixed(r.buyHoldReturnPct),
    r.trades === null ? "-" : String(r.trades),
    // An LLM run (it has a model) without a cost: its price is unknown, never "-" nor $0.
    r.costUsd !== null ? usdText(r.costUsd) : r.model !== null || r.usageUnknown ? "unknown" : "-",
  ]);
  // Model and cost columns of dashes (code strategies only) say nothing.
  const columns = COLUMNS.filter(
    (_, i) =>
      (i !== MODEL || out.runs.some((r) => r.model !== null)) &&
      (i !== COST ||
        out.runs.some((r) => r.costUsd !== null || r.model !== null || r.usageUnknown)),
  );
  const cells = rows.map((row) => row.filter((_, i) => columns.includes(COLUMNS[i] as FitColumn)));
  const lines = [fitTable(columns, cells, width)];
  const unreadable = out.runs.filter((r) => r.error !== null);
  if (unreadable.length) {
    lines.push("", ...unreadable.flatMap((r) => reasonLines(r, width)));
  }
  const counted =
    all.length !== out.runs.length
      ? `${out.runs.length} of ${all.length} run(s)`
      : `${out.runs.length} run(s)`;
  lines.push(
    "",
    ...wrap(
      `${counted} in ${out.runsRoot}. IDs are shown as unique prefixes.`.split(" "),
      "",
      width,
      " ",
    ),
  );
  return lines.join("\n");
}

/**
 * A cell's text on one line: printReport made the other control characters visible and kept line
 * breaks and tabs, which would split a row or shift its columns; they are shown as ␊ and ␉ too.
 */
const oneLine = (text: string) =>
  text.replace(/[\n\t]/g, (ch) => String.fromCharCode(0x2400 + ch.charCodeAt(0)));

/** "<id>: unreadable: <reason>", word-wrapped, paths inside the run shown relative to it. */
function reasonLines(r: RunListEntry, width: number): string[] {
  const reason = (r.error ?? "").replaceAll(`${r.dir}${path.sep}`, "");
  const [first = "", ...rest] = wrap(
    `${r.id}: unreadable: ${reason}`.split(" "),
    "",
    width - 4,
    " ",
  );
  return [first, ...rest.map((l) => `    ${l}`)];
}

/**
 * Ids are long (time, name, suffix); the table shows each one's shortest unique prefix that still
 * holds the start time to the second (`YYYYMMDD-HHMMSS`), which `show` and `diff` accept as the id.
 */
export function shortIds(ids: string[]): string[] {
  const MIN = 15;
  return ids.map((id) => {
    for (let n = Math.min(MIN, id.length); n < id.length; n++) {
      const p = id.slice(0, n);
      if (ids.every((o) => o === id || !o.startsWith(p))) return p;
    }
    return id;
  });
}
