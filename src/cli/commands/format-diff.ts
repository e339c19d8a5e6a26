import { formatMetric, metricFormat } from "../../metrics/metric-labels.js";
import {
  explainDivergence,
  memoryCounts,
  shownDelta,
  tradeCounts,
  tradeReturn,
} from "../../report/diff-wording.js";
import type { DiffOutput, MemoryDiff, TradeKey } from "../../rundir/schemas.js";
import { type Column, fixed, inline, table, WIDTH, wrap } from "./text-layout.js";

/** Trades listed per side before "… and N more". */
const MAX_TRADES = 10;

/** `diff <runA> <runB>` as plain text, A → B. */
export function formatDiff(d: DiffOutput): string {
  const out = [`A  ${d.a.id}`, `B  ${d.b.id}`];
  out.push("", "Config (A -> B)");
  const c = d.config;
  if (!c.changed.length && !c.added.length && !c.removed.length) out.push("  identical");
  const v = (x: unknown) => inline(x, 36);
  for (const x of c.changed) out.push(`  ~ ${x.key}: ${v(x.a)} -> ${v(x.b)}`);
  for (const x of c.added) out.push(`  + ${x.key}: ${v(x.b)}`);
  for (const x of c.removed) out.push(`  - ${x.key}: ${v(x.a)}`);

  out.push("", "Metrics");
  const cols: Column[] = [
    { header: "  metric", align: "left" },
    { header: "A", align: "right" },
    { header: "B", align: "right" },
    { header: "B - A", align: "right" },
  ];
  out.push(
    table(
      cols,
      d.metrics.map((m) => [
        `  ${metricFormat(m.key).label}`,
        formatMetric(m.key, m.a),
        formatMetric(m.key, m.b),
        shownDelta(m.key, m.a, m.b),
      ]),
    ),
  );

  out.push("", "Playbook");
  if (d.playbookDiff === "") out.push("  identical");
  else
    out.push(
      ...d.playbookDiff
        .trimEnd()
        .split("\n")
        .map((l) => `  ${l}`),
    );

  out.push("", ...memory("Notes", d.notes), ...memory("Reviews", d.reviews));

  out.push("", "Journal");
  const j = d.journal;
  out.push(
    table(
      [
        { header: "  ", align: "left" },
        { header: "A", align: "right" },
        { header: "B", align: "right" },
      ],
      [
        ["  days", String(j.a.days), String(j.b.days)],
        ["  entries", String(j.a.entries), String(j.b.entries)],
        ["  words", String(j.a.words), String(j.b.words)],
        ["  words per day", fixed(j.a.wordsPerDay, 1), fixed(j.b.wordsPerDay, 1)],
      ],
    ),
  );

  const t = d.trades;
  out.push("", ...sentence(`Trades: ${tradeCounts(t)}`));
  out.push(...trades("A", t.onlyA), ...trades("B", t.onlyB));

  out.push("", ...policy(d.policy));

  const dv = explainDivergence(d.divergence);
  out.push("", ...sentence(dv.sentence));
  if (dv.a !== null) out.push(`  A: ${inline(dv.a, WIDTH - 5)}`);
  if (dv.b !== null) out.push(`  B: ${inline(dv.b, WIDTH - 5)}`);
  return out.join("\n");
}

/** A sentence cut at spaces into lines of the text's width, the continuation lines indented. */
function sentence(text: string): string[] {
  const [first = "", ...rest] = wrap(text.split(" "), "", WIDTH - 2, " ");
  return [first, ...rest.map((l) => `  ${l}`)];
}

function memory(title: string, m: MemoryDiff): string[] {
  const out = [`${title}: ${memoryCounts(m)}`];
  if (m.added.length) out.push(...wrap(m.added, "  + "));
  if (m.changed.length) out.push(...wrap(m.changed, "  ~ "));
  if (m.removed.length) out.push(...wrap(m.removed, "  - "));
  return out;
}

/** Evolution's changes per run; the starting policies differ under Config (memoryPolicy.*). */
function policy(p: DiffOutput["policy"]): string[] {
  if (p.a.length === 0 && p.b.length === 0) return ["Memory policy changes: none in either run"];
  const out = ["Memory policy changes (evolution, in force from the month shown)"];
  for (const [side, list] of [
    ["A", p.a],
    ["B", p.b],
  ] as const) {
    if (list.length === 0) out.push(`  ${side}: none`);
    for (const c of list) {
      out.push(
        `  ${side}: from ${c.effectiveFrom}  ${c.key}: ${inline(c.before, 12)} -> ${inline(c.after, 12)}  (${inline(c.reason, 40)})`,
      );
    }
  }
  return out;
}

function trades(side: string, list: TradeKey[]): string[] {
  const out = list
    .slice(0, MAX_TRADES)
    .map(
      (t) =>
        `  ${side}: ${t.symbol} ${t.side} ${t.qty}  ${t.entryTime} -> ${t.exitTime || "open"}${t.returnPct === null ? "" : `  ${tradeReturn(t)}`}`,
    );
  if (list.length > MAX_TRADES) out.push(`  ${side}: ... and ${list.length - MAX_TRADES} more`);
  return out;
}
