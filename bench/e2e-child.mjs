// Runs the real CLI in this process and reports its peak memory, so the bench measures
// `agenticbt run` end to end (parse, simulate, write the run directory).
import { main } from "../dist/cli.js";

const t0 = performance.now();
const code = await main(["node", "agenticbt", ...process.argv.slice(2)]);
const ms = performance.now() - t0;
process.stderr.write(
  `\nBENCH ${JSON.stringify({ code, ms, maxRssMB: process.resourceUsage().maxRSS / 1024 })}\n`,
);
process.exitCode = code;
