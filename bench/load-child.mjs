// Loads one CSV with the built loader in a fresh process and reports time and memory, so the
// resident-set growth is the loader's own (the parent's generator and heap are not in it).
import { loadCsv } from "../dist/data/load-csv.js";

const file = process.argv[2];
const extra = process.argv[3] ? JSON.parse(process.argv[3]) : {};
globalThis.gc?.();
const rssBefore = process.memoryUsage.rss();
const t0 = performance.now();
const loaded = loadCsv(file, extra);
const ms = performance.now() - t0;
const maxRss = process.resourceUsage().maxRSS * 1024;
process.stdout.write(
  `${JSON.stringify({ ms, rows: loaded.rows, rssBefore, maxRss, bytesPerRow: (maxRss - rssBefore) / loaded.rows })}\n`,
);
