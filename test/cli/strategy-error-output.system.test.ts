import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BIN, cli, DATA, ROOT, readJson, runArgs, runDirs, tempDir } from "../helpers/cli.js";

const work = tempDir();
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

/** Runs the CLI with stdout and stderr on one file, so the file holds them in the order written. */
function cliMerged(args: string[]): { status: number | null; out: string } {
  const file = path.join(work, `out-${Date.now()}-${Math.random()}.txt`);
  const fd = fs.openSync(file, "w");
  try {
    const r = spawnSync(process.execPath, [BIN, ...args], { cwd: work, stdio: ["ignore", fd, fd] });
    return { status: r.status, out: fs.readFileSync(file, "utf8") };
  } finally {
    fs.closeSync(fd);
  }
}

describe("a strategy error is printed first, with where to fix it", () => {
  it("a throw mid-run: the error with file:line:column and bar comes before the metrics table", () => {
    const runs = path.join(work, "runs-mid");
    const strategy = path.join(ROOT, "test/fixtures/strategies/throws-at-bar.ts");
    const { status, out } = cliMerged([
      "run",
      strategy,
      "--data",
      path.join(DATA, "GOOG.csv"),
      "--param",
      "failAt=50",
      "--runs-dir",
      runs,
    ]);
    expect(status).toBe(1);
    // The fixture throws on line 10, column 13 (the `throw` of `new Error`), at master bar 50:
    // GOOG's 51st bar, 2004-10-29.
    const errorAt = out.indexOf(
      "error: the strategy threw at 2004-10-29: Error: deliberate failure at bar 50",
    );
    expect(errorAt, out).toBeGreaterThanOrEqual(0);
    expect(out).toContain(`  at ${strategy}:10:13`);
    const tableAt = out.indexOf("Return %");
    expect(tableAt).toBeGreaterThan(errorAt);
    const [dir] = runDirs(runs);
    const result = readJson<{ error: Record<string, unknown> }>(
      path.join(dir as string, "result.json"),
    );
    expect(result.error).toEqual({
      type: "Error",
      message: "deliberate failure at bar 50",
      at: "2004-10-29",
      location: `${strategy}:10:13`,
    });
  }, 60_000);

  it("a .ts strategy outside any ES-module package (Node takes it for CommonJS) still gets its file:line:column", () => {
    // The user's own folder: no package.json up the tree says "type": "module".
    const own = path.join(work, "my-strategies");
    fs.mkdirSync(own, { recursive: true });
    const strategy = path.join(own, "throws-at-bar.ts");
    const source = fs
      .readFileSync(path.join(ROOT, "test/fixtures/strategies/throws-at-bar.ts"), "utf8")
      .replace(/^import type .*$/m, 'type Strategy<S> = import("agenticbt").Strategy<S>;');
    fs.writeFileSync(strategy, source);
    const runs = path.join(work, "runs-cjs");
    const { status, out } = cliMerged(runArgs(strategy, path.join(DATA, "GOOG.csv"), runs));
    expect(status, out).toBe(1);
    // The same line and column as the fixture itself (its first line replaced one for one),
    // printed relative to the working directory.
    expect(out).toContain(`  at ${path.relative(work, strategy)}:10:13`);
    const [dir] = runDirs(runs);
    const result = readJson<{ error: Record<string, unknown> }>(
      path.join(dir as string, "result.json"),
    );
    expect(result.error.location).toBe(`${strategy}:10:13`);
    // `show` repeats where: the bar and the line (its lines wrapped to the terminal).
    const shown = cli(["show", dir as string], work).stdout.replace(/\s+/g, " ");
    expect(shown).toContain(
      `Status failed (Error: deliberate failure at bar 50 at 2004-10-29, ${strategy}:10:13)`,
    );
  }, 60_000);

  it("a throw in init: the error alone, no table of n/a", () => {
    const runs = path.join(work, "runs-init");
    const strategy = path.join(ROOT, "strategies/sma-crossover.ts");
    const { status, out } = cliMerged([
      "run",
      strategy,
      "--data",
      path.join(DATA, "GOOG.csv"),
      "--param",
      "fast=30",
      "--param",
      "slow=10",
      "--runs-dir",
      runs,
    ]);
    expect(status).toBe(1);
    expect(out).toContain(
      "error: the strategy threw in init: Error: sma-crossover needs 1 <= fast < slow (got fast=30, slow=10).",
    );
    // sma-crossover.ts line 21: `      throw new Error(` — column 13 is the `new`.
    expect(out).toContain(`  at ${strategy}:21:13`);
    expect(out).not.toContain("n/a");
    expect(out).not.toContain("Return %");
    // The run directory is still named, for its files.
    const [dir] = runDirs(runs);
    expect(out).toContain(path.basename(dir as string));
  }, 60_000);
});
