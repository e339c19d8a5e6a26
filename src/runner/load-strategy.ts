import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { StrategyLoadError } from "../errors/run-errors.js";
import type { Strategy } from "../strategy/types.js";

/** Loads a code strategy module (`.ts` through tsx, `.js`/`.mjs` natively) and checks its shape. */
export async function loadStrategy(file: string): Promise<Strategy<unknown>> {
  const abs = path.resolve(file);
  if (!fs.existsSync(abs)) {
    throw new StrategyLoadError(
      `Strategy file not found: ${file}. Pass a path such as strategies/sma-crossover.ts.`,
    );
  }
  let mod: Record<string, unknown>;
  try {
    if (/\.(c|m)?tsx?$/.test(abs)) {
      mod = commonJsScope(abs) ? await requireTs(abs) : await importTs(abs);
    } else {
      mod = (await import(pathToFileURL(abs).href)) as Record<string, unknown>;
    }
  } catch (err) {
    throw new StrategyLoadError(`Could not load strategy ${file}: ${(err as Error).message}`);
  }
  return strategyFrom(mod.default, `${file} does not default-export a strategy`);
}

/**
 * tsx caches each file it compiles under the system temp directory, readable by every user and
 * left there after the run. The run writes nothing outside its directory and the project, so
 * the cache goes off (tsx reads this when its modules load; compiling a strategy takes
 * milliseconds).
 */
function withoutTsxCache(): void {
  process.env.TSX_DISABLE_CACHE = "1";
}

async function importTs(abs: string): Promise<Record<string, unknown>> {
  withoutTsxCache();
  const { tsImport } = await import("tsx/esm/api");
  return (await tsImport(pathToFileURL(abs).href, import.meta.url)) as Record<string, unknown>;
}

/**
 * A .ts file that Node's rules make CommonJS, compiled by tsx's require. Imported instead, tsx
 * evaluates it from a data: URL whose stack frames name no file and no source line, so a
 * strategy's error could not say where it was thrown.
 */
async function requireTs(abs: string): Promise<Record<string, unknown>> {
  withoutTsxCache();
  const { require: tsxRequire } = await import("tsx/cjs/api");
  return tsxRequire(abs, import.meta.url) as Record<string, unknown>;
}

/**
 * Whether Node takes a TypeScript file for CommonJS: `.cts` always, `.mts` never, `.ts`/`.tsx`
 * unless the nearest package.json says `"type": "module"`.
 */
export function commonJsScope(file: string): boolean {
  if (file.endsWith(".cts")) return true;
  if (file.endsWith(".mts")) return false;
  for (let dir = path.dirname(file); ; ) {
    const manifest = path.join(dir, "package.json");
    let text: string | null = null;
    try {
      text = fs.readFileSync(manifest, "utf8");
    } catch {
      // None here: the next directory up decides.
    }
    if (text !== null) {
      try {
        return (JSON.parse(text) as { type?: unknown }).type !== "module";
      } catch {
        // A package.json Node cannot read: Node would fail on it too; leave it to tsx to say so.
        return false;
      }
    }
    const up = path.dirname(dir);
    if (up === dir) return true;
    dir = up;
  }
}

/**
 * `value` as a strategy: an object with a name and an onBar function, or a module's default
 * export that holds one (tsx, or a CommonJS project, may wrap it once more). Otherwise a
 * StrategyLoadError that starts with `problem` and says what a strategy is.
 */
export function strategyFrom(value: unknown, problem: string): Strategy<unknown> {
  const candidate = unwrapDefault(value);
  if (isStrategy(candidate)) return candidate;
  throw new StrategyLoadError(
    `${problem}${shapeOf(candidate)}. A strategy is an object with a name and an onBar(ctx, state) function: export default { name: "x", onBar(ctx) { ... } }.`,
  );
}

/** What a value that is not a strategy looks like, for the error. */
function shapeOf(value: unknown): string {
  if (value === null || typeof value !== "object")
    return ` (got ${value === null ? "null" : typeof value})`;
  const keys = Object.keys(value);
  const missing = [
    typeof (value as { name?: unknown }).name === "string" ? "" : "a string name",
    typeof (value as { onBar?: unknown }).onBar === "function" ? "" : "an onBar function",
  ].filter(Boolean);
  return ` (got an object with ${keys.length ? `keys ${keys.slice(0, 8).join(", ")}` : "no keys"}; it lacks ${missing.join(" and ")})`;
}

// tsx may wrap a default export once more when it compiles ESM as CommonJS.
function unwrapDefault(value: unknown): unknown {
  if (value && typeof value === "object" && "default" in value && !("onBar" in value)) {
    return (value as { default: unknown }).default;
  }
  return value;
}

function isStrategy(value: unknown): value is Strategy<unknown> {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { onBar?: unknown }).onBar === "function" &&
    typeof (value as { name?: unknown }).name === "string"
  );
}
