import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { showOutputSchema } from "../../../src/rundir/schemas.js";
import { cli, cliAsync, DATA, ROOT, readJson, runDirs, tempDir } from "../../helpers/cli.js";
import { waitFor } from "../../helpers/wait.js";

const work = tempDir("agenticbt-show-killed-");
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));
const GOOG = path.join(DATA, "GOOG.csv");

// A killed run leaves result.json as it was before its first bar: `show` tells how far it got
// from its last checkpoint, not "no bar simulated".
describe("show of a killed run", () => {
  it("gives the bars its last checkpoint reached, and the status the process left", async () => {
    const runs = path.join(work, "runs");
    const child = cliAsync(
      [
        "run",
        path.join(ROOT, "test/fixtures/strategies/slow.ts"),
        "--data",
        GOOG,
        "--from",
        "2005-01-03",
        "--param",
        "ms=3",
        "--checkpoint-every",
        "20",
        "--runs-dir",
        runs,
        "--no-ui",
      ],
      work,
    );
    const closed = new Promise((resolve) => child.on("close", resolve));
    // Past a few checkpoints, then killed with no chance to write anything.
    await waitFor(() => {
      const [dir] = runDirs(runs);
      if (dir === undefined) return false;
      try {
        return readJson<{ bar: number }>(path.join(dir, "checkpoint.json")).bar >= 250;
      } catch {
        return false;
      }
    }, 60_000);
    child.kill("SIGKILL");
    await closed;
    const [dir] = runDirs(runs) as [string];
    const id = path.basename(dir);
    expect(readJson<{ status: string }>(path.join(dir, "result.json")).status).toBe("running");
    const checkpoint = readJson<{ time: string; savedAt: string }>(
      path.join(dir, "checkpoint.json"),
    );
    // The window's bars up to the checkpoint's, counted in the file itself.
    const dates = fs
      .readFileSync(GOOG, "utf8")
      .trim()
      .split("\n")
      .slice(1)
      .map((l) => l.split(",")[0] as string);
    const reached = dates.filter((d) => d >= "2005-01-03" && d <= checkpoint.time).length;
    const requested = dates.filter((d) => d >= "2005-01-03").length;
    expect(reached).toBeGreaterThan(100);
    expect(reached).toBeLessThan(requested);

    const text = cli(["show", dir], work);
    expect(text.status, text.stderr).toBe(0);
    expect(text.stdout).toContain(
      `slow on GOOG, 2005-01-03 → ${checkpoint.time} (${reached} of ${requested} bars)`,
    );
    expect(text.stdout).not.toContain("no bar simulated");
    expect(text.stdout).toContain(
      `No metrics: the run stopped before writing them; its last checkpoint (${checkpoint.savedAt}) was at ${checkpoint.time}, bar ${reached} of ${requested}, and it may have gone further (agenticbt resume ${id} continues it).`,
    );
    expect(text.stdout).toContain("Status: interrupted (process gone)");
    expect(text.stdout).not.toContain("Status: running");
    expect(text.stdout).toMatch(/^Started {3}\S+, not finished$/m);

    const json = showOutputSchema.parse(JSON.parse(cli(["show", dir, "--json"], work).stdout));
    expect(json.reached).toEqual({
      bars: reached,
      time: checkpoint.time,
      savedAt: checkpoint.savedAt,
    });
    expect(json.status).toBe("interrupted (process gone)");
  }, 90_000);
});
