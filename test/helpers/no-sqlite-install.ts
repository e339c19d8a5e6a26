import fs from "node:fs";
import path from "node:path";
import { ROOT } from "./cli.js";

/**
 * A throwaway copy of the built CLI whose better-sqlite3 has no native binding
 * (build/Release/better_sqlite3.node), as after an install that skipped or lost its build: bin/,
 * dist/ and package.json copied, node_modules a directory of links to the project's packages except
 * better-sqlite3, copied without its build. The project's own install is never touched (other
 * processes use it). Returns the copy's bin/agenticbt.
 */
export function installWithoutSqliteBinding(dir: string): string {
  for (const part of ["bin", "dist"]) {
    fs.cpSync(path.join(ROOT, part), path.join(dir, part), { recursive: true });
  }
  fs.copyFileSync(path.join(ROOT, "package.json"), path.join(dir, "package.json"));
  const modules = path.join(dir, "node_modules");
  fs.mkdirSync(modules);
  for (const name of fs.readdirSync(path.join(ROOT, "node_modules"))) {
    if (name === "better-sqlite3" || name === ".bin") continue;
    fs.symlinkSync(path.join(ROOT, "node_modules", name), path.join(modules, name));
  }
  const sqlite = path.join(ROOT, "node_modules", "better-sqlite3");
  for (const part of ["lib", "package.json"]) {
    fs.cpSync(path.join(sqlite, part), path.join(modules, "better-sqlite3", part), {
      recursive: true,
    });
  }
  return path.join(dir, "bin", "agenticbt");
}
