import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { z } from "zod";
import { writtenReportSchema } from "../../src/report/html/written-report-schema.js";
import {
  diffOutputSchema,
  listOutputSchema,
  recallOutputSchema,
  removeOutputSchema,
  runResultSchema,
  showAtOutputSchema,
  showOutputSchema,
} from "../../src/rundir/schemas.js";
import { BIN, cli, ROOT, runDirs, tempDir } from "../helpers/cli.js";
import { jsonLines } from "./commands/report-cli.js";

// Every command: `--help` with examples, and `--json` output that its zod schema accepts.

const work = tempDir();
const runs = path.join(work, "runs");
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

const RSI = ["strategies/rsi-reversion.ts", "--data", "data/SPY_D.csv", "--to", "2006-12-31"];

describe("stdout closed early", () => {
  it("`run --help | head -1` ends quietly with exit 0: a reader that went away is no error", async () => {
    const child = spawn(process.execPath, [BIN, "run", "--help"], { cwd: ROOT });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    // Like `head -1` that has gone already: the pipe's reading end is closed before the command
    // writes a byte (it is still starting Node), so its write meets EPIPE every time.
    child.stdout.destroy();
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(stderr).not.toContain("EPIPE");
    expect(code).toBe(0);
  });
});

describe("run --help's defaults", () => {
  it("shows numeric defaults as numbers, text defaults quoted", () => {
    const r = cli(["run", "--help"], work);
    expect(r.status).toBe(0);
    const help = r.stdout.replace(/\s+/g, " ");
    expect(help).toContain("initial cash (default: 10000)");
    expect(help).toContain("(default: 0.5)");
    expect(help).not.toMatch(/default: "\d+(\.\d+)?"/);
    expect(help).toContain('(default: ".agenticbt/runs")');
  });
});

describe("--help of every command", () => {
  it.each([
    ["run", /^ {2}\$ agenticbt run strategies\//m],
    ["list", /^ {2}\$ agenticbt list/m],
    ["show", /^ {2}\$ agenticbt show \S+$/m],
    ["show", /^ {2}\$ agenticbt show \S+ --at \d{4}-\d{2}-\d{2}/m],
    ["diff", /^ {2}\$ agenticbt diff \S+ \S+/m],
    ["recall", /^ {2}\$ agenticbt recall \S+ "[^"]+"/m],
    ["recall", /^ {2}\$ agenticbt recall .* --as-of \d{4}-\d{2}-\d{2}/m],
    ["report", /^ {2}\$ agenticbt report \S+/m],
    ["report", /^ {2}\$ agenticbt report \S+ --out \S+\.html/m],
    ["diff", /^ {2}\$ agenticbt diff \S+ \S+ --html \S+\.html/m],
    ["list", /^ {2}\$ agenticbt list --strategy \S+ --sort return --limit \d+/m],
    ["rm", /^ {2}\$ agenticbt rm \S+$/m],
    ["rm", /^ {2}\$ agenticbt rm \S+ \S+ --yes$/m],
    ["prune", /^ {2}\$ agenticbt prune --failed --dry-run$/m],
    ["prune", /^ {2}\$ agenticbt prune --older-than 30d$/m],
  ])("%s --help has examples (%s)", (command, example) => {
    const r = cli([command, "--help"], work);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain(`Usage: agenticbt ${command}`);
    expect(r.stdout).toContain("\nExamples:\n");
    expect(r.stdout).toMatch(example);
    expect(r.stdout).toMatch(/Exit codes: 0 success/);
    expect(r.stdout).toContain("--json");
  });

  it("agenticbt --help names every command", () => {
    const r = cli(["--help"], work);
    expect(r.status, r.stderr).toBe(0);
    for (const c of ["run", "list", "show", "diff", "recall", "report", "rm", "prune"]) {
      expect(r.stdout).toMatch(new RegExp(`^ {2}${c} `, "m"));
    }
  });

  it("loads no report, zod or SQLite code to parse the command line (lazy actions)", () => {
    // Static imports reachable from dist/cli.js; dynamic import() is what the actions use.
    const bare = new Set<string>();
    const seen = new Set<string>();
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      const text = fs.readFileSync(file, "utf8");
      for (const m of text.matchAll(/^(?:import|export)\s[^;]*?from\s*"([^"]+)";/gms)) {
        const spec = m[1] ?? "";
        if (spec.startsWith(".")) visit(path.resolve(path.dirname(file), spec));
        else bare.add(spec.split("/")[0] ?? spec);
      }
    };
    visit(path.join(ROOT, "dist", "cli.js"));
    const local = [...seen].map((f) => path.relative(path.join(ROOT, "dist"), f));
    expect(local).toContain(path.join("cli", "commands", "recall-command.js"));
    expect(local.filter((f) => f.startsWith(`report${path.sep}`))).toEqual([]);
    expect(local.filter((f) => f.startsWith(`memory${path.sep}`))).toEqual([]);
    expect([...bare].filter((b) => !b.startsWith("node:")).sort()).toEqual(["commander"]);
  });
});

