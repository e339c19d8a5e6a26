import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cli, cliRun, DATA, ROOT, readJson, runDirs, tempDir } from "../helpers/cli.js";
import { startScriptedServer } from "../helpers/scripted-openai-server.js";

const work = tempDir();
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

/** Everything under `dir`, as paths relative to it. */
function contents(dir: string): string[] {
  return fs.readdirSync(dir, { recursive: true, encoding: "utf8" }).sort();
}

describe("a code run writes nothing outside its run directory and the project", () => {
  // Both ways a .ts strategy is compiled: as an ES module (the repository's package.json says
  // "module") and as CommonJS (no package.json above a temp dir).
  const esm = path.join(ROOT, "strategies", "sma-crossover.ts");
  const cjsDir = path.join(work, "cjs-strategy");
  fs.mkdirSync(cjsDir);
  const cjs = path.join(cjsDir, "hold.ts");
  fs.writeFileSync(
    cjs,
    'const s: { name: string; onBar(): void } = { name: "hold", onBar() {} };\nexport default s;\n',
  );

  for (const [label, strategy] of [
    ["ES module", esm],
    ["CommonJS", cjs],
  ] as const) {
    it(`leaves the temp directory empty (${label} strategy)`, () => {
      const tmp = path.join(work, `tmp-${label.replace(/\W/g, "")}`);
      fs.mkdirSync(tmp);
      const runs = path.join(work, `runs-${label.replace(/\W/g, "")}`);
      const r = cli(
        ["run", strategy, "--data", path.join(DATA, "GOOG.csv"), "--runs-dir", runs, "-q"],
        work,
        { ...process.env, TMPDIR: tmp, TMP: tmp, TEMP: tmp },
      );
      expect(r.stderr).toBe("");
      expect(r.status).toBe(0);
      const [dir] = runDirs(runs);
      expect(readJson<{ status: string }>(path.join(dir as string, "result.json")).status).toBe(
        "completed",
      );
      expect(contents(tmp)).toEqual([]);
    });
  }

  it("leaves the temp directory empty (an LLM run, cache on)", async () => {
    const server = await startScriptedServer(() => ({ content: "hold" }));
    try {
      const tmp = path.join(work, "tmp-llm");
      fs.mkdirSync(tmp);
      const runs = path.join(work, "runs-llm");
      const r = await cliRun(
        [
          "run",
          "--prompt",
          "Trade GOOG.",
          "--data",
          path.join(DATA, "GOOG.csv"),
          "--to",
          "2004-09-01",
          "--base-url",
          server.url,
          "--cache-dir",
          path.join(work, "llm-cache"),
          "--runs-dir",
          runs,
          "-q",
        ],
        work,
        { ...process.env, OPENAI_API_KEY: "k", TMPDIR: tmp, TMP: tmp, TEMP: tmp },
      );
      expect(r.stderr).toBe("");
      expect(r.status).toBe(0);
      expect(contents(tmp)).toEqual([]);
    } finally {
      await server.close();
    }
  }, 60_000);
});
