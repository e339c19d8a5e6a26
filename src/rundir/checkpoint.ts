import { createHash, type Hash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { z } from "zod";
import type { Simulation } from "../engine/simulation.js";
import type { MemoryPort } from "../strategy/types.js";
import { writeJsonAtomic } from "../util/atomic-write.js";
import { readFileNoFollow } from "../util/no-follow.js";
import { RUN_FILE } from "./layout.js";
import type { RecordLog } from "./record-log.js";
import {
  type AppendedSizes,
  removeAppended,
  type SettledCounts,
  type SettledView,
  StateAppender,
} from "./state-files.js";

/** The run's last checkpoint, beside result.json. */
export const CHECKPOINT_FILE = RUN_FILE.checkpoint;
const CHECKPOINT_VERSION = 3;

/** Bars between two looks at the clock while a checkpoint waits for its minimum interval (a look
 * at every bar would cost more than a cheap bar). */
const CLOCK_EVERY = 128;
/** Lines hashed per hash update, by characters (an update has a fixed cost: not one a line). */
const HASH_PIECE = 1 << 16;

/**
 * The state of a run after a bar, as a resume re-derives and compares it. Running sha256 digests
 * stand for the arrays (equity, orders.jsonl and decisions.jsonl lines, memory writes): a digest
 * is the same however often it was taken, so a resume can compare at any checkpoint's bar.
 */
export interface RunDigest {
  /** The last bar whose close was processed, and its label. */
  bar: number;
  time: string;
  cash: number;
  equity: number;
  /** Units held per symbol, in data order. */
  positions: number[];
  orders: number;
  workingOrders: number;
  /** Engine events not yet handled (0 between bars; kept to prove it). */
  pendingEvents: number;
  trades: number;
  orderLines: number;
  decisionLines: number;
  /** sha256 over every orders.jsonl line so far, and over every decisions.jsonl line (each ending
   * in \n): a stream each, so that the digest does not depend on when it was taken. */
  ordersSha256: string;
  decisionsSha256: string;
  /** sha256 over the equity and cash of every closed bar (float64, little-endian). */
  curveSha256: string;
  /** Memory writes so far: each is one state (sequence) of the recall index. */
  memoryWrites: number;
  memorySha256: string;
  /** The LLM's usage counters (result.json's llm.usage), or null for a code strategy. */
  usage: unknown;
}

export interface Checkpoint extends RunDigest {
  version: number;
  runId: string;
  savedAt: string;
  /** transcript.jsonl's length and lines when saved: the model calls made so far. */
  transcriptBytes: number;
  transcriptLines: number;
  /** The run's whole state at this bar, in `.resume/state-a.bin` or `state-b.bin` (in turn: a kill between the state and the checkpoint leaves the one the last checkpoint names) (the id its header line carries, and its size), for a resume
   * to continue from; null: not saved (then `stateSkipped` says why, and a resume re-executes). */
  state?: { id: string; file: StateFile; bytes: number } | null;
  stateSkipped?: string | null;
  /** The sizes of the files the run's growing state is appended to (state-files.ts), or null. */
  appended?: AppendedSizes | null;
  /** The settled orders, trades and rejected orders those files hold, or null. */
  settled?: SettledCounts | null;
  /** Milliseconds of simulation up to this bar (what a re-execution costs again). */
  elapsedMs?: number;
}

/**
 * The run's saved state, in the resume directory: two files, written in turn, so that a kill after
 * writing one but before the checkpoint that names it leaves the one the last checkpoint names.
 */
const STATE_FILES = ["state-a.bin", "state-b.bin"] as const;
type StateFile = (typeof STATE_FILES)[number];

const checkpointSchema = z.looseObject({
  version: z.literal(CHECKPOINT_VERSION),
  runId: z.string(),
  bar: z.number().int(),
  time: z.string(),
  cash: z.number(),
  equity: z.number(),
  positions: z.array(z.number()),
  orders: z.number().int(),
  workingOrders: z.number().int(),
  pendingEvents: z.number().int(),
  trades: z.number().int(),
  orderLines: z.number().int(),
  decisionLines: z.number().int(),
  ordersSha256: z.string(),
  decisionsSha256: z.string(),
  curveSha256: z.string(),
  memoryWrites: z.number().int(),
  memorySha256: z.string(),
  usage: z.unknown(),
  savedAt: z.string(),
  transcriptBytes: z.number().int().nonnegative(),
  transcriptLines: z.number().int().nonnegative(),
  state: z
    .object({ id: z.string(), file: z.enum(STATE_FILES), bytes: z.number().int().nonnegative() })
    .nullable()
    .optional(),
  stateSkipped: z.string().nullable().optional(),
  appended: z
    .object({
      equity: z.number().int().nonnegative(),
      cash: z.number().int().nonnegative(),
      exposed: z.number().int().nonnegative(),
      orders: z.number().int().nonnegative(),
      decisions: z.number().int().nonnegative(),
      settled: z.number().int().nonnegative(),
    })
    .nullable()
    .optional(),
  settled: z
    .object({
      orders: z.number().int().nonnegative(),
      trades: z.number().int().nonnegative(),
      rejected: z.number().int().nonnegative(),
    })
    .nullable()
    .optional(),
  elapsedMs: z.number().nonnegative().optional(),
});

/** The checkpoint of a run directory, or null when none was saved (killed before the first). */
export function readCheckpoint(dir: string): Checkpoint | null {
  const bytes = readFileNoFollow(path.join(dir, CHECKPOINT_FILE));
  if (bytes === null) return null;
  const parsed = checkpointSchema.safeParse(JSON.parse(bytes.toString("utf8")));
  if (!parsed.success) {
    throw new Error(
      `${path.join(dir, CHECKPOINT_FILE)} is not a checkpoint of this version of agenticbt: ` +
        "resume the run with the version that started it, or run it again.",
    );
  }
  return parsed.data as unknown as Checkpoint;
}

/**
 * The state saved with a checkpoint, read and checked against it (its header line's id and its
 * size), or why a resume cannot continue from it.
 */
export function readCheckpointState(dir: string, checkpoint: Checkpoint): StateOutcome {
  const saved = checkpoint.state ?? null;
  if (saved === null) {
    return { skipped: checkpoint.stateSkipped ?? "the checkpoint holds no saved state" };
  }
  const name = `${RUN_FILE.resume}/${saved.file}`;
  const bytes = readFileNoFollow(path.join(dir, RUN_FILE.resume, saved.file));
  if (bytes === null) return { skipped: `${name} is missing` };
  const head = stateHeader(saved.id);
  if (bytes.length !== head.length + saved.bytes || !bytes.subarray(0, head.length).equals(head)) {
    return {
      skipped: `${name} is not the state saved with the checkpoint (the run was killed between the two writes)`,
    };
  }
  return { bytes: bytes.subarray(head.length) };
}

/** Removes a run's saved state (megabytes), once the run will not be resumed again. */
export function dropSavedState(dir: string): void {
  for (const f of STATE_FILES) fs.rmSync(path.join(dir, RUN_FILE.resume, f), { force: true });
  removeAppended(dir);
}

/** The state file's first line: the id its checkpoint names it by (no digest of megabytes at
 * every checkpoint: the restored state is verified against the checkpoint's digests anyway). */
const stateHeader = (id: string) => Buffer.from(`${JSON.stringify({ state: id })}\n`);

/**
 * Counts and digests the memory writes a strategy makes through its port, in call order. The
 * digest covers what was asked to be written (kind, key, content, simulated time), which is what
 * a deterministic re-execution must ask again.
 */
export class MemoryTally {
  writes = 0;
  private readonly hash: Hash = createHash("sha256");

  wrap(port: MemoryPort): MemoryPort {
    return {
      ...port,
      log: (content, at) => {
        this.add("log", "", content, at);
        port.log(content, at);
      },
      note: (key, content, at) => {
        this.add("note", key, content, at);
        port.note(key, content, at);
      },
      review: (period, key, content, at) => {
        this.add(`review:${period}`, key, content, at);
        port.review(period, key, content, at);
      },
    };
  }

  digest(): string {
    return this.hash.copy().digest("hex");
  }

  /** Counts a write the framework makes itself (a decision trace), as a strategy's are. */
  add(kind: string, key: string, content: string, at: number): void {
    this.writes += 1;
    this.hash.update(`${JSON.stringify([kind, key, content, at])}\n`);
  }
}

/** What the checkpointer reads after each bar: the simulation and the records of the hooks. */
export interface BarView {
  sim: Simulation;
  /** The hook runner's records so far (the runner's HookRunner). */
  hooks: { orderLog: RecordLog; decisionLog: RecordLog; trades: readonly unknown[] };
  pending: readonly unknown[];
  cash: Float64Array;
  startIndex: number;
  /** What of the run never changes again (appended once, not saved in each state). */
  settled: () => SettledView;
  /** The run's whole state after bar `i` but the settled records the files hold (`settled`), for
   * a resume to continue from, or why it cannot be saved. */
  snapshot: (i: number, settled: SettledCounts) => StateOutcome;
}

/** A run's saved state (its bytes), or why it was not saved. */
export type StateOutcome = { bytes: Uint8Array } | { skipped: string };

/** A resumed run re-derived a state that differs from its checkpoint: it cannot be exact. */
export class ResumeDivergenceError extends Error {
  override readonly name = "ResumeDivergenceError";
  readonly type = "resume_divergence";
}

/**
 * Keeps the running digests of a run and saves a checkpoint after a bar when one is due. In a
 * resumed run it first fast-forwards: no checkpoint is written before the saved one's bar, and at
 * that bar the re-derived digest must equal the saved one field by field.
 */
export class Checkpointer {
  private readonly ordersHash: Hash = createHash("sha256");
  private readonly decisionsHash: Hash = createHash("sha256");
  // Equity and cash each hashed as raw float64 bytes, a stretch of bars per update (an update has
  // a fixed cost: not one a bar); their digests make curveSha256.
  private readonly equityHash: Hash = createHash("sha256");
  private readonly cashHash: Hash = createHash("sha256");
  private orderLinesHashed = 0;
  private decisionLinesHashed = 0;
  private curveHashedTo = -1;
  private lastSaved: number;
  private lastSavedAt = Number.NEGATIVE_INFINITY;
  /** The first bar at which the clock is looked at again (the interval was not up at the last). */
  private nextClock = Number.NEGATIVE_INFINITY;

  /** Milliseconds spent saving checkpoints (result.json does not record it: it is a timing). */
  savedMs = 0;
  saves = 0;
  private verified: boolean;
  private readonly startedAt = performance.now();
  /** The files the growing state is appended to (a run that saves its state), made at first use. */
  private appender: StateAppender | null = null;
  /** The state file the last checkpoint names (the next state goes to the other). */
  private stateFile: StateFile | null;

  /** Added to the time since `startedAt`: the simulation time before this process's first bar. */
  private elapsedOffset = 0;

  constructor(
    private readonly o: {
      dir: string;
      runId: string;
      /** Bars between checkpoints. */
      every: number;
      /** Milliseconds at least between two checkpoints (0: none). */
      minIntervalMs?: number;
      label: (i: number) => string;
      memory: MemoryTally;
      usage: () => unknown;
      /** transcript.jsonl's complete bytes and lines so far (null: no model, no transcript). */
      transcript: (() => { bytes: number; lines: number }) | null;
      /** The checkpoint to reach and verify before saving any (a resume), or null. */
      expected: Checkpoint | null;
      /**
       * True once the bar in progress may hold a model call cut short (a stop, a wait over the
       * cap): no checkpoint is saved from then on, so a resume asks that bar's questions again.
       */
      hold?: () => boolean;
      /** The run's whole state after a bar (but the settled records appended), to save beside
       * the checkpoint, or why it cannot be (null: never saved, as for an LLM run). */
      state?: ((i: number, v: BarView, settled: SettledCounts) => StateOutcome) | null;
    },
  ) {
    this.lastSaved = o.expected?.bar ?? Number.NEGATIVE_INFINITY;
    this.stateFile = o.expected?.state?.file ?? null;
    this.verified = o.expected === null;
  }

  /**
   * A restored run's orders.jsonl and decisions.jsonl lines so far, as bytes (each line and its
   * \n): the digests take them in one update each instead of line by line (the same digest).
   */
  seedLines(orders: Uint8Array, orderLines: number, decisions: Uint8Array, decisionLines: number) {
    if (this.orderLinesHashed !== 0 || this.decisionLinesHashed !== 0) {
      throw new Error("a checkpointer's lines are seeded before any is hashed");
    }
    this.ordersHash.update(orders);
    this.orderLinesHashed = orderLines;
    this.decisionsHash.update(decisions);
    this.decisionLinesHashed = decisionLines;
  }

  afterBar(i: number, v: BarView): void {
    // hold() has no side effects and stays true once true, so it is asked after the cheap returns.
    const expected = this.o.expected;
    if (!this.verified && expected !== null) {
      if (i < expected.bar) return;
      if (this.o.hold?.()) return;
      const now = this.digest(i, v);
      const diff = firstDifference(expected, now);
      if (diff !== null || i !== expected.bar) {
        throw new ResumeDivergenceError(
          `The resumed run does not re-derive the state its checkpoint saved at bar ${expected.bar} ` +
            `(${expected.time}): ${diff ?? `it reached bar ${i} first`}. The strategy is not ` +
            "deterministic (Math.random, Date.now, outside files or network?) or its inputs changed, " +
            "so a resume cannot reproduce the run; run it again from the start.",
        );
      }
      this.verified = true;
      this.appenderFor(v)?.adopt(expected.appended ?? null, {
        bar: expected.bar,
        orders: expected.orderLines,
        decisions: expected.decisionLines,
        settled: expected.settled ?? null,
      });
      // Elapsed time goes on from the checkpoint's, whether re-executed up to it or restored.
      this.elapsedOffset = (expected.elapsedMs ?? 0) - (performance.now() - this.startedAt);
      return;
    }
    if (i - this.lastSaved < this.o.every || i < this.nextClock) return;
    if (this.o.hold?.()) return;
    const t0 = performance.now();
    if (t0 - this.lastSavedAt < (this.o.minIntervalMs ?? 0)) {
      this.nextClock = i + CLOCK_EVERY;
      return;
    }
    const digest = this.digest(i, v);
    // What only grows is appended first, then the state, then the checkpoint that names both.
    const appender = this.appenderFor(v);
    const appended =
      appender?.append(i, {
        equity: v.sim.equity,
        cash: v.cash,
        exposed: v.sim.exposed,
        orderLog: v.hooks.orderLog,
        decisionLog: v.hooks.decisionLog,
        settled: v.settled(),
      }) ?? null;
    const settled = appender?.settledCounts() ?? null;
    const state = settled !== null ? (this.o.state?.(i, v, settled) ?? null) : null;
    this.save(digest, state, appended, settled);
    this.lastSaved = i;
    this.lastSavedAt = performance.now();
    this.saves += 1;
    this.savedMs += this.lastSavedAt - t0;
  }

  /** A resume whose run ended before reaching its checkpoint's bar diverged too. */
  unreached(): string | null {
    const e = this.o.expected;
    if (this.verified || e === null) return null;
    return (
      `The resumed run ended before bar ${e.bar} (${e.time}), where its checkpoint was saved: ` +
      "the strategy is not deterministic or its inputs changed; run it again from the start."
    );
  }

  private digest(i: number, v: BarView): RunDigest {
    const { sim, hooks } = v;
    const orderLog = hooks.orderLog;
    const decisionLog = hooks.decisionLog;
    this.orderLinesHashed = hashLines(this.ordersHash, orderLog, this.orderLinesHashed);
    this.decisionLinesHashed = hashLines(this.decisionsHash, decisionLog, this.decisionLinesHashed);
    const from = Math.max(v.startIndex, this.curveHashedTo + 1);
    if (i >= from) {
      this.equityHash.update(bytesOf(sim.equity, from, i + 1));
      this.cashHash.update(bytesOf(v.cash, from, i + 1));
      this.curveHashedTo = i;
    }
    const portfolio = sim.broker.portfolio;
    return {
      bar: i,
      time: this.o.label(i),
      cash: portfolio.cash,
      equity: sim.equity[i] as number,
      positions: Array.from(portfolio.qty),
      orders: sim.broker.orders.length,
      workingOrders: sim.broker.workingOrders().length,
      pendingEvents: v.pending.length,
      trades: hooks.trades.length,
      orderLines: orderLog.length,
      decisionLines: decisionLog.length,
      ordersSha256: this.ordersHash.copy().digest("hex"),
      decisionsSha256: this.decisionsHash.copy().digest("hex"),
      curveSha256: createHash("sha256")
        .update(this.equityHash.copy().digest())
        .update(this.cashHash.copy().digest())
        .digest("hex"),
      memoryWrites: this.o.memory.writes,
      memorySha256: this.o.memory.digest(),
      usage: this.o.usage(),
    };
  }

  /** Closes the files kept open between checkpoints (the simulation's end). */
  close(): void {
    this.appender?.close();
  }

  private appenderFor(v: BarView): StateAppender | null {
    if (!this.o.state) return null;
    this.appender ??= new StateAppender(this.o.dir, v.startIndex);
    return this.appender;
  }

  private save(
    d: RunDigest,
    state: StateOutcome | null,
    appended: AppendedSizes | null,
    settled: SettledCounts | null,
  ): void {
    const { bytes, lines } = this.o.transcript?.() ?? { bytes: 0, lines: 0 };
    let saved: Checkpoint["state"] = null;
    let skipped: string | null = null;
    if (state === null) skipped = "no state is saved for this run";
    else if ("skipped" in state) {
      skipped = state.skipped;
    } else {
      // Written before the checkpoint, in place, into the file the last checkpoint does not name:
      // a kill between the two (or during the write) leaves that checkpoint and its state whole.
      const id = `${d.bar}-${process.pid}-${Date.now()}`;
      const file = this.stateFile === STATE_FILES[0] ? STATE_FILES[1] : STATE_FILES[0];
      // Only a run with an appender saves a state (see afterBar).
      this.appender?.rewrite(file, stateHeader(id), state.bytes);
      saved = { id, file, bytes: state.bytes.length };
    }
    const checkpoint: Checkpoint = {
      version: CHECKPOINT_VERSION,
      runId: this.o.runId,
      savedAt: new Date().toISOString(),
      ...d,
      transcriptBytes: bytes,
      transcriptLines: lines,
      state: saved,
      stateSkipped: skipped,
      appended,
      settled,
      elapsedMs: Math.round(performance.now() - this.startedAt + this.elapsedOffset),
    };
    // Not fsynced: a kill leaves it whole, and one lost in a power cut only makes the resume
    // verify an earlier bar, while an fsync per LLM decision would wait on a busy disk.
    writeJsonAtomic(path.join(this.o.dir, CHECKPOINT_FILE), checkpoint, { sync: false });
    if (saved !== null) this.stateFile = saved.file;
  }
}

/** Feeds lines `from`… of a log to a hash, each ending in \n, a piece of many per update (the
 * digest of a stream does not depend on how it was cut); returns how many lines are hashed. */
function hashLines(hash: Hash, log: RecordLog, from: number): number {
  let piece = "";
  for (let k = from; k < log.length; k++) {
    // Kept: the run's end writes the same lines (one JSON.stringify a line, as before RecordLog).
    piece += `${log.line(k, true)}\n`;
    if (piece.length >= HASH_PIECE) {
      hash.update(piece);
      piece = "";
    }
  }
  if (piece.length) hash.update(piece);
  return log.length;
}

/** Bars `from`…`to` (exclusive) of a float64 array, as the bytes that hold them (no copy). */
function bytesOf(a: Float64Array, from: number, to: number): Uint8Array {
  return new Uint8Array(a.buffer, a.byteOffset + from * 8, (to - from) * 8);
}

const COMPARED: (keyof RunDigest)[] = [
  "bar",
  "cash",
  "equity",
  "positions",
  "orders",
  "workingOrders",
  "pendingEvents",
  "trades",
  "orderLines",
  "decisionLines",
  "ordersSha256",
  "decisionsSha256",
  "curveSha256",
  "memoryWrites",
  "memorySha256",
  "usage",
];

/** The first field where two digests differ, described, or null when they are equal. */
export function firstDifference(saved: RunDigest, now: RunDigest): string | null {
  for (const key of COMPARED) {
    const a = JSON.stringify(saved[key]);
    const b = JSON.stringify(now[key]);
    if (a !== b) return `${key} is ${clip(b)}, the checkpoint saved ${clip(a)}`;
  }
  return null;
}

const clip = (s: string | undefined) =>
  s === undefined ? "nothing" : s.length > 80 ? `${s.slice(0, 77)}...` : s;
