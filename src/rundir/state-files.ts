import fs from "node:fs";
import path from "node:path";
import { openWriteNoFollow, readFileNoFollow } from "../util/no-follow.js";
import { RUN_FILE } from "./layout.js";
import type { RecordLog } from "./record-log.js";

/**
 * The parts of a code run's state that only grow (equity, cash and exposure at each close, the
 * orders.jsonl and decisions.jsonl lines), appended to files in `.resume/` at each checkpoint: a
 * checkpoint writes what is new since the last one, not the whole run again. The checkpoint
 * records each file's length; a resume reads that much (a kill may have appended more).
 */
const FILES = {
  equity: "equity.f64",
  cash: "cash.f64",
  exposed: "exposed.u8",
  orders: "order-lines.jsonl",
  decisions: "decision-lines.jsonl",
} as const;

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
}

/** Appends a run's growing state; `adopt` takes over the files a resumed run's checkpoint names. */
export class StateAppender {
  private readonly root: string;
  private sizes: AppendedSizes = { equity: 0, cash: 0, exposed: 0, orders: 0, decisions: 0 };
  /** Bars (from the window's first) and lines already in the files. */
  private bars = 0;
  private orderLines = 0;
  private decisionLines = 0;
  private started = false;

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
  adopt(sizes: AppendedSizes | null, counts: { bar: number; orders: number; decisions: number }) {
    this.started = true;
    const whole =
      sizes !== null &&
      NAMES.every((n) => (fileSize(path.join(this.root, FILES[n])) ?? -1) >= sizes[n]);
    if (!whole || sizes === null) {
      this.restart();
      return;
    }
    for (const n of NAMES) cutTo(path.join(this.root, FILES[n]), sizes[n]);
    this.sizes = { ...sizes };
    this.bars = counts.bar + 1 - this.startIndex;
    this.orderLines = counts.orders;
    this.decisionLines = counts.decisions;
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
    return { ...this.sizes };
  }

  private restart(): void {
    fs.mkdirSync(this.root, { recursive: true });
    for (const n of NAMES) cutTo(path.join(this.root, FILES[n]), 0);
    this.sizes = { equity: 0, cash: 0, exposed: 0, orders: 0, decisions: 0 };
    this.bars = 0;
    this.orderLines = 0;
    this.decisionLines = 0;
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
    const fd = openWriteNoFollow(path.join(this.root, FILES[name]), { append: true });
    try {
      fs.writeFileSync(fd, bytes);
    } finally {
      fs.closeSync(fd);
    }
    this.sizes[name] += bytes.length;
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
  counts: { bars: number; orders: number; decisions: number },
): {
  equity: Float64Array;
  cash: Float64Array;
  exposed: Uint8Array;
  orderLines: string[];
  decisionLines: string[];
  /** The lines' bytes as the files hold them (each line and its \n). */
  orderBytes: Uint8Array;
  decisionBytes: Uint8Array;
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
  if (!equity || !cash || !exposed || !orders || !decisions) return null;
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
  };
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

/** The file (created if absent, never through a link) cut to `size` bytes. */
function cutTo(file: string, size: number): void {
  const fd = openWriteNoFollow(file, { append: false });
  try {
    fs.ftruncateSync(fd, size);
  } finally {
    fs.closeSync(fd);
  }
}

function fileSize(file: string): number | null {
  try {
    const st = fs.lstatSync(file);
    return st.isFile() ? st.size : null;
  } catch {
    return null;
  }
}
