import type { ConfigDiff } from "../rundir/schemas.js";

/** `{broker: {risk: {haltDrawdown: 0.2}}}` → `{"broker.risk.haltDrawdown": 0.2}`; arrays by index. */
export function flatten(value: unknown, prefix = "", out: Record<string, unknown> = {}) {
  const isContainer = value !== null && typeof value === "object";
  const entries = isContainer ? Object.entries(value) : [];
  if (!isContainer || entries.length === 0) {
    // Leaves, and empty objects or arrays (kept, so `presets: []` vs one preset shows up).
    if (prefix !== "") out[prefix] = value;
    return out;
  }
  for (const [k, v] of entries) flatten(v, prefix ? `${prefix}.${k}` : k, out);
  return out;
}

// The run id always differs and is already in the diff's header; paramOverrides repeats which
// of `params` were set by --param (`list` shows those), so its changes are those of params.
const IGNORED = new Set(["id", "paramOverrides"]);

/** Changed, added (only in B) and removed (only in A) keys of two config.json objects. */
export function diffConfig(a: unknown, b: unknown): ConfigDiff {
  const fa = flatten(a);
  const fb = flatten(b);
  const keys = [...new Set([...Object.keys(fa), ...Object.keys(fb)])]
    .filter((k) => !IGNORED.has(k.split(".")[0] ?? k))
    .sort();
  const diff: ConfigDiff = { changed: [], added: [], removed: [] };
  for (const key of keys) {
    const inA = Object.hasOwn(fa, key);
    const inB = Object.hasOwn(fb, key);
    if (inA && inB) {
      if (JSON.stringify(fa[key]) !== JSON.stringify(fb[key]))
        diff.changed.push({ key, a: fa[key], b: fb[key] });
    } else if (inB) diff.added.push({ key, b: fb[key] });
    else diff.removed.push({ key, a: fa[key] });
  }
  return diff;
}
