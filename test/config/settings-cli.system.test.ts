import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cliRun, runDirs, tempDir } from "../helpers/cli.js";
import { badSettings, GOOG, reasonOf, STRATEGY } from "./bad-settings.js";

// The command line's half of the settings contract (a system test: it runs the built CLI): every
// numeric and choice setting given a bad value exits 2 before a run directory exists, and says
// what is wrong in the same words the library's UsageError does.

const work = tempDir("agenticbt-settings-cli-");
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

/** `items` through `task`, `width` at a time (the machine is shared). */
async function pool<T, R>(items: readonly T[], width: number, task: (t: T) => Promise<R>) {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) {
        const k = next++;
        out[k] = await task(items[k] as T);
      }
    }),
  );
  return out;
}

describe("every setting refused on the command line as by the library", () => {
  it("exit 2, no run directory, and the library's reason, for every bad value", async () => {
    const cases = badSettings();
    expect(cases.length).toBeGreaterThan(60);
    const runs = path.join(work, "runs");
    const results = await pool(cases, 3, async (c) => {
      const cli = await cliRun(
        ["run", STRATEGY, "--data", GOOG, "--runs-dir", runs, "-q", ...c.cli],
        work,
      );
      const library = c.library
        ? await c.library(path.join(work, "library")).then(
            () => "(no error)",
            (e: unknown) => (e as Error).message,
          )
        : null;
      return { c, cli, library };
    });
    for (const { c, cli, library } of results) {
      expect(cli.status, `${c.name}: ${cli.stderr}`).toBe(2);
      const line = cli.stderr.split("\n").find((l) => l.startsWith("error: ")) ?? cli.stderr;
      // The flag as the user typed it leads the message.
      expect(line, c.name).toContain(`error: ${c.cli[0]}`);
      expect(reasonOf(line), c.name).not.toMatch(/^\(no reason/);
      if (library !== null) expect(reasonOf(line), c.name).toBe(reasonOf(library));
    }
    expect(runDirs(runs)).toEqual([]);
    expect(runDirs(path.join(work, "library"))).toEqual([]);
  }, 300_000);
});
