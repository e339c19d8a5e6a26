// Stored text (memory files, names, data file content) is hostile input: printed raw, an ESC
// sequence clears the screen or rewrites what the user reads, a bidi override reorders it. Every
// text output passes through here so such characters are shown, never acted on.

// C0 except \n and \t (CR too: it would overwrite the line), DEL, C1, bidi embeddings, overrides
// and isolates (U+202A–U+202E, U+2066–U+2069).
// biome-ignore lint/suspicious/noControlCharactersInRegex: these characters are what is matched
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/**
 * `text` with control and bidi characters made visible: C0 and DEL as their Unicode control
 * pictures (␛ for ESC, one column wide, so tables stay aligned), C1 as `\x9b`, bidi controls as
 * `\u202e`. Newlines and tabs are kept.
 */
export function escapeControl(text: string): string {
  return text.replace(UNSAFE, (ch) => {
    const code = ch.charCodeAt(0);
    if (code < 0x20) return String.fromCharCode(0x2400 + code);
    if (code === 0x7f) return "\u2421";
    if (code <= 0x9f) return `\\x${code.toString(16)}`;
    return `\\u${code.toString(16)}`;
  });
}

/**
 * A copy of a JSON-like value with every string (object keys included) passed through
 * escapeControl: formatters lay it out afterwards, so column widths are those of what is shown.
 */
export function escapeStrings<T>(value: T): T {
  return escapeValue(value) as T;
}

function escapeValue(value: unknown): unknown {
  if (typeof value === "string") return escapeControl(value);
  if (Array.isArray(value)) return value.map(escapeValue);
  if (isPlainObject(value)) {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [escapeControl(k), escapeValue(v)]),
    );
  }
  return value;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== "object") return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * `--json` output: JSON.stringify escapes C0 but writes DEL, C1 and bidi controls raw; they are
 * escaped here as `\u009b` etc. (only strings can hold them), so the JSON parses to the same value.
 */
export function jsonForTerminal(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(UNSAFE, (ch) => {
    return `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`;
  });
}
