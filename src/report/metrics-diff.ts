import { DIFF_METRICS } from "../metrics/metric-labels.js";
import { llmCostUsd, numberAt, type ResultFile } from "../rundir/run-record.js";
import type { MetricRow } from "../rundir/schemas.js";

/** Metrics of two runs side by side, with the delta B − A (null when either is missing). */
export function diffMetrics(a: ResultFile, b: ResultFile): MetricRow[] {
  const rows: MetricRow[] = DIFF_METRICS.map((key) => {
    const x = numberAt(a.metrics, key);
    const y = numberAt(b.metrics, key);
    return { key, a: x, b: y, delta: x !== null && y !== null ? y - x : null };
  });
  const ca = llmCostUsd(a);
  const cb = llmCostUsd(b);
  if (ca !== null || cb !== null) {
    rows.push({
      key: "llmCostUsd",
      a: ca,
      b: cb,
      delta: ca !== null && cb !== null ? cb - ca : null,
    });
  }
  return rows;
}
