// Runs the real CLI in this process and reports its peak memory, so the bench measures
// `agenticbt run` end to end (parse, simulate, write the run directory).
import { main } from "../dist/cli.js";

const t0 = performance.now();
const code = await main(["node", "agenticbt", ...process.argv.slice(2)]);
const ms = performance.now() - t0;
// The live view draws in a process of its own, which tells its CPU time as it closes.
const { lastViewCpuMs } = await import("../dist/ui/live-renderer.js");
const viewCpuMs = lastViewCpuMs();
process.stderr.write(
  `\nBENCH ${JSON.stringify({ code, ms, cpuMs: cpuMs() + (viewCpuMs ?? 0), viewCpuMs, maxRssMB: process.resourceUsage().maxRSS / 1024 })}\n`,
);
process.exitCode = code;

/** CPU time of the whole process (all threads), user and system: steadier than wall time on a
 * shared machine. */
function cpuMs() {
  const u = process.resourceUsage();
  return (u.userCPUTime + u.systemCPUTime) / 1000;
}
