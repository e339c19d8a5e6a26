// JSON text of a value, the very bytes JSON.stringify writes for it, made without JSON.stringify
// where that is simple (strings needing no escape, numbers, null, small flat objects) and by
// JSON.stringify itself for anything else. For writers of many lines of a known shape
// (orders.jsonl): a line made of these parts is JSON.stringify's line at a fraction of its cost
// (JSON.stringify looks up `toJSON` on every object and walks each object's keys; a line written
// key by key knows them).

/**
 * A string's JSON: quoted as it is when it is `plain`, else JSON.stringify's.
 */
export function jsonString(s: string): string {
  return plain(s) ? `"${s}"` : JSON.stringify(s);
}

/**
 * Whether a string is its own JSON between quotes: no quote, backslash, control character or
 * surrogate (JSON.stringify escapes the first three and lone surrogates: any surrogate is left to
 * JSON.stringify).
 */
export function plain(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c || (c >= 0xd800 && c <= 0xdfff)) return false;
  }
  return true;
}

// Written, never read: a use of the character read that the optimizer cannot drop.
let _touched = 0;

/**
 * `s` flattened: a string made by `+` is a tree of its pieces (V8), 2.5 KB for a 260-character
 * line of 50 pieces against 0.4 KB flat, and each read (a hash, a write) walks the tree again.
 * Reading a character flattens it in place; the character is used so the read is not optimized
 * away.
 */
export function flat(s: string): string {
  _touched ^= s.charCodeAt(0);
  return s;
}

/** A number's JSON: its shortest round-trip text (-0 is "0"), null when not finite. */
export function jsonNumber(n: number): string {
  return Number.isFinite(n) ? `${n}` : "null";
}

/**
 * `prefix` (`,"key":` or `{"key":`, the key needing no escape) then `value`'s JSON as
 * JSON.stringify writes key `key` of an object, or "" when JSON.stringify leaves the key out
 * (undefined, a function, a symbol).
 */
export function jsonField(prefix: string, value: unknown): string {
  if (value === null) return `${prefix}null`;
  if (typeof value === "number") return prefix + jsonNumber(value);
  if (typeof value === "string") return prefix + jsonString(value);
  const j = jsonValue(prefix.slice(2, -2), value);
  return j === undefined ? "" : prefix + j;
}

/**
 * One key of objects written many times (a line's `,"symbol":`): jsonField's text for a value of
 * it, the text for null made once, a string's remembered from the last call (the strings of a
 * field repeat line after line: a symbol, a reason). Fewer and longer pieces make a line that
 * costs less to flatten.
 */
export class JsonField {
  private readonly key: string;
  private readonly nullText: string;
  private lastString = "";
  private lastText: string;
  // The keys and values of the flat object being written (an order's size, its time in force),
  // in order; the last few written, with their text: the few sizes of a run come back line after
  // line (a long/short strategy alternates two).
  private readonly keys: string[] = [];
  private readonly values: (string | number)[] = [];
  private readonly seen: { keys: string[]; values: (string | number)[]; text: string }[] = [];
  private nextSeen = 0;

  /** `prefix`: `,"key":` or `{"key":`, the key needing no escape. */
  constructor(private readonly prefix: string) {
    this.key = prefix.slice(2, -2);
    this.nullText = `${prefix}null`;
    this.lastText = `${prefix}""`;
  }

  of(value: unknown): string {
    if (value === null) return this.nullText;
    if (typeof value === "number")
      return Number.isFinite(value) ? this.prefix + value : this.nullText;
    if (typeof value === "string") {
      if (value !== this.lastString) {
        this.lastString = value;
        this.lastText = this.prefix + jsonString(value);
      }
      return this.lastText;
    }
    if (typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
      return this.flat(value);
    }
    const j = jsonValue(this.key, value);
    return j === undefined ? "" : this.prefix + j;
  }

  /** A plain object's text when it holds strings and numbers only, else JSON.stringify's. */
  private flat(o: object): string {
    const { keys, values } = this;
    let n = 0;
    for (const k in o) {
      // Own properties only (for...in also walks the prototype's enumerable ones).
      if (!Object.hasOwn(o, k)) return this.stringified(o);
      const v: unknown = (o as Record<string, unknown>)[k];
      if (typeof v !== "string" && typeof v !== "number") return this.stringified(o);
      keys[n] = k;
      values[n] = v;
      n++;
    }
    search: for (const e of this.seen) {
      if (e.keys.length !== n) continue;
      // The same keys and values (=== : -0 is 0, as in the text; NaN is never found again).
      for (let j = 0; j < n; j++)
        if (e.keys[j] !== keys[j] || e.values[j] !== values[j]) continue search;
      return e.text;
    }
    let text = `${this.prefix}{`;
    for (let j = 0; j < n; j++) {
      const v = values[j] as string | number;
      text += `${j === 0 ? "" : ","}${jsonString(keys[j] as string)}:${typeof v === "string" ? jsonString(v) : jsonNumber(v)}`;
    }
    text = flat(`${text}}`);
    this.seen[this.nextSeen] = { keys: keys.slice(0, n), values: values.slice(0, n), text };
    this.nextSeen = (this.nextSeen + 1) % SEEN_OBJECTS;
    return text;
  }

  private stringified(o: object): string {
    const j = viaStringify(this.key, o);
    return j === undefined ? "" : this.prefix + j;
  }
}

/** Flat objects a JsonField remembers. */
const SEEN_OBJECTS = 4;

/**
 * The JSON of `value` as the value of key `key` of an object JSON.stringify writes, or undefined
 * when JSON.stringify leaves the key out. The key matters only to a `toJSON` method, given it.
 */
export function jsonValue(key: string, value: unknown): string | undefined {
  switch (typeof value) {
    case "string":
      return jsonString(value);
    case "number":
      return jsonNumber(value);
    case "boolean":
      return value ? "true" : "false";
    case "object":
      if (value === null) return "null";
      if (Object.getPrototypeOf(value) === Object.prototype) return flatObject(key, value);
  }
  return viaStringify(key, value);
}

/** A plain object of strings and numbers only (an order's size, its time in force), walked;
 * anything else in it, JSON.stringify's. */
function flatObject(key: string, o: object): string | undefined {
  let s = "{";
  for (const k in o) {
    // Own properties only (for...in also walks the prototype's enumerable ones).
    if (!Object.hasOwn(o, k)) return viaStringify(key, o);
    const v: unknown = (o as Record<string, unknown>)[k];
    let j: string;
    if (typeof v === "string") j = jsonString(v);
    else if (typeof v === "number") j = jsonNumber(v);
    else return viaStringify(key, o);
    s += `${s.length === 1 ? "" : ","}${jsonString(k)}:${j}`;
  }
  return `${s}}`;
}

/** JSON.stringify's text for `value` under `key` of an object (`toJSON(key)` and all). */
function viaStringify(key: string, value: unknown): string | undefined {
  const text = JSON.stringify({ [key]: value });
  // `{}` when the key is left out; else `{"key":…}`.
  return text.length === 2 ? undefined : text.slice(jsonString(key).length + 2, -1);
}
