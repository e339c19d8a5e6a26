import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { Strategy } from "../strategy/types.js";
import { StrategyLoadError } from "./run-errors.js";

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
      const { tsImport } = await import("tsx/esm/api");
      mod = (await tsImport(pathToFileURL(abs).href, import.meta.url)) as Record<string, unknown>;
    } else {
      mod = (await import(pathToFileURL(abs).href)) as Record<string, unknown>;
    }
  } catch (err) {
    throw new StrategyLoadError(`Could not load strategy ${file}: ${(err as Error).message}`);
  }
  const candidate = unwrapDefault(mod.default);
  if (!isStrategy(candidate)) {
    throw new StrategyLoadError(
      `${file} does not default-export a strategy. Export an object with a name and an onBar(ctx, state) function: export default { name: "x", onBar(ctx) { ... } }.`,
    );
  }
  return candidate;
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
