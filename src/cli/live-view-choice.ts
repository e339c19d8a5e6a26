/** The options that decide whether a run gets the live view. */
export interface LiveViewOptions {
  json?: boolean;
  quiet?: boolean;
  ui?: boolean;
}

/** Below this width the view's lines say too little: plain lines say it all. */
const MIN_LIVE_COLUMNS = 40;

/**
 * The ink live view only on a terminal, and never with `--json`, `-q`, `--no-ui` or in CI: ink
 * writes cursor movements that flood a log or a pipe. Nor on a terminal that cannot move its
 * cursor (`TERM=dumb`), or one narrower than MIN_LIVE_COLUMNS (a terminal that reports 0 columns
 * too: ink would lay the view out one character a line). Decided from the parsed options alone,
 * so that the view can start before the run's modules load.
 */
export function wantsLiveView(
  o: LiveViewOptions,
  stdout: { isTTY?: boolean; columns?: number },
  env: NodeJS.ProcessEnv,
): boolean {
  if (o.json || o.quiet || o.ui === false) return false;
  if (stdout.isTTY !== true) return false;
  if (env.TERM === "dumb") return false;
  if (!((stdout.columns ?? 0) >= MIN_LIVE_COLUMNS)) return false;
  const ci = env.CI;
  return ci === undefined || ci === "" || ci === "0" || ci === "false";
}
