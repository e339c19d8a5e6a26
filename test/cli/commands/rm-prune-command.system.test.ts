import fs from "node:fs";
import path from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { confirmAndDelete } from "../../../src/cli/commands/remove-flow.js";
import { confirm } from "../../../src/cli/confirm.js";
import { parseAge, runsToRemove } from "../../../src/report/remove-runs.js";
import { removeOutputSchema } from "../../../src/rundir/schemas.js";
import { cli, tempDir } from "../../helpers/cli.js";
import { writeRun } from "./run-fixtures.js";

let work = "";
let runs = "";
beforeEach(() => {
  work = tempDir();
  runs = path.join(work, "runs");
});
afterEach(() => fs.rmSync(work, { recursive: true, force: true }));

const DONE = "20260101-100000-000-sma-crossover-aaa0";
const FAILED = "20260102-100000-000-sma-crossover-bbb0";
const INTERRUPTED = "20260103-100000-000-rsi-reversion-ccc0";
const RUNNING = "20260104-100000-000-trader-ddd0";
const exists = (id: string) => fs.existsSync(path.join(runs, id));

function fourRuns(): void {
  writeRun(runs, { id: DONE });
  writeRun(runs, { id: FAILED, status: "failed" });
  writeRun(runs, { id: INTERRUPTED, status: "interrupted" });
  writeRun(runs, { id: RUNNING, status: "running", finishedAt: null });
}

describe("agenticbt rm", () => {
  it("refuses without --yes when stdin is not a terminal (exit 2), deleting nothing", () => {
    fourRuns();
    const r = cli(["rm", DONE, "--runs-dir", runs], work);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("Pass --yes");
    expect(exists(DONE)).toBe(true);
  });

  it("--yes deletes runs named by id prefix and by directory; --json lists them", () => {
    fourRuns();
    const r = cli(
      ["rm", "20260101-1000", path.join(runs, FAILED), "--runs-dir", runs, "--yes", "--json"],
      work,
    );
    expect(r.status, r.stderr).toBe(0);
    const out = removeOutputSchema.parse(JSON.parse(r.stdout));
    expect(out.dryRun).toBe(false);
    expect(out.runs.map((x) => [x.id, x.status])).toEqual([
      [DONE, "completed"],
      [FAILED, "failed"],
    ]);
    expect(exists(DONE) || exists(FAILED)).toBe(false);
    expect(exists(INTERRUPTED) && exists(RUNNING)).toBe(true);
  });

  it("--dry-run lists and deletes nothing", () => {
    fourRuns();
    const r = cli(["rm", DONE, "--runs-dir", runs, "--dry-run"], work);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain(`Would delete 1 run(s) in ${runs}:`);
    expect(exists(DONE)).toBe(true);
  });

  it("never deletes a running run, and then deletes none of the others either", () => {
    fourRuns();
    const r = cli(["rm", DONE, RUNNING, "--runs-dir", runs, "--yes"], work);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`${RUNNING} is running`);
    expect(r.stderr).toContain("Nothing deleted.");
    expect(exists(DONE) && exists(RUNNING)).toBe(true);
  });

  it("refuses an unknown run, a link in the runs root and a run outside the root", () => {
    fourRuns();
    const outside = writeRun(path.join(work, "elsewhere"), { id: "20260105-100000-000-x-eee0" });
    const link = path.join(runs, "20260106-100000-000-link-fff0");
    fs.symlinkSync(outside, link);
    for (const name of ["nope", link, outside]) {
      const r = cli(["rm", name, "--runs-dir", runs, "--yes"], work);
      expect(r.status, name).toBe(2);
      expect(r.stderr, name).toMatch(/No run "nope"|symbolic link|not a run directory inside/);
    }
    expect(fs.existsSync(path.join(outside, "result.json"))).toBe(true);
    expect(fs.lstatSync(link).isSymbolicLink()).toBe(true);
  });

  it("deletes links inside a run, never what they point to", () => {
    fourRuns();
    const secret = path.join(work, "secret");
    fs.mkdirSync(secret);
    fs.writeFileSync(path.join(secret, "keep.txt"), "keep");
    fs.symlinkSync(secret, path.join(runs, DONE, "memory-link"));
    fs.symlinkSync(path.join(secret, "keep.txt"), path.join(runs, DONE, "file-link"));
    const r = cli(["rm", DONE, "--runs-dir", runs, "--yes"], work);
    expect(r.status, r.stderr).toBe(0);
    expect(exists(DONE)).toBe(false);
    expect(fs.readFileSync(path.join(secret, "keep.txt"), "utf8")).toBe("keep");
  });

  it("deletes an unreadable (half-written) run: that is what users clean up", () => {
    const dir = writeRun(runs, { id: DONE });
    fs.writeFileSync(path.join(dir, "result.json"), '{"id": "2026');
    expect(runsToRemove([DONE], runs).map((r) => r.status)).toEqual(["unreadable"]);
  });
});

