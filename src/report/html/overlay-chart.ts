import { minMaxLine } from "./downsample.js";
import { escapeHtml } from "./escape.js";

/** One curve of the overlay: times in ms, one value per time. */
export interface OverlayLine {
  label: string;
  times: ArrayLike<number>;
  values: ArrayLike<number>;
}

const WIDTH = 960;
const HEIGHT = 360;
const PAD = { left: 80, right: 16, top: 12, bottom: 28 };
/** Points per line: a compare page stays small with many long runs. */
const POINTS = 800;
/** Distinct at a glance, and still told apart in print. */
const COLOURS = [
  "#1f77b4",
  "#d62728",
  "#2ca02c",
  "#9467bd",
  "#ff7f0e",
  "#17becf",
  "#8c564b",
  "#e377c2",
  "#7f7f7f",
  "#bcbd22",
];

const colourOf = (i: number): string => COLOURS[i % COLOURS.length] as string;

/**
 * The curves drawn over each other on shared axes, as inline SVG: no script and no network, so
 * the page works offline under the report's content security policy. Empty when no line has a
 * point.
 */
export function overlayChart(lines: readonly OverlayLine[], title: string): string {
  const drawn = lines.map((l) => minMaxLine(l.times, l.values, POINTS));
  let t0 = Number.POSITIVE_INFINITY;
  let t1 = Number.NEGATIVE_INFINITY;
  let v0 = Number.POSITIVE_INFINITY;
  let v1 = Number.NEGATIVE_INFINITY;
  for (const d of drawn) {
    for (let k = 0; k < d.t.length; k++) {
      const t = d.t[k] as number;
      const v = d.v[k] as number;
      t0 = Math.min(t0, t);
      t1 = Math.max(t1, t);
      v0 = Math.min(v0, v);
      v1 = Math.max(v1, v);
    }
  }
  if (!Number.isFinite(t0)) return "";
  const spanT = t1 > t0 ? t1 - t0 : 1;
  const spanV = v1 > v0 ? v1 - v0 : 1;
  const w = WIDTH - PAD.left - PAD.right;
  const h = HEIGHT - PAD.top - PAD.bottom;
  const x = (t: number) => (PAD.left + ((t - t0) / spanT) * w).toFixed(1);
  const y = (v: number) => (PAD.top + (1 - (v - v0) / spanV) * h).toFixed(1);
  const paths = drawn.map((d, i) => {
    const pts: string[] = [];
    for (let k = 0; k < d.t.length; k++) pts.push(`${x(d.t[k] as number)},${y(d.v[k] as number)}`);
    return `<polyline fill="none" stroke="${colourOf(i)}" stroke-width="1.5" points="${pts.join(" ")}"><title>${escapeHtml(lines[i]?.label ?? "")}</title></polyline>`;
  });
  // The line's times are in seconds (the chart library's unit).
  const day = (t: number) => new Date(t * 1000).toISOString().slice(0, 10);
  const axis = [
    `<line x1="${PAD.left}" y1="${PAD.top}" x2="${PAD.left}" y2="${PAD.top + h}" stroke="#999"/>`,
    `<line x1="${PAD.left}" y1="${PAD.top + h}" x2="${PAD.left + w}" y2="${PAD.top + h}" stroke="#999"/>`,
    `<text x="${PAD.left - 6}" y="${PAD.top + 10}" text-anchor="end" font-size="11">${fmt(v1)}</text>`,
    `<text x="${PAD.left - 6}" y="${PAD.top + h}" text-anchor="end" font-size="11">${fmt(v0)}</text>`,
    `<text x="${PAD.left}" y="${HEIGHT - 8}" font-size="11">${day(t0)}</text>`,
    `<text x="${PAD.left + w}" y="${HEIGHT - 8}" text-anchor="end" font-size="11">${day(t1)}</text>`,
  ];
  const legend = lines
    .map((l, i) => `<span style="color:${colourOf(i)}">■</span> ${escapeHtml(l.label)}`)
    .join(" &nbsp; ");
  return [
    `<svg class="overlay" role="img" aria-label="${escapeHtml(title)}" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="100%" xmlns="http://www.w3.org/2000/svg">`,
    ...axis,
    ...paths,
    "</svg>",
    `<p class="legend">${legend}</p>`,
  ].join("\n");
}

const fmt = (v: number) =>
  v.toLocaleString("en-US", { maximumFractionDigits: 0, useGrouping: true });
