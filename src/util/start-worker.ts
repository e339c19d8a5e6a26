import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Worker, type WorkerOptions } from "node:worker_threads";

/**
 * Starts the worker thread whose entry is `entry` (a module name without extension) beside the
 * module at `from` (its `import.meta.url`). Under vitest and tsx a module runs from its .ts
 * source, and so must the worker: a thread does not inherit the loader of this one and ignores
 * `--import` in its execArgv, so its boot code registers tsx's CommonJS hook first.
 */
export function startWorker(from: string, entry: string, options: WorkerOptions): Worker {
  const self = fileURLToPath(from);
  if (!self.endsWith(".ts")) return new Worker(new URL(`./${entry}.js`, from), options);
  const tsx = createRequire(from).resolve("tsx/cjs/api");
  const file = path.join(path.dirname(self), `${entry}.ts`);
  const boot = `require(${JSON.stringify(tsx)}).register(); require(${JSON.stringify(file)});`;
  return new Worker(boot, { ...options, eval: true });
}
