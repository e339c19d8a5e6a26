import { escapeHtml } from "./escape.js";

/** No fetch of any kind: scripts and styles only inline, images only data: URLs. */
export const CSP =
  "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:";

export const STYLE = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#222;background:#fafafa}
main{max-width:1200px;margin:0 auto;padding:16px 24px 48px}
h1{font-size:20px;margin:8px 0}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #ddd;padding-bottom:4px}
h3{font-size:15px;margin:16px 0 6px}
.meta{color:#555}.note{color:#8a5a00;background:#fff6e0;padding:4px 8px;border-radius:4px}
.chart{height:420px;background:#fff;border:1px solid #e4e4e4}.chart.small{height:260px}
.scroll{max-height:560px;overflow:auto;border:1px solid #e4e4e4;background:#fff}.scroll.tall{max-height:none}
table{border-collapse:collapse;font-size:12.5px;width:100%}
th,td{padding:3px 8px;border-bottom:1px solid #eee;text-align:left;vertical-align:top;overflow-wrap:break-word}
th{position:sticky;top:0;background:#f3f3f3;white-space:nowrap}td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}td.t,td:first-child{white-space:nowrap}
.grid{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:24px}
details{background:#fff;border:1px solid #e4e4e4;border-radius:4px;margin:4px 0;padding:4px 8px}
summary{cursor:pointer}pre{white-space:pre-wrap;word-break:break-word;margin:4px 0;font-size:12px}
.err{color:#b00020}.tag{display:inline-block;padding:0 6px;border-radius:3px;background:#eef;margin-right:4px}
footer{color:#777;font-size:12px;margin-top:32px}
`;

const NUMERIC = /^-?\d+(\.\d+)?(e[+-]?\d+)?$/i;
/** A number formatted for people: thousands separated, fixed decimals, perhaps a sign. */
const FORMATTED = /^[+-]?\d{1,3}(,\d{3})*(\.\d+)?$/;
/** A date or date-time label as the run's files write them. */
const TIME_LABEL = /^\d{4}-\d\d-\d\d([ T]\d\d:\d\d(:\d\d(\.\d+)?)?)?(Z|[+-]\d\d:?\d\d)?$/;

/**
 * A number read from a run file, for people: four decimals from 1 up, six significant digits
 * below (a fractional quantity of 1e-8 must not print as 0); integers and non-numbers as written.
 */
export function readableNumber(text: string): string {
  if (!NUMERIC.test(text)) return text;
  const n = Number(text);
  if (Number.isInteger(n) && !/e/i.test(text)) return text;
  return String(Math.abs(n) >= 1 ? Number(n.toFixed(4)) : Number(n.toPrecision(6)));
}

// What `toLocaleString("en-US", { maximumFractionDigits: 4 })` builds on every call, built once.
const PEOPLE = new Intl.NumberFormat("en-US", { maximumFractionDigits: 4 });

/** A number for people: thousands separated, at most four decimals; null as an em dash. */
export function formatValue(v: unknown): string {
  if (v === null || v === undefined) return "—";
  if (typeof v === "number") {
    return Number.isFinite(v) ? PEOPLE.format(v) : String(v);
  }
  return String(v);
}

/** A table cell: numbers right-aligned and rounded, anything else as written. */
export function cell(v: unknown): string {
  if (typeof v === "number") return `<td class="n">${escapeHtml(formatValue(v))}</td>`;
  if (typeof v === "string" && NUMERIC.test(v)) {
    return `<td class="n">${escapeHtml(readableNumber(v))}</td>`;
  }
  // Already formatted for people (a metric with its decimals): right-aligned, as it is.
  if (typeof v === "string" && FORMATTED.test(v)) return `<td class="n">${escapeHtml(v)}</td>`;
  // Text wraps (a 114-character reason must not push the values off the page); times do not.
  if (typeof v === "string" && TIME_LABEL.test(v)) return `<td class="t">${escapeHtml(v)}</td>`;
  return `<td>${escapeHtml(formatValue(v))}</td>`;
}

export function table(id: string, columns: readonly string[], rows: readonly unknown[][]): string {
  const head = columns.map((c) => `<th>${escapeHtml(c)}</th>`).join("");
  const body = rows.map((r) => `<tr>${r.map(cell).join("")}</tr>`).join("\n");
  return `<div class="scroll"><table id="${escapeHtml(id)}"><thead><tr>${head}</tr></thead><tbody>\n${body}\n</tbody></table></div>`;
}

/** "showing the first N of M; all are in <file>" when a table was cut to the page's budget. */
export function cutNote(shown: number, total: number, file: string): string {
  return shown < total
    ? `<p class="note">Showing the first ${shown.toLocaleString("en-US")} of ${total.toLocaleString("en-US")}; all are in ${escapeHtml(file)}.</p>`
    : "";
}

export function page(title: string, body: string, scripts: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${body}
<footer>Written by agenticbt from the run directory's files; works offline. Charts: TradingView Lightweight Charts™ (Apache-2.0, https://www.tradingview.com/).</footer>
</main>
${scripts}
</body>
</html>
`;
}
