import { flat } from "../util/json-text.js";

/**
 * Makes a record back from its values (`values[at]` is the first): its line, a string (the
 * builders of order-records.ts write JSON.stringify's text key by key, with no object to make and
 * walk), or an object for JSON.stringify to make the line of.
 */
export type RecordBuilder = (values: readonly unknown[], at: number) => unknown;

/**
 * Values a chunk takes before the next record opens a new one. A chunk stays an ordinary heap
 * object (under V8's 128 KiB for one: 16,384 slots of 8 bytes, with room for a record that runs
 * past this), so the log grows without copying: one flat array grown by push leaves each outgrown
 * copy of itself in the large-object space until a full collection, raising the run's peak.
 */
export const CHUNK_VALUES = 8192;

/**
 * The lines of orders.jsonl or decisions.jsonl, serialized only when read. A run keeps each record
 * as the values it is made of, taken when the record was made (an order's status, side, reason...
 * as they were then), in arrays of a few thousand values (chunks) that grow without an object per
 * record; the line is made when it is needed: the checkpoint's digest, the file at the end, the
 * report's rejected orders.
 * A line is therefore the string JSON.stringify gave when the record was made, without a
 * stringification or an object for the garbage collector per record inside the bar loop. A line
 * is kept only when asked to (by a checkpoint's digest: the file at the end reads it again);
 * otherwise the values, smaller than their lines, are all a run holds.
 */
export class RecordLog implements Iterable<string> {
  /**
   * Per record, from its start: a line already made (a string), or its builder then its values.
   * A record's values never straddle two chunks.
   */
  private chunk: unknown[] = [];
  private readonly chunks: unknown[][] = [this.chunk];
  /** Per record: its chunk, and where its values start in it. */
  private readonly chunkOf: number[] = [];
  private readonly starts: number[] = [];

  get length(): number {
    return this.starts.length;
  }

  /** Adds a line made now. */
  pushLine(line: string): void {
    this.next().push(line);
  }

  /**
   * Adds a record kept as values: the caller pushes them onto the array returned, at once, and
   * `build` makes the object to serialize from them when the line is read.
   */
  open(build: RecordBuilder): unknown[] {
    const chunk = this.next();
    chunk.push(build);
    return chunk;
  }

  /** The chunk the next record starts in (a new one once the current has CHUNK_VALUES), its start
   * noted. */
  private next(): unknown[] {
    let chunk = this.chunk;
    if (chunk.length >= CHUNK_VALUES) {
      chunk = [];
      this.chunk = chunk;
      this.chunks.push(chunk);
    }
    this.chunkOf.push(this.chunks.length - 1);
    this.starts.push(chunk.length);
    return chunk;
  }

  /** Line `k` (0-based); `keep`: kept in place of its values, for the next read. */
  line(k: number, keep = false): string {
    const at = this.starts[k];
    if (at === undefined) throw new RangeError(`no line ${k} in a log of ${this.starts.length}`);
    const c = this.chunkOf[k] as number;
    const values = this.chunks[c] as unknown[];
    const head = values[at];
    if (typeof head === "string") return head;
    const built = (head as RecordBuilder)(values, at + 1);
    const line = typeof built === "string" ? built : JSON.stringify(built);
    if (keep) {
      // A line made of pieces is kept flat (util/json-text's `flat`): its pieces held 6 times more.
      values[at] = flat(line);
      const end = this.chunkOf[k + 1] === c ? (this.starts[k + 1] as number) : values.length;
      values.fill(null, at + 1, end);
    }
    return line;
  }

  *[Symbol.iterator](): Iterator<string> {
    for (let k = 0; k < this.starts.length; k++) yield this.line(k);
  }
}
