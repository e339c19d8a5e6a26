import type { SweepListing } from "../../sweep/sweep-list.js";

/** `list`'s table of sweeps (after the runs'): id, name, status, progress, objective, best. */
export function formatSweepList(sweeps: readonly SweepListing[], width: number): string {
  const rows = [["SWEEP", "NAME", "STATUS", "DONE", "OBJECTIVE", "BEST"]];
  for (const s of sweeps) {
    const best = s.best
      ? `${s.best.value.toFixed(4)} ${Object.entries(s.best.settings)
          .map(([k, v]) => `${k}=${String(v)}`)
          .join(" ")}`
      : "";
    rows.push([s.id, s.name, s.status, `${s.done}/${s.total}`, s.objective, best]);
  }
  const widths = (rows[0] as string[]).map((_, k) =>
    Math.max(...rows.map((r) => (r[k] as string).length)),
  );
  const lines = rows.map((r) =>
    r
      .map((c, k) => (k === r.length - 1 ? c : c.padEnd(widths[k] as number)))
      .join("  ")
      .slice(0, Math.max(40, width)),
  );
  return `\nSweeps:\n${lines.join("\n")}`;
}
