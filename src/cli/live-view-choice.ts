/** The options that decide whether a run gets the live view. */
export interface LiveViewOptions {
  json?: boolean;
  quiet?: boolean;
  ui?: boolean;
}

/**
 * The ink live view only on a terminal, and never with `--json`, `-q`, `--no-ui` or in CI: ink
 * writes cursor movements that flood a log or a pipe. Decided from the parsed options alone, so
 * that the view can start before the run's modules load.
 */
export function wantsLiveView(
  o: LiveViewOptions,
  stdout: { isTTY?: boolean },
  env: NodeJS.ProcessEnv,
): boolean {
  if (o.json || o.quiet || o.ui === false) return false;
  if (stdout.isTTY !== true) return false;
  const ci = env.CI;
  return ci === undefined || ci === "" || ci === "0" || ci === "false";
}
