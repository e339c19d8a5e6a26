import fs from "node:fs";
import path from "node:path";

const slug = (s: string): string =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 40) || "run";

function stamp(d: Date): string {
  const p = (n: number, w = 2) => String(n).padStart(w, "0");
  return `${d.getUTCFullYear()}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}-${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}-${p(d.getUTCMilliseconds(), 3)}`;
}

/**
 * Creates a new, empty run directory and returns its id. Ids sort by creation time
 * (`YYYYMMDD-HHMMSS-mmm-<name>-<suffix>`); the directory is claimed with an exclusive mkdir, so
 * concurrent runs (threads or processes) can never share or overwrite one.
 */
export function createRunDir(
  runsRoot: string,
  name: string,
  now = new Date(),
): { id: string; dir: string } {
  fs.mkdirSync(runsRoot, { recursive: true });
  const base = `${stamp(now)}-${slug(name)}`;
  for (let attempt = 0; attempt < 1000; attempt++) {
    const suffix = (process.pid % 46656).toString(36).padStart(3, "0") + attempt.toString(36);
    const id = `${base}-${suffix}`;
    const dir = path.join(runsRoot, id);
    try {
      fs.mkdirSync(dir);
      return { id, dir };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
  }
  throw new Error(
    `Could not create a unique run directory under ${runsRoot}; remove stale runs and retry.`,
  );
}
