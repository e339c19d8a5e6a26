import fs from "node:fs";
import { writeJsonAtomic } from "../util/atomic-write.js";
import { realExit } from "../util/exit-now.js";
import { runFile } from "./layout.js";
import { RunLock } from "./run-lock.js";
import type { RunError, RunResult } from "./run-result.js";

/** A strategy called `process.exit()`: thrown in its place, so the run fails with the reason. */
export class StrategyExitError extends Error {
  override readonly name = "StrategyExitError";

  constructor(code: unknown) {
    super(
      `The strategy called process.exit(${code === undefined ? "" : String(code)}): a strategy ` +
        "must not end the process, so the run ends here as failed. Return from the hook instead, " +
        'or end the run early with ctx.stop("stopped", "<reason>").',
    );
  }
}

// Runs guarded at once in this process (library users may run several): process.exit is
// replaced while there is at least one.
let guarded = 0;

// A module of its own: the CLI's first listeners use it without loading this one.
export { exitNow } from "../util/exit-now.js";

/**
 * Keeps a run directory from being left `running` by a process that ends before the run does.
 * From the run directory's creation until its result.json is final it holds the lock (pid, host,
 * heartbeat), and:
 * - replaces `process.exit` with a function that throws StrategyExitError, so a strategy that
 *   calls it fails its hook (and the run, with every output written) instead of ending the
 *   process. The CLI's own exit (a second Ctrl-C) goes through `abort`, which restores it first;
 * - on the process's `exit` event (a `process.exit` from a timer callback, an uncaught exception,
 *   an event loop left empty by a promise that can never settle), writes result.json
 *   synchronously as `failed`, with the reason, and says so on stderr.
 */
export class RunGuard {
  private readonly lock: RunLock;
  private result: RunResult | null = null;
  private done = false;
  private lastUncaught: unknown = null;

  constructor(
    readonly dir: string,
    purpose: "run" | "resume" = "run",
  ) {
    this.lock = new RunLock(dir, purpose);
    process.on("exit", this.onExit);
    process.on("uncaughtExceptionMonitor", this.onUncaught);
    if (guarded++ === 0) {
      const exit = (code?: unknown): never => {
        throw new StrategyExitError(code);
      };
      process.exit = exit as typeof process.exit;
    }
  }

  /** Whether the run is over for the guard (finished, abandoned or aborted). */
  get settled(): boolean {
    return this.done;
  }

  /** result.json exists (status `running`): from now on an early end is written into it. */
  attach(result: RunResult): void {
    this.result = result;
  }

  /**
   * Ends the run now, synchronously (a second Ctrl-C): result.json says `interrupted` with a
   * warning that the other outputs were not written; the lock is released and `process.exit` is
   * the real one again. The caller exits next.
   */
  abort(signal: string): void {
    if (this.done) return;
    const r = this.result;
    if (r) {
      r.status = "interrupted";
      r.warnings.push(
        `Aborted by a second ${signal}: the run stopped at once, so equity.csv, trades.csv, orders.jsonl, decisions.jsonl and report.html were not written, and period and metrics are empty.`,
      );
      r.finishedAt = new Date().toISOString();
    }
    this.end(r);
  }

  /** result.json is final: release the lock and put everything back. */
  finish(): void {
    if (this.done) return;
    this.done = true;
    this.uninstall();
    this.lock.release();
  }

  /** result.json could not be made final (a full disk): the lock stays, naming a dead process. */
  abandon(): void {
    if (this.done) return;
    this.done = true;
    this.uninstall();
    this.lock.abandon();
  }

  private readonly onUncaught = (err: unknown) => {
    this.lastUncaught = err;
  };

  private readonly onExit = (code: number) => {
    if (this.done) return;
    const r = this.result;
    const cause = this.lastUncaught;
    const error: RunError = {
      type: cause instanceof Error ? cause.name : "ProcessExit",
      message:
        cause instanceof Error
          ? `The process ended on an uncaught error before the run finished: ${cause.message}`
          : `The process ended (exit code ${code}) before the run finished: something called process.exit, or the strategy awaited a promise that can never settle and nothing else was left to run.`,
    };
    if (r) {
      r.status = "failed";
      r.error = error;
      r.finishedAt = new Date().toISOString();
    }
    const written = this.end(r);
    const where = runFile(this.dir, "result");
    writeStderr(
      `\nerror: ${error.message}\n${written ? `${where} says failed.` : `${where} could not be updated.`}\n`,
    );
  };

  /** Writes result.json (when there is one to write) and releases the lock; true when written. */
  private end(r: RunResult | null): boolean {
    this.done = true;
    this.uninstall();
    if (r === null) {
      this.lock.release();
      return false;
    }
    try {
      writeJsonAtomic(runFile(this.dir, "result"), r);
      this.lock.release();
      return true;
    } catch {
      this.lock.abandon();
      return false;
    }
  }

  private uninstall(): void {
    if (--guarded === 0) process.exit = realExit;
    process.off("exit", this.onExit);
    process.off("uncaughtExceptionMonitor", this.onUncaught);
  }
}

function writeStderr(text: string): void {
  try {
    fs.writeSync(2, text);
  } catch {
    // No terminal left to tell (SIGHUP): result.json carries the reason.
  }
}
