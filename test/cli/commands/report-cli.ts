import fs from "node:fs";
import path from "node:path";
import { cli, readJson } from "../../helpers/cli.js";

/** Runs `agenticbt <args>` (built) as a user would. */
export const reportCli = cli;

/** `agenticbt run …` in `cwd`; returns the new run's directory. */
export function runStrategy(args: string[], cwd: string, runsRoot: string): string {
  const before = new Set(fs.existsSync(runsRoot) ? fs.readdirSync(runsRoot) : []);
  const r = cli(["run", ...args, "--runs-dir", runsRoot, "-q"], cwd);
  if (r.status !== 0) throw new Error(`run failed (${r.status}): ${r.stderr}`);
  const added = fs.readdirSync(runsRoot).filter((d) => !before.has(d));
  if (added.length !== 1) throw new Error(`expected one new run, found ${added.join(", ")}`);
  return path.join(runsRoot, added[0] as string);
}

export const jsonLines = (file: string): Record<string, unknown>[] =>
  fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

export const idOf = (dir: string) => readJson<{ id: string }>(path.join(dir, "result.json")).id;

/** A short rsi-reversion run over SPY (2005-2009): it journals, notes and reviews. */
export const RSI_SPY_RUN = [
  "strategies/rsi-reversion.ts",
  "--data",
  "data/SPY_D.csv",
  "--from",
  "2005-01-01",
  "--to",
  "2009-12-31",
];
