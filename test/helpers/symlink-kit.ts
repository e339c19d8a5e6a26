import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/** What a planted link points at: a file outside the run with a secret-looking content. */
export const SECRET = "OPENAI_API_KEY=sk-test-SECRET-0123456789";

export interface Sandbox {
  root: string;
  /** A directory outside any run: link targets live here. */
  outside: string;
  /** A file in `outside` holding SECRET (no final newline, like /proc/self/environ). */
  secretFile: string;
  cleanup(): void;
}

export function sandbox(): Sandbox {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "abt-links-"));
  const outside = path.join(root, "outside");
  fs.mkdirSync(outside);
  const secretFile = path.join(outside, "environ");
  fs.writeFileSync(secretFile, SECRET);
  return {
    root,
    outside,
    secretFile,
    cleanup: () => fs.rmSync(root, { recursive: true, force: true }),
  };
}

/** Every regular file under `dir` (links are not followed) whose bytes contain `needle`. */
export function filesContaining(dir: string, needle: string): string[] {
  const hits: string[] = [];
  if (!fs.existsSync(dir)) return hits;
  for (const e of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!e.isFile()) continue;
    const full = path.join(e.parentPath, e.name);
    if (fs.readFileSync(full).includes(needle)) hits.push(path.relative(dir, full));
  }
  return hits;
}

/** Every path under `dir` with its content, not following links, for before/after comparisons. */
export function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    const full = path.join(e.parentPath, e.name);
    const rel = path.relative(dir, full);
    if (e.isSymbolicLink()) out[rel] = `-> ${fs.readlinkSync(full)}`;
    else if (e.isDirectory()) out[rel] = "<dir>";
    else out[rel] = fs.readFileSync(full, "utf8");
  }
  return out;
}
