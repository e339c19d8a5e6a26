import { UsageError } from "../errors/usage-error.js";
import type { ExperimentEstimate, Range } from "../sweep/experiment/experiment-estimate.js";
import { escapeControl, jsonForTerminal } from "../util/terminal-text.js";
import { confirm } from "./confirm.js";

/** A count as people read it: 1234567 → 1.23M. */
function count(n: number): string {
  if (n >= 1e9) return `${(n / 1e9).toFixed(2)}G`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(2)}M`;
  if (n >= 1e4) return `${(n / 1e3).toFixed(1)}k`;
  return String(Math.round(n));
}

const runs = (n: number) => `${n} run${n === 1 ? "" : "s"}`;
/** Dollars: cents from $1, two significant digits below it ($0.014), never a bare $0.00. */
const usd = (x: number) => `$${x >= 1 || x === 0 ? x.toFixed(2) : x.toPrecision(2)}`;
const tokens = (r: Range) => `~${count(r.point)} (${count(r.low)}..${count(r.high)})`;
const dollars = (r: Range | null) =>
  r === null ? "$ unknown" : `~${usd(r.point)} (${usd(r.low)}..${usd(r.high)})`;

/** The estimate as the command prints it before an experiment starts. */
export function formatEstimate(e: ExperimentEstimate): string {
  const lines = [
    `Estimate: ${runs(e.runs)}, ${e.decisions} decisions, ${e.moments} memory turns, ${tokens(e.calls)} model calls`,
  ];
  for (const c of e.cells) {
    const price =
      c.price === null
        ? ` (no price for model "${c.model}": pass --prices <file.json>)`
        : ` at $${c.price.input}/$${c.price.output} per 1M tokens in/out`;
    lines.push(
      `  ${c.label}: ${runs(c.runs)}, first prompt ${count(c.firstPromptTokens)} tokens; prompt ${tokens(c.promptTokens)} + completion ${tokens(c.completionTokens)} tokens, ${dollars(c.usd)}${price}`,
    );
  }
  // Unknown in total when a cell's price is: what the priced cells come to, said as a part.
  const priced = e.cells.filter((c) => c.usd !== null);
  const part =
    e.usd === null && priced.length > 0
      ? ` (the ${priced.length} priced cell${priced.length === 1 ? "" : "s"}: ${dollars(
          priced.reduce<Range>(
            (a, c) => {
              const u = c.usd as Range;
              return { low: a.low + u.low, point: a.point + u.point, high: a.high + u.high };
            },
            { low: 0, point: 0, high: 0 },
          ),
        )})`
      : "";
  lines.push(
    `  total: ${tokens(e.tokens)} tokens (prompt ${tokens(e.promptTokens)}), ${dollars(e.usd)}${part}`,
    `  from each cell's first prompt (${e.charsPerToken} characters per token) × its turns; prices: ${e.prices}, no prompt-cache discount.`,
  );
  return lines.join("\n");
}

/** Where the question is asked and the estimate shown; injectable, to test it without a
 * terminal. `stdout` shows a refused experiment's estimate, `output` every other. */
export interface LaunchIo {
  input: NodeJS.ReadableStream & { isTTY?: boolean };
  output: NodeJS.WritableStream;
  stdout: NodeJS.WritableStream;
}

const STDIO: LaunchIo = { input: process.stdin, output: process.stderr, stdout: process.stdout };

/**
 * Shows the estimate and decides whether the experiment starts: with `--yes` it does; on a
 * terminal the user is asked; otherwise it is refused (exit 2) with the estimate shown.
 */
export async function confirmLaunch(
  e: ExperimentEstimate,
  o: { yes: boolean; json: boolean; quiet: boolean },
  io: LaunchIo = STDIO,
): Promise<boolean> {
  const text = escapeControl(formatEstimate(e));
  if (o.yes) {
    if (!o.quiet && !o.json) io.output.write(`${text}\n`);
    return true;
  }
  if (!io.input.isTTY) {
    io.stdout.write(o.json ? `${jsonForTerminal({ estimate: e })}\n` : `${text}\n`);
    throw new UsageError(
      `Not started: an experiment of ${runs(e.runs)} makes model calls that cost money, and stdin is not a terminal to ask. Read the estimate above, then add --yes to start it.`,
    );
  }
  io.output.write(`${text}\n`);
  return confirm(`Start ${runs(e.runs)}?`, io.input, io.output);
}
