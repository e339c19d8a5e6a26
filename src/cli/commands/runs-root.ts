import path from "node:path";

/** The default runs root, as `agenticbt run` uses it. */
export const DEFAULT_RUNS_DIR = path.join(".agenticbt", "runs");

export const runsRootOf = (dir: string | undefined) => path.resolve(dir ?? DEFAULT_RUNS_DIR);

/** `--json` output: the value alone on stdout. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}