/** Parses stdout as JSON and validates it, printing zod's issues when it does not fit. */
function validJson<S extends z.ZodType>(schema: S, stdout: string): z.infer<S> {
  const parsed = schema.safeParse(JSON.parse(stdout));
  if (!parsed.success) {
    throw new Error(
      `--json does not fit its schema:\n${JSON.stringify(parsed.error.issues, null, 2)}`,
    );
  }
  return parsed.data;
}

describe("--json of every command fits its schema", () => {
  let a = "";
  let b = "";
  beforeAll(() => {
    const first = cli(["run", ...RSI, "--from", "2006-01-01", "--runs-dir", runs, "--json"], ROOT);
    expect(first.status, first.stderr).toBe(0);
    const result = validJson(runResultSchema, first.stdout);
    [a = ""] = runDirs(runs);
    expect(path.basename(a)).toBe(result.id);
    const second = cli(
      ["run", ...RSI, "--from", "2006-01-01", "-p", "oversold=35", "--runs-dir", runs, "-q"],
      ROOT,
    );
    expect(second.status, second.stderr).toBe(0);
    b = runDirs(runs).find((d) => d !== a) ?? "";
  });

  it("run --json prints result.json", () => {
    const result = validJson(runResultSchema, fs.readFileSync(path.join(a, "result.json"), "utf8"));
    expect(result.status).toBe("completed");
    expect(result.data[0]?.symbol).toBe("SPY");
    // Once the runner records it, the index block has the shape `show` and `recall` report.
    if (result.index) expect(result.index.files).toBeGreaterThan(0);
  });

  it("list --json", () => {
    const out = validJson(
      listOutputSchema,
      cli(["list", "--runs-dir", runs, "--json"], work).stdout,
    );
    expect(out.runs).toHaveLength(2);
  });

  it("show --json", () => {
    const out = validJson(showOutputSchema, cli(["show", a, "--json"], work).stdout);
    expect(out.id).toBe(path.basename(a));
  });

  it("show --at --json", () => {
    const line = jsonLines(path.join(a, "decisions.jsonl")).find(
      (l) => (l.orders as unknown[]).length > 0,
    );
    expect(line).toBeDefined();
    const at = String(line?.time);
    const out = validJson(showAtOutputSchema, cli(["show", a, "--at", at, "--json"], work).stdout);
    expect(out.found).toBe(true);
  });

  it("diff --json", () => {
    const out = validJson(diffOutputSchema, cli(["diff", a, b, "--json"], work).stdout);
    expect(out.config.changed.map((c) => c.key)).toContain("params.oversold");
  });

  it("report --json", () => {
    const out = validJson(writtenReportSchema, cli(["report", a, "--json"], work).stdout);
    expect(out.file).toBe(path.join(a, "report.html"));
    expect(out.bytes).toBe(fs.statSync(out.file).size);
  });

  it("rm --json and prune --json (dry runs: the other tests still need the runs)", () => {
    const rm = validJson(
      removeOutputSchema,
      cli(["rm", a, "--runs-dir", runs, "--dry-run", "--json"], work).stdout,
    );
    expect(rm.runs.map((r) => r.dir)).toEqual([a]);
    const prune = validJson(
      removeOutputSchema,
      cli(["prune", "--older-than", "1h", "--runs-dir", runs, "--dry-run", "--json"], work).stdout,
    );
    expect(prune).toMatchObject({ dryRun: true, runs: [] });
  });

  it("recall --json, with and without --as-of", () => {
    const all = validJson(recallOutputSchema, cli(["recall", a, "signal", "--json"], work).stdout);
    expect(all).toMatchObject({ asOf: null, mode: "keywords" });
    expect(all.citations.length).toBeGreaterThan(0);
    const then = validJson(
      recallOutputSchema,
      cli(["recall", a, "signal", "--as-of", "2006-12-31", "--json"], work).stdout,
    );
    expect(then.asOf).toBe("2006-12-31");
  });
});
