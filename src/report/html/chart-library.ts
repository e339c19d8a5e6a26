import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

/** The standalone build defines `window.LightweightCharts`; the package exports no path to it,
 * so it is found next to the package's package.json. */
const STANDALONE = "dist/lightweight-charts.standalone.production.js";

let cached: string | null = null;

/**
 * The chart library's source, inlined into every report so the page works offline. Refuses a
 * build that could end the inline <script> element early (no escaping can fix JavaScript code).
 */
export function chartLibrarySource(): string {
  if (cached !== null) return cached;
  const pkg = createRequire(import.meta.url).resolve("lightweight-charts/package.json");
  const file = path.join(path.dirname(pkg), STANDALONE);
  const text = fs.readFileSync(file, "utf8");
  if (/<\/script|<!--/i.test(text)) {
    throw new Error(`${file} contains "</script" or "<!--" and cannot be inlined in a page.`);
  }
  cached = text;
  return text;
}
