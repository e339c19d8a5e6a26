import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { BIN, DATA, ROOT, runArgs, tempDir } from "../helpers/cli.js";

// What `agenticbt run` loads for a code strategy: only what that run uses. The LLM agent, resume,
// the memory systems it does not use and technicalindicators (four indicators of the catalogue)
// cost a code run's start-up a few hundred milliseconds together when imported up front.

const dir = tempDir("agenticbt-start-up-");
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Every module the built CLI loads during `args`: ESM through a load hook, CommonJS from
 * require.cache at exit. */
function loadedModules(args: string[]): { status: number | null; modules: string[] } {
  const log = path.join(dir, `modules-${Date.now()}.txt`);
  const hooks = path.join(dir, "hooks.mjs");
  fs.writeFileSync(
    hooks,
    `import fs from "node:fs";
export async function load(url, context, next) {
  fs.appendFileSync(process.env.MODULES_LOG, url + "\\n");
  return next(url, context);
}
`,
  );
  const register = path.join(dir, "register.mjs");
  fs.writeFileSync(
    register,
    `import fs from "node:fs";
import { createRequire, register } from "node:module";
register(${JSON.stringify(pathToFileURL(hooks).href)});
const cache = createRequire(import.meta.url).cache;
process.on("exit", () => {
  fs.appendFileSync(process.env.MODULES_LOG, Object.keys(cache).map((f) => "file://" + f + "\\n").join(""));
});
`,
  );
  const r = spawnSync(process.execPath, ["--import", pathToFileURL(register).href, BIN, ...args], {
    cwd: dir,
    env: { ...process.env, MODULES_LOG: log },
    encoding: "utf8",
  });
  const modules = fs.existsSync(log) ? fs.readFileSync(log, "utf8").split("\n") : [];
  return { status: r.status, modules: modules.filter((m) => m !== "") };
}

const dist = (file: string) => pathToFileURL(path.join(ROOT, "dist", file)).href;
const loads = (modules: string[], part: string) => modules.some((m) => m.includes(part));

describe("agenticbt run: a code strategy loads only what it uses", () => {
  it("loads neither the LLM agent, resume, the other memory systems nor technicalindicators", () => {
    const { status, modules } = loadedModules(
      runArgs(
        "strategies/sma-crossover.ts",
        path.join(DATA, "GOOG.csv"),
        path.join(dir, "runs"),
        "--json",
      ),
    );
    expect(status).toBe(0);
    // The hook sees the run's own modules (else the absences below would prove nothing).
    expect(modules).toContain(dist("runner/run-backtest.js"));
    expect(modules).toContain(dist("memory/systems/files-system.js"));
    expect(modules).toContain(dist("indicators/catalogue.js"));
    const absent = [
      dist("runner/prepare-llm-strategy.js"),
      dist("agent/llm-strategy.js"),
      dist("agent/tool-loop.js"),
      dist("agent/tools/"),
      dist("agent/llm/transcript.js"),
      dist("agent/llm/resumed-calls.js"),
      dist("runner/resume-run.js"),
      dist("memory/layered/layered-system.js"),
      dist("memory/systems/persistent-system.js"),
      dist("memory/persistent/persistent-store.js"),
      "/node_modules/technicalindicators/",
      "/node_modules/openai/",
    ];
    expect(absent.filter((part) => loads(modules, part))).toEqual([]);
  });

  it("loads technicalindicators for a strategy that uses one of its indicators", () => {
    const strategy = path.join(dir, "adx-strategy.mjs");
    fs.writeFileSync(
      strategy,
      `export default {
  name: "adx-reader",
  init(ctx) { return { adx: ctx.indicator("adx", { period: 14 }) }; },
  onBar(ctx, { adx }) { if (adx.value !== null && adx.value > 25 && ctx.position() === 0) ctx.buy({ fraction: 1 }); },
};
`,
    );
    const { status, modules } = loadedModules(
      runArgs(strategy, path.join(DATA, "GOOG.csv"), path.join(dir, "runs"), "--json"),
    );
    expect(status).toBe(0);
    expect(loads(modules, "/node_modules/technicalindicators/")).toBe(true);
    expect(loads(modules, dist("agent/tool-loop.js"))).toBe(false);
  });
});
