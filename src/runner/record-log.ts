/**
 * The lines of orders.jsonl or decisions.jsonl, serialized only when read. A run keeps each record
 * as a snapshot that nothing changes any more (its own copy of whatever could move on: an order's
 * status, side, reason...), and JSON.stringify runs on it when a line is needed: the checkpoint's
 * digest, the file at the end, the report. A line is therefore the very string JSON.stringify gave
 * when the record was made, without 120,000 stringifications inside a 1,000,000-bar loop.
 */
export class RecordLog implements Iterable<string> {
  /** A line already made (a string) or the snapshot it is made from. */
  private readonly items: (string | object)[] = [];

  get length(): number {
    return this.items.length;
  }

  /** Adds a record: a line as it is, or a snapshot the caller owns and never changes again. */
  push(record: string | object): void {
    this.items.push(record);
  }

  /** Line `k` (0-based), serialized once and kept. */
  line(k: number): string {
    const r = this.items[k];
    if (typeof r === "string") return r;
    if (r === undefined) throw new RangeError(`no line ${k} in a log of ${this.items.length}`);
    const s = JSON.stringify(r);
    this.items[k] = s;
    return s;
  }

  *[Symbol.iterator](): Iterator<string> {
    for (let k = 0; k < this.items.length; k++) yield this.line(k);
  }
}
