// Every string on the page comes from a run directory, which may hold anything (a model's
// rationale, a strategy's tag, a file name): it reaches the page only through these two functions.

const ENTITIES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** Text safe inside an element or a quoted attribute. */
export function escapeHtml(value: unknown): string {
  return String(value).replace(/[&<>"']/g, (c) => ENTITIES[c] ?? c);
}

/**
 * A `<script type="application/json">` block holding `value`. `<` is written as \u003c so no
 * string in the data can close the element or open a comment; U+2028/9 likewise, for old parsers.
 */
export function jsonScript(id: string, value: unknown): string {
  const json = (JSON.stringify(value) ?? "null")
    .replace(/</g, "\\u003c")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
  return `<script type="application/json" id="${escapeHtml(id)}">${json}</script>`;
}
