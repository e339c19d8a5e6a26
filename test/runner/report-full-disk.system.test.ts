import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { RUN_FILE, SIMULATION_OUTPUTS } from "../../src/rundir/layout.js";
import { cli, DATA, ROOT, readJson, runDirs, tempDir } from "../helpers/cli.js";
import { enospcEnv } from "../helpers/full-disk.js";

const work = tempDir("agenticbt-report-disk-");
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

// report.html is a view of the run's files, written after result.json and rewritten by
// `agenticbt report`: a full disk that stops it leaves a finished run finished, with a warning.
describe("report.html cannot be written (a full disk)", () => {
  it("the run stays completed (exit 0), says how to write the page, and `report` writes it later", () => {
    const runs = path.join(work, "runs");
    const args = [
      "run",
      path.join(ROOT, "strategies", "sma-crossover.ts"),
      "--data",
      path.join(DATA, "GOOG.csv"),
      "--runs-dir",
      runs,
      "--no-ui",
    ];
    const r = cli(args, work, enospcEnv("report\\.html"));
    const [dir] = runDirs(runs);
    expect(dir).toBeDefined();
    const id = path.basename(dir as string);
    expect(r.stderr).toContain(`report.html was not written (`);
    expect(r.stderr).toContain("ENOSPC");
    expect(r.stderr).toContain(`agenticbt report ${id} retries.`);
    expect(r.status).toBe(0);
    // The run's last line says how to write it (by directory: the runs root is not the default).
    expect(r.stdout.trimEnd().split("\n").at(-1)).toBe(
      `Report not written: agenticbt report ${path.join("runs", id)} writes it`,
    );
    const result = readJson<{ status: string; error: unknown }>(
      path.join(dir as string, RUN_FILE.result),
    );
    expect(result.status).toBe("completed");
    expect(result.error).toBeNull();
    // Every output beside it is whole; neither the page nor its temp file is left.
    for (const role of SIMULATION_OUTPUTS) {
      expect(fs.statSync(path.join(dir as string, RUN_FILE[role])).size).toBeGreaterThan(0);
    }
    const left = fs.readdirSync(dir as string);
    expect(left.filter((f) => f.includes(RUN_FILE.report))).toEqual([]);

    const again = cli(["report", id, "--runs-dir", runs], work);
    expect(again.status, again.stderr).toBe(0);
    expect(fs.readFileSync(path.join(dir as string, RUN_FILE.report), "utf8")).toContain("<html");
  });
});
