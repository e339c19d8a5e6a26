import type { SweepListing } from "../../sweep/sweep-list.js";
import { usdText } from "../../util/usd-text.js";

/** `list`'s table of sweeps (after the runs'): id, name, status, progress, objective, best; and
 * what an LLM experiment's runs were billed ("unknown" when a price is, never $0.0000). */
export function formatSweepList(sweeps: readonly SweepListing[], width: number): string {
  const spent = sweeps.some((s) => s.spentUsd !== undefined);
  const rows = [
    ["SWEEP", "NAME", "STATUS", "DONE", ...(spent ? ["SPENT"] : []), "OBJECTIVE", "BEST"],
  ];
  for (const s of sweeps) {
    const best = s.best
      ? `${s.best.value.toFixed(4)} ${Object.entries(s.best.settings)
          .map(([k, v]) => `${k}=${String(v)}`)
          .join(" ")}`
      : "";
    const cost = s.spentUsd === undefined ? "" : usdText(s.spentUsd);
    rows.push([
      s.id,
      s.name,
      s.status,
      `${s.done}/${s.total}`,
      ...(spent ? [cost] : []),
      s.objective,
      best,
    ]);
  }
  const widths = (rows[0] as string[]).map((_, k) =>
    Math.max(...rows.map((r) => (r[k] as string).length)),
  );
  const lines = rows.map((r) =>
    r
      .map((c, k) => (k === r.length - 1 ? c : c.padEnd(widths[k] as number)))
      .join("  ")
      .trimEnd()
      .slice(0, Math.max(40, width)),
  );
  return `\nSweeps:\n${lines.join("\n")}`;
}
