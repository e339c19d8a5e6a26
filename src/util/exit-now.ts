/** The real process.exit, as it was before any run's guard (rundir/run-guard.ts) replaced it. */
export const realExit = process.exit;

/** Ends the process for real, even while a run's guard has replaced `process.exit`. */
export function exitNow(code: number): never {
  return realExit.call(process, code);
}
