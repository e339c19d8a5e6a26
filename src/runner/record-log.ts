import { flat } from "../util/json-text.js";

/**
 * Makes a record back from its values (`values[at]` is the first): its line, a string (the
 * builders of order-records.ts write JSON.stringify's text key by key, with no object to make and
 * walk: 30-45 % less CPU for the minute workload's lines), or an object for JSON.stringify to make
 * the line of.
 */
export type RecordBuilder = (values: readonly unknown[], at: number) => unknown;

/**
 * The lines of orders.jsonl or decisions.jsonl, serialized only when read. A run keeps each record
 * as the values it is made of, taken when the record was made (an order's status, side, reason...
 * as they were then), in one flat array that grows without an object per record; the line is made
 * when it is needed: the checkpoint's digest, the file at the end, the report's rejected orders.
 * A line is therefore the string JSON.stringify gave when the record was made, without
 * 120,000 stringifications, nor 120,000 objects for the garbage collector, inside a 1,000,000-bar
 * loop. A line is kept only when asked to (by a checkpoint's digest: the file at the end reads it
 * again); otherwise the values, smaller than their lines, are all a run holds.
 */
export class RecordLog implements Iterable<string> {
  /** Per record, from its start: a line already made (a string), or its builder then its values. */
  private readonly values: unknown[] = [];
  private readonly starts: number[] = [];

  get length(): number {
    return this.starts.length;
  }

  /** Adds a line made now. */
  pushLine(line: string): void {
    this.starts.push(this.values.length);
    this.values.push(line);
  }

  /**
   * Adds a record kept as values: the caller pushes them onto the array returned, at once, and
   * `build` makes the object to serialize from them when the line is read.
   */
  open(build: RecordBuilder): unknown[] {
    this.starts.push(this.values.length);
    this.values.push(build);
    return this.values;
  }

  /** Line `k` (0-based); `keep`: kept in place of its values, for the next read. */
  line(k: number, keep = false): string {
    const at = this.starts[k];
    if (at === undefined) throw new RangeError(`no line ${k} in a log of ${this.starts.length}`);
    const head = this.values[at];
    if (typeof head === "string") return head;
    const built = (head as RecordBuilder)(this.values, at + 1);
    const line = typeof built === "string" ? built : JSON.stringify(built);
    if (keep) {
      // A line made of pieces is kept flat (util/json-text's `flat`): its pieces held 6 times more.
      this.values[at] = flat(line);
      this.values.fill(null, at + 1, this.starts[k + 1] ?? this.values.length);
    }
    return line;
  }

  *[Symbol.iterator](): Iterator<string> {
    for (let k = 0; k < this.starts.length; k++) yield this.line(k);
  }
}
