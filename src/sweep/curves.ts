import fs from "node:fs";
import { openFileNoFollow, openWriteNoFollow } from "../util/no-follow.js";

// curves.f64: each combination's equity at every close, as records appended in the order they
// arrive: [index, n, equity_0 … equity_{n-1}], all float64 in the machine's byte order (little-
// endian on every platform Node runs on). A resume may append a combination again after a kill;
// the last record of an index wins (both hold the same numbers: the runs are deterministic).

const HEADER = 2;
const BYTES = Float64Array.BYTES_PER_ELEMENT;

/** One combination's record, as its header and a view of the equity itself (no copy). */
export function curveRecord(index: number, equity: Float64Array): Uint8Array[] {
  return [
    new Uint8Array(Float64Array.of(index, equity.length).buffer),
    new Uint8Array(equity.buffer, equity.byteOffset, equity.byteLength),
  ];
}

/** Appends records (no fsync: a record lost to a power cut goes with its line, run again). */
export function appendCurves(file: string, records: readonly Uint8Array[][]): void {
  const fd = openWriteNoFollow(file, { append: true });
  try {
    for (const r of records.flat()) {
      let done = 0;
      while (done < r.byteLength) done += fs.writeSync(fd, r, done, r.byteLength - done);
    }
  } finally {
    fs.closeSync(fd);
  }
}

/** Where each whole record's equity starts and how long it is; `end`: the bytes they cover. */
function scan(
  fd: number,
  size: number,
): { records: Map<number, { at: number; n: number }>; end: number } {
  const records = new Map<number, { at: number; n: number }>();
  const head = new Float64Array(HEADER);
  const headBytes = new Uint8Array(head.buffer);
  let at = 0;
  while (at + HEADER * BYTES <= size) {
    fs.readSync(fd, headBytes, 0, HEADER * BYTES, at);
    const index = head[0] as number;
    const n = head[1] as number;
    const next = at + (HEADER + n) * BYTES;
    if (!Number.isInteger(index) || !Number.isInteger(n) || n < 0 || next > size) break;
    records.set(index, { at: at + HEADER * BYTES, n });
    at = next;
  }
  return { records, end: at };
}

/** Cuts a partial last record (a kill in the middle of an append) off the file. */
export function truncatePartialCurve(file: string): void {
  const fd = openFileNoFollow(file, "read-write");
  if (fd === null) return;
  try {
    const size = fs.fstatSync(fd).size;
    const { end } = scan(fd, size);
    if (end < size) fs.ftruncateSync(fd, end);
  } finally {
    fs.closeSync(fd);
  }
}

/** Reads combinations' equity from curves.f64 on demand (its records found once, when made). */
export class CurveReader {
  private readonly records: Map<number, { at: number; n: number }>;

  constructor(private readonly file: string) {
    const fd = openFileNoFollow(file, "read");
    if (fd === null) this.records = new Map();
    else {
      try {
        this.records = scan(fd, fs.fstatSync(fd).size).records;
      } finally {
        fs.closeSync(fd);
      }
    }
  }

  /** A combination's equity (its last record), or null when the file has none. */
  read(index: number): Float64Array | null {
    const r = this.records.get(index);
    if (r === undefined) return null;
    const fd = openFileNoFollow(this.file, "read");
    if (fd === null) return null;
    try {
      const equity = new Float64Array(r.n);
      fs.readSync(fd, new Uint8Array(equity.buffer), 0, r.n * BYTES, r.at);
      return equity;
    } finally {
      fs.closeSync(fd);
    }
  }
}