describe("agenticbt prune", () => {
  it("needs a criterion, and a strict age", () => {
    fourRuns();
    expect(cli(["prune", "--runs-dir", runs, "--yes"], work).status).toBe(2);
    for (const bad of ["30", "0d", "1.5d", "30D", "-1d", "1y", "d", "30 d", "0x1d", "1000000d"]) {
      const r = cli(["prune", "--older-than", bad, "--runs-dir", runs, "--yes"], work);
      expect(r.status, bad).toBe(2);
      expect(r.stderr, bad).toContain("is not an age");
    }
    expect([DONE, FAILED, INTERRUPTED, RUNNING].every(exists)).toBe(true);
  });

  it("parses hours, days and weeks", () => {
    expect(parseAge("12h")).toBe(12 * 3_600_000);
    expect(parseAge("30d")).toBe(30 * 86_400_000);
    expect(parseAge("2w")).toBe(14 * 86_400_000);
  });

  it("--failed --dry-run lists the failed runs only; --failed --yes deletes them", () => {
    fourRuns();
    const dry = cli(["prune", "--failed", "--dry-run", "--json", "--runs-dir", runs], work);
    expect(dry.status, dry.stderr).toBe(0);
    const out = removeOutputSchema.parse(JSON.parse(dry.stdout));
    expect(out).toMatchObject({ dryRun: true, runs: [{ id: FAILED, status: "failed" }] });
    expect(exists(FAILED)).toBe(true);
    const r = cli(["prune", "--failed", "--yes", "--runs-dir", runs], work);
    expect(r.status, r.stderr).toBe(0);
    expect(exists(FAILED)).toBe(false);
    expect([DONE, INTERRUPTED, RUNNING].every(exists)).toBe(true);
  });

  it("--interrupted, and --older-than by finish time; a running run is never pruned", () => {
    fourRuns();
    const recent = "20260105-100000-000-recent-eee0";
    writeRun(runs, { id: recent, startedAt: new Date(Date.now() - 3_600_000).toISOString() });
    const r = cli(["prune", "--older-than", "2h", "--yes", "--json", "--runs-dir", runs], work);
    expect(r.status, r.stderr).toBe(0);
    const out = removeOutputSchema.parse(JSON.parse(r.stdout));
    expect(out.runs.map((x) => x.id)).toEqual([DONE, FAILED, INTERRUPTED]);
    expect(exists(RUNNING) && exists(recent)).toBe(true);
  });

  it("both criteria: a run must match both", () => {
    fourRuns();
    const r = cli(
      ["prune", "--interrupted", "--older-than", "1w", "--yes", "--json", "--runs-dir", runs],
      work,
    );
    expect(removeOutputSchema.parse(JSON.parse(r.stdout)).runs.map((x) => x.id)).toEqual([
      INTERRUPTED,
    ]);
  });
});

/** A stand-in for a terminal's stdin: `isTTY`, and the typed answer. */
function ttyInput(answer: string) {
  const input = Object.assign(new PassThrough(), { isTTY: true });
  input.end(answer);
  return input;
}

describe("the confirmation prompt", () => {
  it("only y or yes (any case) is a yes; no answer is a no", async () => {
    const cases: [string, boolean][] = [
      ["y\n", true],
      ["YES\n", true],
      [" y \n", true],
      ["n\n", false],
      ["\n", false],
      ["yess\n", false],
      ["", false],
    ];
    for (const [answer, expected] of cases) {
      const output = new PassThrough();
      let asked = "";
      output.on("data", (d: Buffer) => {
        asked += d.toString();
      });
      expect(await confirm("Delete 1 run(s) (x)?", ttyInput(answer), output), answer).toBe(
        expected,
      );
      expect(asked).toBe("Delete 1 run(s) (x)? [y/N] ");
    }
  });

  it("asks 'Delete N runs (list)?' on a terminal: y deletes, n keeps", async () => {
    fourRuns();
    const targets = runsToRemove([DONE, FAILED], runs);
    const output = new PassThrough();
    let asked = "";
    output.on("data", (d: Buffer) => {
      asked += d.toString();
    });
    const no = await confirmAndDelete(
      targets,
      runs,
      { json: true },
      {
        input: ttyInput("n\n"),
        output,
      },
    );
    expect(no).toBe(0);
    expect(asked).toBe(`Delete 2 run(s) (${DONE}, ${FAILED})? [y/N] `);
    expect(exists(DONE) && exists(FAILED)).toBe(true);
    const yes = await confirmAndDelete(
      targets,
      runs,
      { json: true },
      {
        input: ttyInput("y\n"),
        output,
      },
    );
    expect(yes).toBe(0);
    expect(exists(DONE) || exists(FAILED)).toBe(false);
  });
});
