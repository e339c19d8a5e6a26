import { UsageError } from "../errors/usage-error.js";
import {
  addRanges,
  type ExperimentEstimate,
  type Range,
  ZERO_RANGE,
} from "../sweep/experiment/experiment-estimate.js";
import { escapeControl, jsonForTerminal } from "../util/terminal-text.js";
import { type Column, table, WIDTH, wrap } from "./commands/text-layout.js";
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

/** The estimate as the command prints it before an experiment starts: a table per cell, fitted
 * to `width` columns (the cell's label gives way first), then the prices used. */
export function formatEstimate(e: ExperimentEstimate, width = WIDTH): string {
  const rows = e.cells.map((c) => [
    c.label,
    String(c.runs),
    `~${count(c.calls.point)}`,
    count(c.firstPromptTokens),
    `~${count(c.tokens.point)}`,
    dollars(c.usd),
  ]);
  // Unknown in total when a cell's price is: what the priced cells come to, said as a part.
  const priced = e.cells.filter((c) => c.usd !== null);
  const part =
    e.usd === null && priced.length > 0
      ? `the ${priced.length} priced cell${priced.length === 1 ? "" : "s"}: ${dollars(
          priced.reduce<Range>((a, c) => addRanges(a, c.usd as Range), ZERO_RANGE),
        )}`
      : null;
  rows.push([
    "total",
    String(e.runs),
    `~${count(e.calls.point)}`,
    "",
    `~${count(e.tokens.point)}`,
    dollars(e.usd),
  ]);
  const columns: Column[] = [
    { header: "cell", align: "left", shrink: true },
    { header: "runs", align: "right" },
    { header: "calls", align: "right" },
    { header: "1st prompt", align: "right" },
    { header: "tokens", align: "right" },
    { header: "$", align: "right" },
  ];
  const models = new Map<string, string>();
  for (const c of e.cells)
    models.set(
      c.model,
      c.price === null
        ? `${c.model} unknown (pass --prices <file.json>)`
        : `${c.model} $${c.price.input}/$${c.price.output}`,
    );
  return [
    ...wrap(
      [
        `Estimate: ${runs(e.runs)}`,
        `${e.decisions} decisions`,
        `${e.moments} memory turns`,
        `${tokens(e.calls)} model calls`,
        `${tokens(e.tokens)} tokens`,
      ],
      "",
      width,
    ),
    table(columns, rows, width),
    ...(part === null ? [] : [`Of the total, ${part}.`]),
    ...wrap(
      [
        `Prices per 1M tokens in/out: ${[...models.values()].join("; ")}`,
        `${e.prices}, no prompt-cache discount`,
        `each cell's first prompt (${e.charsPerToken} characters per token) × its turns`,
        "figures ~point (low..high)",
      ],
      "",
      width,
      "; ",
    ),
  ].join("\n");
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
  // Fitted to the terminal it goes to (a file or pipe: the plain-text width).
  const text = (to: NodeJS.WritableStream) =>
    escapeControl(formatEstimate(e, (to as { columns?: number }).columns ?? WIDTH));
  if (o.yes) {
    if (!o.quiet && !o.json) io.output.write(`${text(io.output)}\n`);
    return true;
  }
  if (!io.input.isTTY) {
    io.stdout.write(o.json ? `${jsonForTerminal({ estimate: e })}\n` : `${text(io.stdout)}\n`);
    throw new UsageError(
      `Not started: an experiment of ${runs(e.runs)} makes model calls that cost money, and stdin is not a terminal to ask. Read the estimate above, then add --yes to start it.`,
    );
  }
  io.output.write(`${text(io.output)}\n`);
  return confirm(`Start ${runs(e.runs)}?`, io.input, io.output);
}
