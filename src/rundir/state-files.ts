import fs from "node:fs";
import path from "node:path";
import v8 from "node:v8";
import type { Order } from "../engine/types.js";
import { openWriteNoFollow, readFileNoFollow } from "../util/no-follow.js";
import { RUN_FILE } from "./layout.js";
import type { RecordLog } from "./record-log.js";
import type { ReportedTrade } from "./write-outputs.js";

/**
 * The parts of a code run's state that only grow (equity, cash and exposure at each close, the
 * orders.jsonl and decisions.jsonl lines, the settled orders, the trades and the rejected orders),
 * appended to files in `.resume/` at each checkpoint: a checkpoint writes what is new since the
 * last one, not the whole run again. The checkpoint records each file's length; a resume reads
 * that much (a kill may have appended more).
 */
const FILES = {
  equity: "equity.f64",
  cash: "cash.f64",
  exposed: "exposed.u8",
  orders: "order-lines.jsonl",
  decisions: "decision-lines.jsonl",
  settled: "settled.v8",
} as const;

/** What of a run is final: orders before `count` never change again, and the closed trades and
 * rejected orders (orders.jsonl line numbers) so far only grow. */
export interface SettledView {
  orders: readonly Order[];
  count: number;
  trades: readonly ReportedTrade[];
  rejected: readonly number[];
}

/** How many settled orders, trades and rejected orders the files hold. */
export interface SettledCounts {
  orders: number;
  trades: number;
  rejected: number;
}

const NO_SETTLED: SettledCounts = Object.freeze({ orders: 0, trades: 0, rejected: 0 });

/** One append of settled records: a little-endian length, then the v8-serialized piece. */
interface SettledPiece {
  orders: Order[];
  trades: ReportedTrade[];
  rejected: number[];
}

export type AppendedFile = keyof typeof FILES;
/** Bytes of each file as a checkpoint saw them. */
export type AppendedSizes = Record<AppendedFile, number>;

const NAMES = Object.keys(FILES) as AppendedFile[];

export interface GrowingView {
  equity: Float64Array;
  cash: Float64Array;
  exposed: Uint8Array;
  orderLog: RecordLog;
  decisionLog: RecordLog;
  settled: SettledView;
}

/** Appends a run's growing state; `adopt` takes over the files a resumed run's checkpoint names. */
export class StateAppender {
  private readonly root: string;
  private sizes: AppendedSizes = emptySizes();
  /** Bars (from the window's first), lines and settled records already in the files. */
  private bars = 0;
  private orderLines = 0;
  private decisionLines = 0;
  private settled: SettledCounts = NO_SETTLED;
  private started = false;
  private readonly fds = new Map<string, number>();

  constructor(
    dir: string,
    private readonly startIndex: number,
  ) {
    this.root = path.join(dir, RUN_FILE.resume);
  }

  /**
   * A resumed run at its checkpoint's bar: the files hold the state up to it (cut back to the
   * lengths it recorded), or, when they do not, are written anew at the next save.
   */
  adopt(
    sizes: AppendedSizes | null,
    counts: { bar: number; orders: number; decisions: number; settled: SettledCounts | null },
  ) {
    this.started = true;
    const whole =
      sizes !== null &&
      NAMES.every((n) => (fileSize(path.join(this.root, FILES[n])) ?? -1) >= sizes[n]);
    if (!whole || sizes === null || counts.settled === null) {
      this.restart();
      return;
    }
    for (const n of NAMES) fs.ftruncateSync(this.fd(FILES[n]), sizes[n]);
    this.sizes = { ...sizes };
    this.bars = counts.bar + 1 - this.startIndex;
    this.orderLines = counts.orders;
    this.decisionLines = counts.decisions;
    this.settled = { ...counts.settled };
  }

  /** The settled records in the files (after `append`: up to its bar). */
  settledCounts(): SettledCounts {
    return { ...this.settled };
  }

  /** Appends bars up to `i` and the lines made since the last save; returns the files' sizes. */
  append(i: number, v: GrowingView): AppendedSizes {
    if (!this.started) {
      this.started = true;
      this.restart();
    }
    const from = this.startIndex + this.bars;
    if (i >= from) {
      this.write("equity", bytesOf(v.equity, from, i + 1, 8));
      this.write("cash", bytesOf(v.cash, from, i + 1, 8));
      this.write("exposed", bytesOf(v.exposed, from, i + 1, 1));
      this.bars = i + 1 - this.startIndex;
    }
    this.orderLines = this.writeLines("orders", v.orderLog, this.orderLines);
    this.decisionLines = this.writeLines("decisions", v.decisionLog, this.decisionLines);
    this.writeSettled(v.settled);
    return { ...this.sizes };
  }

  private restart(): void {
    for (const n of NAMES) fs.ftruncateSync(this.fd(FILES[n]), 0);
    this.sizes = emptySizes();
    this.bars = 0;
    this.orderLines = 0;
    this.decisionLines = 0;
    this.settled = NO_SETTLED;
  }

  private writeSettled(v: SettledView): void {
    const had = this.settled;
    if (v.count < had.orders) throw new Error("settled orders never become unsettled");
    const same =
      v.count === had.orders &&
      v.trades.length === had.trades &&
      v.rejected.length === had.rejected;
    if (same) return;
    const piece: SettledPiece = {
      orders: v.orders.slice(had.orders, v.count),
      trades: v.trades.slice(had.trades),
      rejected: v.rejected.slice(had.rejected),
    };
    const body = v8.serialize(piece);
    const head = Buffer.alloc(4);
    head.writeUInt32LE(body.length);
    this.write("settled", Buffer.concat([head, body]));
    this.settled = { orders: v.count, trades: v.trades.length, rejected: v.rejected.length };
  }

