import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli, DATA, readJson, runArgs, runDirs, tempDir } from "../../helpers/cli.js";
import { jsonLines } from "./report-cli.js";

// Stored text (memory, names, file content) reaches the terminal through every text output; a
// control character in it must be shown, never acted on: ESC [2J would clear the screen.
const HOSTILE = "hostile \u001b[2J\u0007\u009b\u202e end";
// ESC, BEL, CR and DEL (C0 except \n and \t), C1, and the bidi overrides and isolates.
// biome-ignore lint/suspicious/noControlCharactersInRegex: the characters this test hunts
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
const VISIBLE = "hostile ␛[2J␇\\x9b\\u202e end";

const work = tempDir();
const runs = path.join(work, "runs");
let plain: string;
let evil: string;
let evilRun: { status: number | null; stdout: string; stderr: string };
let decisionTime: string;

const STRATEGY = `
const H = ${JSON.stringify(HOSTILE)};
export default {
  name: "evil " + H,
  description: "Manual " + H,
  init: () => ({ n: 0 }),
  onBar(ctx, s) {
    s.n += 1;
    if (s.n === 1) {
      ctx.note("evil", "note " + H);
      ctx.log("journal " + H);
    }
    if (s.n === 2) ctx.recall("hostile");
  },
};
`;

beforeAll(() => {
  fs.mkdirSync(runs);
  const strategy = path.join(work, "evil.ts");
  fs.writeFileSync(strategy, STRATEGY);
  // A data file without a Volume column (a warning names it) and with a hostile name.
  const rows = fs.readFileSync(path.join(DATA, "GOOG.csv"), "utf8").trim().split("\n").slice(0, 40);
  const csv = path.join(work, `GOOG ${HOSTILE}.csv`);
  fs.writeFileSync(csv, `${rows.map((r) => r.split(",").slice(0, 5).join(",")).join("\n")}\n`);
  const r = cli(runArgs("strategies/buy-and-hold.ts", csv, runs, "-q"), work);
  if (r.status !== 0) throw new Error(r.stderr);
  plain = runDirs(runs)[0] as string;
  evilRun = cli(runArgs(strategy, `GOOG=${csv}`, runs), work);
  if (evilRun.status !== 0) throw new Error(evilRun.stderr);
  evil = runDirs(runs).find((d) => d !== plain) as string;
  // The bar that recalled; give it an LLM decision's rationale and tool call too.
  const lines = jsonLines(path.join(evil, "decisions.jsonl"));
  const recalled = lines.find((l) => Array.isArray(l.recalls) && l.recalls.length > 0);
  if (!recalled) throw new Error("the strategy's recall was not recorded");
  recalled.rationale = `because ${HOSTILE}`;
  recalled.toolCalls = [
    { name: "memory_note", args: { key: "k", content: HOSTILE }, result: null },
  ];
  decisionTime = String(recalled.time);
  fs.writeFileSync(
    path.join(evil, "decisions.jsonl"),
    `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`,
  );
});
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

function expectEscaped(out: string): void {
  expect(out).not.toMatch(RAW);
  expect(out).toContain(VISIBLE);
}

describe("stored control characters are shown, not sent to the terminal", () => {
  it("run: progress lines, the warning naming the data file, and the summary", () => {
    expectEscaped(evilRun.stderr);
    expect(evilRun.stderr).toContain("no Volume column");
    expectEscaped(evilRun.stdout);
  });

  it("list: the strategy name", () => {
    const r = cli(["list", "--runs-dir", runs], work);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(RAW);
    expect(r.stdout).toContain("evil hostile ␛[2J␇");
  });

  it("show: the summary", () => {
    const r = cli(["show", evil, "--runs-dir", runs], work);
    expect(r.status, r.stderr).toBe(0);
    expectEscaped(r.stdout);
  });

  it("show --at: rationale, tool arguments and recall citations", () => {
    const r = cli(["show", evil, "--at", decisionTime, "--runs-dir", runs], work);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(RAW);
    expect(r.stdout).toContain(`because ${VISIBLE}`);
    expect(r.stdout).toContain("note hostile ␛[2J␇");
  });

  it("diff: the playbook's unified diff", () => {
    const r = cli(["diff", plain, evil, "--runs-dir", runs], work);
    expect(r.status, r.stderr).toBe(0);
    expectEscaped(r.stdout);
  });

  it("recall: the snippets", () => {
    const r = cli(["recall", evil, "hostile", "--runs-dir", runs], work);
    expect(r.status, r.stderr).toBe(0);
    expectEscaped(r.stdout);
  });

  it("--json output stays JSON with the same values, and no raw control or bidi character", () => {
    const r = cli(["recall", evil, "hostile", "--runs-dir", runs, "--json"], work);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(RAW);
    const out = JSON.parse(r.stdout) as { citations: { snippet: string }[] };
    expect(out.citations.some((c) => c.snippet.includes(HOSTILE))).toBe(true);
    const show = cli(["show", evil, "--runs-dir", runs, "--json"], work);
    expect(show.stdout).not.toMatch(RAW);
    expect(readJson(path.join(evil, "result.json")).name).toBeDefined();
  });

  it("an error quoting file content", () => {
    const bad = path.join(work, "bad.csv");
    fs.writeFileSync(
      bad,
      `Date,Open,High,Low,Close\n2020-01-02,1,1,1,1\n2020-01-03,1,1,1,${HOSTILE}\n`,
    );
    const r = cli(runArgs("strategies/buy-and-hold.ts", bad, runs), work);
    expect(r.status).toBe(2);
    expect(r.stderr).not.toMatch(RAW);
    expect(r.stderr).toContain("bad.csv");
    expect(r.stderr).toContain("\\x9b\\u202e end");
  });
});
