import path from "node:path";
import { DEFAULT_NAMESPACE } from "../../config/run-settings.js";
import { NamespaceError } from "./persistent-errors.js";

export { DEFAULT_NAMESPACE };

const NAMESPACE = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/**
 * Returns `name` when it is safe as one directory name under the memory root: letters, digits,
 * "_" and "-" only, so no separator, no "." (hence no ".."), nothing hidden and nothing a shell
 * or another platform reads specially.
 */
export function validateNamespace(name: string): string {
  if (NAMESPACE.test(name)) return name;
  const shown = JSON.stringify(name.length > 60 ? `${name.slice(0, 60)}…` : name);
  throw new NamespaceError(
    `Invalid --memory-namespace ${shown}: a namespace is 1-64 letters, digits, "_" or "-", ` +
      'starting with a letter or digit (e.g. "default", "spy-momentum").',
  );
}

/**
 * The root of all persistent stores: `memory/` beside the runs directory, so the default runs
 * root `.agenticbt/runs` gives `.agenticbt/memory` and a test's temporary runs root keeps its
 * stores beside it.
 */
export function memoryRootFor(runsRoot: string): string {
  return path.join(path.dirname(path.resolve(runsRoot)), "memory");
}
