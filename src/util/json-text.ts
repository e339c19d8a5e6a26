// JSON text of a value, the very bytes JSON.stringify writes for it, made without JSON.stringify
// where that is simple (strings needing no escape, numbers, null, small flat objects) and by
// JSON.stringify itself for anything else. For writers of many lines of a known shape
// (orders.jsonl): a line made of these parts is JSON.stringify's line at a fraction of its cost
// (JSON.stringify looks up `toJSON` on every object and walks each object's keys; a line written
// key by key knows them).

/**
 * A string's JSON: quoted as it is when it holds no quote, backslash, control character or
 * surrogate (JSON.stringify escapes the first three and lone surrogates: any surrogate is left to
 * JSON.stringify), else JSON.stringify's.
 */
export function jsonString(s: string): string {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c || (c >= 0xd800 && c <= 0xdfff)) {
      return JSON.stringify(s);
    }
  }
  return `"${s}"`;
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

/** jsonString remembering its last string, for a field whose strings repeat (a symbol, a reason). */
export class JsonStringMemo {
  private last = "";
  private json = '""';

  /** jsonField for this field. */
  field(prefix: string, value: unknown): string {
    if (typeof value !== "string") return jsonField(prefix, value);
    if (value !== this.last) {
      this.last = value;
      this.json = jsonString(value);
    }
    return prefix + this.json;
  }
}

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
