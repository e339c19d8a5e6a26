import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { DEFAULT_RECALL_OPTIONS } from "../config/run-settings.js";
import { MemoryWorkspace } from "../memory/workspace.js";
import { RunRecall } from "../rundir/run-recall.js";
import type { MemoryPort } from "../strategy/types.js";
import { memoryPort } from "./memory-port.js";

/** The writer of `backtest()`'s memory files, as journal lines and notes name their run. */
const BACKTEST_RUN_ID = "backtest";

/**
 * `backtest()`'s memory: the same files and recall index as a run directory's, made at the
 * strategy's first memory call (a run that never writes memory touches no disk), in `keepDir` or
 * in a temporary directory that `close()` removes.
 */
export class BacktestMemory {
  private opened: { dir: string; recall: RunRecall; port: MemoryPort } | null = null;

  constructor(
    private readonly keepDir: string | null,
    /** The playbook a new memory starts with (the strategy's description and parameters). */
    private readonly playbook: () => string,
    /** Bar times of the run's data: the trading days recall's journal tier counts. */
    private readonly barTimes: ArrayLike<number>,
  ) {}

  /** The strategy's memory functions; the first call creates the directory. */
  readonly port: MemoryPort = {
    log: (content, at) => this.open().log(content, at),
    note: (key, content, at) => this.open().note(key, content, at),
    review: (period, key, content, at) => this.open().review(period, key, content, at),
    readNote: (key) => this.open().readNote(key),
    recall: (query, limit, asOf) => this.open().recall(query, limit, asOf),
    recallAsync: (query, limit, asOf) => this.open().recallAsync(query, limit, asOf),
  };

  /** Where the memory stays after the run: `keepDir` once written to, else null. */
  get kept(): string | null {
    return this.opened !== null && this.keepDir !== null ? this.opened.dir : null;
  }

  private open(): MemoryPort {
    if (this.opened === null) {
      const dir =
        this.keepDir === null
          ? fs.mkdtempSync(path.join(os.tmpdir(), "agenticbt-memory-"))
          : path.resolve(this.keepDir);
      const workspace = new MemoryWorkspace({ dir, runId: BACKTEST_RUN_ID });
      // A kept directory that already holds a memory is continued: init keeps its playbook.
      workspace.init(this.playbook());
      const recall = new RunRecall(dir, DEFAULT_RECALL_OPTIONS, null, process.env, this.barTimes);
      this.opened = { dir, recall, port: memoryPort(workspace, recall) };
    }
    return this.opened.port;
  }

  /** After the run: a kept memory's recall index is synced for `agenticbt recall`-style reads;
   * a temporary one is closed and removed. */
  close(): void {
    const o = this.opened;
    if (o === null) return;
    if (this.keepDir !== null) {
      o.recall.finish();
      return;
    }
    o.recall.close();
    // rm never follows a link below the directory: it removes the link itself.
    fs.rmSync(o.dir, { recursive: true, force: true });
  }
}
