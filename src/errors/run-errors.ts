export { UsageError } from "./usage-error.js";

/**
 * Another live process holds the run directory's lock: it is running, or being resumed. Refused
 * before anything in the directory changes (exit code 2).
 */
export class RunLockedError extends Error {
  override readonly name = "RunLockedError";
  readonly exitCode = 2;

  constructor(dir: string, holder: { pid: number; host: string; resuming?: boolean } | null) {
    const who = holder === null ? "another process" : `pid ${holder.pid} on ${holder.host}`;
    super(
      holder?.resuming
        ? `${dir} is being resumed by another process (${who}): wait for that resume to end; ` +
            "nothing was changed here."
        : `${dir} is still running (${who}): stop it first (Ctrl-C or kill), then resume it.`,
    );
  }
}

/** A strategy file that cannot be loaded or is not a strategy. */
export class StrategyLoadError extends Error {
  override readonly name = "StrategyLoadError";
  readonly exitCode = 2;
}

/**
 * result.json itself could not be written at the end of a run (a full disk): the run directory
 * still says `running`, and its lock names this process, so `list` shows it as
 * `interrupted (process gone)` once the process has exited. Exit code 1, like a failed run.
 */
export class RunWriteError extends Error {
  override readonly name = "RunWriteError";
  readonly exitCode = 1;

  constructor(
    dir: string,
    result: { status: string; error: { message: string } | null },
    cause: unknown,
  ) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    const earlier = result.error
      ? `\nThe run had ended ${result.status}: ${result.error.message}`
      : "";
    super(
      `The run in ${dir} ended ${result.status}, but its result.json could not be written: ${reason}${earlier}\nFree disk space; the run directory is incomplete (delete it with agenticbt rm) and the run must be started again.`,
      { cause },
    );
  }
}