  private writeLines(name: AppendedFile, log: RecordLog, from: number): number {
    let piece = "";
    for (let k = from; k < log.length; k++) {
      piece += `${log.line(k, true)}\n`;
      if (piece.length >= 1 << 20) {
        this.write(name, Buffer.from(piece));
        piece = "";
      }
    }
    if (piece.length) this.write(name, Buffer.from(piece));
    return log.length;
  }

  private write(name: AppendedFile, bytes: Uint8Array): void {
    fs.writeFileSync(this.fd(FILES[name]), bytes);
    this.sizes[name] += bytes.length;
  }

  /** Writes `file` of the resume directory anew (a state file, see checkpoint.ts). */
  rewrite(file: string, ...parts: Uint8Array[]): void {
    const fd = this.fd(file);
    fs.ftruncateSync(fd, 0);
    for (const p of parts) fs.writeFileSync(fd, p);
  }

  /** Each file is opened once (never through a link, appending) and kept open: a checkpoint a
   * millisecond apart would otherwise spend most of it opening and closing eight files. */
  private fd(file: string): number {
    let fd = this.fds.get(file);
    if (fd === undefined) {
      fs.mkdirSync(this.root, { recursive: true });
      fd = openWriteNoFollow(path.join(this.root, file), { append: true });
      this.fds.set(file, fd);
    }
    return fd;
  }

  /** Closes the files (the run's end). */
  close(): void {
    for (const fd of this.fds.values()) fs.closeSync(fd);
    this.fds.clear();
  }
}

/** Removes the files (a run that will not be resumed again). */
export function removeAppended(dir: string): void {
  for (const n of NAMES) fs.rmSync(path.join(dir, RUN_FILE.resume, FILES[n]), { force: true });
}

/** What the files hold up to a checkpoint, read back; null when one is shorter than recorded. */
export function readAppended(
  dir: string,
  sizes: AppendedSizes,
  counts: { bars: number; orders: number; decisions: number; settled: SettledCounts },
): {
  equity: Float64Array;
  cash: Float64Array;
  exposed: Uint8Array;
  orderLines: string[];
  decisionLines: string[];
  /** The lines' bytes as the files hold them (each line and its \n). */
  orderBytes: Uint8Array;
  decisionBytes: Uint8Array;
  settled: SettledPiece;
} | null {
  const root = path.join(dir, RUN_FILE.resume);
  const read = (n: AppendedFile): Buffer | null => {
    const bytes = readFileNoFollow(path.join(root, FILES[n]));
    return bytes === null || bytes.length < sizes[n] ? null : bytes.subarray(0, sizes[n]);
  };
  const equity = read("equity");
  const cash = read("cash");
  const exposed = read("exposed");
  const orders = read("orders");
  const decisions = read("decisions");
  const settledBytes = read("settled");
  if (!equity || !cash || !exposed || !orders || !decisions || !settledBytes) return null;
  const settled = settledOf(settledBytes);
  if (
    settled === null ||
    settled.orders.length !== counts.settled.orders ||
    settled.trades.length !== counts.settled.trades ||
    settled.rejected.length !== counts.settled.rejected
  ) {
    return null;
  }
  if (equity.length !== counts.bars * 8 || cash.length !== counts.bars * 8) return null;
  if (exposed.length !== counts.bars) return null;
  const orderLines = linesOf(orders);
  const decisionLines = linesOf(decisions);
  if (orderLines.length !== counts.orders || decisionLines.length !== counts.decisions) return null;
  return {
    equity: float64s(equity),
    cash: float64s(cash),
    exposed: new Uint8Array(exposed),
    orderLines,
    decisionLines,
    orderBytes: orders,
    decisionBytes: decisions,
    settled,
  };
}

/** The settled pieces joined in order, or null when a piece runs past the end. */
function settledOf(bytes: Buffer): SettledPiece | null {
  const out: SettledPiece = { orders: [], trades: [], rejected: [] };
  let at = 0;
  while (at < bytes.length) {
    if (at + 4 > bytes.length) return null;
    const end = at + 4 + bytes.readUInt32LE(at);
    if (end > bytes.length) return null;
    const piece = v8.deserialize(bytes.subarray(at + 4, end)) as SettledPiece;
    // One push per item: a spread of a long array would overflow the call stack.
    for (const o of piece.orders) out.orders.push(o);
    for (const t of piece.trades) out.trades.push(t);
    for (const r of piece.rejected) out.rejected.push(r);
    at = end;
  }
  return out;
}

function emptySizes(): AppendedSizes {
  return { equity: 0, cash: 0, exposed: 0, orders: 0, decisions: 0, settled: 0 };
}

function linesOf(bytes: Buffer): string[] {
  if (bytes.length === 0) return [];
  const text = bytes.toString("utf8");
  if (!text.endsWith("\n")) return [];
  return text.slice(0, -1).split("\n");
}

/** Copied into an aligned array (a file's bytes may start anywhere in their buffer). */
function float64s(bytes: Buffer): Float64Array {
  const out = new Float64Array(bytes.length / 8);
  new Uint8Array(out.buffer).set(bytes);
  return out;
}

function bytesOf(a: Float64Array | Uint8Array, from: number, to: number, size: number): Uint8Array {
  return new Uint8Array(a.buffer, a.byteOffset + from * size, (to - from) * size);
}

function fileSize(file: string): number | null {
  try {
    const st = fs.lstatSync(file);
    return st.isFile() ? st.size : null;
  } catch {
    return null;
  }
}
