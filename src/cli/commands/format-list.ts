import path from "node:path";
import type { ListOutput, RunListEntry } from "../../report/schemas.js";
import { type Column, fixed, table, WIDTH, wrap } from "./text-layout.js";

const COLUMNS: Column[] = [
  { header: "DATE", align: "left" },
  { header: "ID", align: "left" },
  { header: "STRATEGY", align: "left", shrink: true },
  { header: "MODEL", align: "left", shrink: true },
  { header: "STATUS", align: "left", shrink: true },
  { header: "RETURN %", align: "right" },
  { header: "B&H %", align: "right" },
  { header: "TRADES", align: "right" },
  { header: "COST", align: "right" },
];

/** `list` as a table, one row per run, then the reasons of unreadable runs. */
export function formatList(out: ListOutput): string {
  if (out.runs.length === 0) return `No runs in ${out.runsRoot}.`;
  const ids = shortIds(out.runs.map((r) => r.id));
  const rows = out.runs.map((r, i) => [
    r.startedAt ? r.startedAt.slice(0, 10) : "-",
    ids[i] ?? r.id,
    r.strategy ?? "-",
    r.model ?? "-",
    r.status,
    r.returnPct === null ? "-" : fixed(r.returnPct),
    r.buyHoldReturnPct === null ? "-" : fixed(r.buyHoldReturnPct),
    r.trades === null ? "-" : String(r.trades),
    r.costUsd === null ? "-" : `$${r.costUsd.toFixed(4)}`,
  ]);
  const lines = [table(COLUMNS, rows)];
  const unreadable = out.runs.filter((r) => r.error !== null);
  if (unreadable.length) {
    lines.push("", ...unreadable.flatMap(reasonLines));
  }
  lines.push("", `${out.runs.length} run(s) in ${out.runsRoot}. IDs are shown as unique prefixes.`);
  return lines.join("\n");
}

/** "<id>: unreadable: <reason>", word-wrapped, paths inside the run shown relative to it. */
function reasonLines(r: RunListEntry): string[] {
  const reason = (r.error ?? "").replaceAll(`${r.dir}${path.sep}`, "");
  const [first = "", ...rest] = wrap(
    `${r.id}: unreadable: ${reason}`.split(" "),
    "",
    WIDTH - 4,
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
