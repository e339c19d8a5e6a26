import fs from "node:fs";
import path from "node:path";
import fse from "fs-extra";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { formatRecall, highlighter, wantsColor } from "../../../src/cli/commands/format-recall.js";
import { type RecallOutput, recallOutputSchema } from "../../../src/rundir/schemas.js";
import { DEFAULT_RECALL_OPTIONS } from "../../../src/runner/run-config.js";
import { cli, cliRun, ROOT, tempDir } from "../../helpers/cli.js";
import { type ScriptedServer, startScriptedServer } from "../../helpers/scripted-openai-server.js";
import { runStrategy } from "./report-cli.js";

const FIXTURE = path.join(ROOT, "test", "fixtures", "memory-workspace");
const FIXTURE_ID = "20240401-000000-000-fixture-q1aa";
const KEY = "sk-test-recall-0123456789";
// An ANSI escape sequence (CSI); built from a string so the pattern has no control character.
const ANSI = new RegExp(`${String.fromCharCode(27)}\\[`);

const work = tempDir();
const runs = path.join(work, "runs");
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

const recallConfig = (over: Record<string, unknown> = {}) => ({
  recall: { ...DEFAULT_RECALL_OPTIONS, ...over },
});

/** The memory fixture (journals, notes, reviews of 2024 Q1) as a run directory without result.json. */
function fixtureRun(id: string, config: Record<string, unknown> = recallConfig()): string {
  const dir = path.join(runs, id);
  fse.copySync(FIXTURE, dir);
  fs.writeFileSync(path.join(dir, "config.json"), JSON.stringify(config));
  return dir;
}

let rsi = "";
let fixture = "";
beforeAll(() => {
  rsi = runStrategy(
    [
      "strategies/rsi-reversion.ts",
      "--data",
      "data/SPY_D.csv",
      "--from",
      "2006-01-01",
      "--to",
      "2006-12-31",
    ],
    ROOT,
    runs,
  );
  fixture = fixtureRun(FIXTURE_ID);
});

const recall = (args: string[]) => cli(["recall", ...args, "--runs-dir", runs], work);

function recallJson(args: string[]): RecallOutput {
  const r = recall([...args, "--json"]);
  expect(r.status, r.stderr).toBe(0);
  const parsed = recallOutputSchema.safeParse(JSON.parse(r.stdout));
  if (!parsed.success) throw new Error(JSON.stringify(parsed.error.issues, null, 2));
  return parsed.data;
}

const paths = (out: RecallOutput) => out.citations.map((c) => c.path);

/** The `path:start-end  score` heads of plain output, with the cited lines read from the run. */
function citedBlocks(stdout: string, dir: string) {
  return [...stdout.matchAll(/^(\S+):(\d+)-(\d+) {2}(\d\.\d{3})$/gm)].map((m) => {
    const [, file = "", start = "0", end = "0", score = ""] = m;
    const lines = fs.readFileSync(path.join(dir, file), "utf8").split("\n");
    return { file, score, text: lines.slice(Number(start) - 1, Number(end)).join("\n") };
  });
}

/** `YYYY-MM-DD` plus `days`. */
const plusDays = (day: string, days: number) =>
  new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

describe("agenticbt recall: plain output", () => {
  it("cites path:start-end lines of a real run that contain the query term", () => {
    const r = recall([path.basename(rsi), "signal"]);
    expect(r.status, r.stderr).toBe(0);
    const blocks = citedBlocks(r.stdout, rsi);
    expect(blocks.length).toBeGreaterThan(0);
    for (const b of blocks) {
      expect(b.text).toMatch(/signal/i);
      // The snippet is printed, indented, under its head.
      expect(r.stdout).toContain(`    ${b.text.trim().split("\n")[0]}`);
    }
    expect(blocks.map((b) => b.file).every((f) => f.startsWith("journal/"))).toBe(true);
  });

  it("cites lines of the fixture that contain the query term, best score first", () => {
    const r = recall([FIXTURE_ID, "stop loss", "--limit", "8"]);
    expect(r.status, r.stderr).toBe(0);
    const blocks = citedBlocks(r.stdout, fixture);
    expect(blocks).toHaveLength(8);
    for (const b of blocks) expect(b.text).toMatch(/stop|loss/i);
    const scores = blocks.map((b) => Number(b.score));
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
  });

  it("finds a Chinese query in the Chinese files", () => {
    const r = recall([FIXTURE_ID, "止损"]);
    expect(r.status, r.stderr).toBe(0);
    const blocks = citedBlocks(r.stdout, fixture);
    expect(blocks).toHaveLength(5);
    for (const b of blocks) expect(b.text).toContain("止损");
    const all = paths(recallJson([FIXTURE_ID, "止损", "--limit", "50"]));
    expect(all).toContain("journal/2024-01-16.md");
    expect(all).toContain("journal/2024-03-12.md");
    expect(all).not.toContain("journal/2024-01-02.md");
  });

  it("prints no ANSI codes when stdout is not a terminal, and says when nothing matches", () => {
    const r = recall([FIXTURE_ID, "止损 stop"]);
    expect(r.stdout).toContain("止损");
    expect(r.stdout).not.toMatch(ANSI);
    const none = recall([FIXTURE_ID, "zebra"]);
    expect(none.status, none.stderr).toBe(0);
    expect(none.stdout).toContain("No matches");
    expect(none.stdout).not.toMatch(ANSI);
    expect(recallJson([FIXTURE_ID, "zebra"]).citations).toEqual([]);
  });

  it("--limit caps the citations (default 5)", () => {
    expect(recallJson([FIXTURE_ID, "stop", "--limit", "2"]).citations).toHaveLength(2);
    expect(recallJson([FIXTURE_ID, "stop"]).citations).toHaveLength(5);
    expect(citedBlocks(recall([FIXTURE_ID, "stop", "-n", "3"]).stdout, fixture)).toHaveLength(3);
  });
});

describe("agenticbt recall --as-of", () => {
  it("leaves out what was written after that time", () => {
    const later = "journal/2024-03-12.md"; // 止损, written 2024-03-12
    expect(paths(recallJson([FIXTURE_ID, "止损", "--limit", "50"]))).toContain(later);
    const out = recallJson([FIXTURE_ID, "止损", "--limit", "50", "--as-of", "2024-02-10"]);
    expect(out.asOf).toBe("2024-02-10");
    expect(paths(out)).not.toContain(later);
    for (const p of paths(out)) {
      const day = /(\d{4}-\d{2}-\d{2})\.md$/.exec(p)?.[1];
      if (day !== undefined) expect(day <= "2024-02-10", p).toBe(true);
    }
    // The week 11 review (written 2024-03-15) cannot be seen a month earlier either.
    expect(paths(out)).not.toContain("reviews/week_2024-W11.md");
  });

  it("applies the decay tiers: a journal older than 5 trading days is not recalled, without --as-of it is", () => {
    const journal = "journal/2024-01-16.md";
    const args = [FIXTURE_ID, "茅台 止损 出局", "--limit", "50"];
    expect(paths(recallJson(args))).toContain(journal);
    expect(paths(recallJson([...args, "--as-of", "2024-01-18"]))).toContain(journal);
    // This run has no equity.csv, so the days with a journal stand in for its trading days; at
    // the start of 01-31 the last five are 01-16 … 01-30; by 02-01, 01-31 has pushed 01-16 out.
    expect(paths(recallJson([...args, "--as-of", "2024-01-31"]))).toContain(journal);
    expect(paths(recallJson([...args, "--as-of", "2024-02-01"]))).not.toContain(journal);
    // A time of day is honoured: the entry was written at 14:50.
    expect(paths(recallJson([...args, "--as-of", "2024-01-16 14:00"]))).not.toContain(journal);
    expect(paths(recallJson([...args, "--as-of", "2024-01-16 15:00"]))).toContain(journal);
  });

  it("answers as the real run's agent would have, days after its journal entry", () => {
    const [first = ""] = fs.readdirSync(path.join(rsi, "journal")).sort();
    const day = first.replace(/\.md$/, "");
    const id = path.basename(rsi);
    const file = `journal/${first}`;
    expect(paths(recallJson([id, "signal", "--limit", "50"]))).toContain(file);
    expect(paths(recallJson([id, "signal", "--as-of", plusDays(day, 2)]))).toContain(file);
    expect(paths(recallJson([id, "signal", "--as-of", plusDays(day, 20)]))).not.toContain(file);
    expect(paths(recallJson([id, "signal", "--as-of", plusDays(day, -1)]))).not.toContain(file);
  });

  it("uses the run's half-life and minimum score", () => {
    const plain = recallJson([FIXTURE_ID, "stop", "--limit", "50", "--as-of", "2024-03-20"]);
    fixtureRun("20240401-000000-001-fixture-half", recallConfig({ halfLifeDays: 10 }));
    const halved = recallJson([
      "20240401-000000-001-fixture-half",
      "stop",
      "--limit",
      "50",
      "--as-of",
      "2024-03-20",
    ]);
    const score = (o: RecallOutput) =>
      new Map(o.citations.map((c) => [`${c.path}:${c.startLine}`, c.score]));
    const before = score(plain);
    const after = score(halved);
    expect([...after.keys()].sort()).toEqual([...before.keys()].sort());
    for (const [k, s] of after) expect(s, k).toBeLessThanOrEqual(before.get(k) ?? 0);
    // The week 10 review, written 12 days before, loses more than half its score.
    const w10 = [...after.keys()].find((k) => k.startsWith("reviews/week_2024-W10"));
    expect(w10).toBeDefined();
    expect(after.get(w10 ?? "")).toBeLessThan((before.get(w10 ?? "") ?? 0) / 2);
    // Without --as-of there is no age, so no half-life: the user's view is unchanged.
    expect(
      recallJson(["20240401-000000-001-fixture-half", "stop", "--limit", "50"]).citations,
    ).toEqual(recallJson([FIXTURE_ID, "stop", "--limit", "50"]).citations);

    fixtureRun("20240401-000000-002-fixture-min", recallConfig({ minScore: 0.99 }));
    expect(recallJson(["20240401-000000-002-fixture-min", "stop"]).citations).toEqual([]);
  });
});

describe("agenticbt recall: bad usage (exit 2)", () => {
  it.each([
    [["nope-no-such-run", "stop"], /No run "nope-no-such-run"/],
    [[FIXTURE_ID, "stop", "--as-of", "2024-02-30"], /--as-of "2024-02-30" is not a date/],
    [[FIXTURE_ID, "stop", "--as-of", "yesterday"], /--as-of "yesterday" is not a date/],
    [[FIXTURE_ID, "   "], /query is empty/],
    [[FIXTURE_ID, "stop", "--limit", "0"], /--limit "0" is not valid/],
    [[FIXTURE_ID, "stop", "--limit", "two"], /--limit "two" is not valid/],
    [[FIXTURE_ID, "stop", "--limit", "1.5"], /--limit "1.5" is not valid/],
    [[FIXTURE_ID], /missing required argument 'query'/],
  ])("%j", (args, message) => {
    const r = recall(args);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stdout).toBe("");
  });

  it("refuses a config.json whose recall settings cannot be read", () => {
    fixtureRun("20240401-000000-003-fixture-bad", recallConfig({ weightFts: "half" }));
    const r = recall(["20240401-000000-003-fixture-bad", "stop"]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/recall\.weightFts/);
  });
});

describe("agenticbt recall with the run's embeddings", () => {
  let server: ScriptedServer | null = null;
  afterEach(async () => {
    await server?.close();
    server = null;
  });
  const env = { ...process.env, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: "" };

  it("recalls hybrid with the run's model and endpoint; --keywords-only does not call it", async () => {
    // Meaning, scripted: only the risk rules note "means" the query.
    server = await startScriptedServer([], {
      embeddings: (input) =>
        input.map((t) => (t.includes("Risk rules") || t === "guard capital" ? [1, 0] : [0, 1])),
    });
    const dir = fixtureRun(
      "20240401-000000-004-fixture-emb",
      recallConfig({ embedModel: "emb-test", embedBaseURL: server.url }),
    );
    const r = await cliRun(["recall", dir, "guard capital", "--json"], work, env);
    expect(r.status, r.stderr).toBe(0);
    const out = recallOutputSchema.parse(JSON.parse(r.stdout));
    expect(out.mode).toBe("hybrid");
    expect(out.citations[0]?.path).toBe("notes/risk_rules.md");
    expect(out.index.embeddings).toMatchObject({ model: "emb-test", baseURL: server.url });
    const calls = server.requests.filter((q) => q.path === "/v1/embeddings");
    expect(calls.length).toBeGreaterThan(0);
    expect(calls[0]?.headers.authorization).toBe(`Bearer ${KEY}`);

    const before = server.requests.length;
    const k = await cliRun(["recall", dir, "stop loss", "--keywords-only", "--json"], work, env);
    expect(k.status, k.stderr).toBe(0);
    const kw = recallOutputSchema.parse(JSON.parse(k.stdout));
    expect(kw.mode).toBe("keywords");
    expect(kw.citations.length).toBeGreaterThan(0);
    expect(server.requests.length).toBe(before);
  });

  it("exits 1 with the embeddings error when the endpoint fails, never showing the key", async () => {
    server = await startScriptedServer([]); // no embeddings script: 404
    const dir = fixtureRun(
      "20240401-000000-005-fixture-emb-fail",
      recallConfig({ embedModel: "emb-test", embedBaseURL: server.url }),
    );
    const r = await cliRun(["recall", dir, "stop loss"], work, env);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/Embeddings from .* failed: HTTP 404/);
    expect(r.stderr).not.toContain(KEY);
    expect(r.stdout).toBe("");
  });
});

describe("recall output format", () => {
  const out: RecallOutput = {
    run: { id: "r1", dir: "/tmp/r1" },
    query: "stops 止损",
    asOf: null,
    seq: null,
    mode: "keywords",
    citations: [
      {
        path: "journal/2024-01-16.md",
        startLine: 3,
        endLine: 3,
        snippet: "茅台跌破止损位，Stop hit; STOPS reset.",
        score: 0.73456,
        source: "journal",
      },
    ],
    index: { files: 1, chunks: 1, lastSync: null, errors: [], embeddings: null },
  };

  it("bolds the query's words and Chinese words only when colour is wanted", () => {
    const plain = formatRecall(out, false);
    expect(plain).toContain(
      "journal/2024-01-16.md:3-3  0.735\n    茅台跌破止损位，Stop hit; STOPS reset.",
    );
    expect(plain).not.toMatch(ANSI);
    const bold = (s: string) => `\u001b[1m${s}\u001b[22m`;
    expect(formatRecall(out, true)).toContain(
      `    茅台跌破${bold("止损")}位，${bold("Stop")} hit; ${bold("STOPS")} reset.`,
    );
    // Overlapping Chinese pairs are marked as one run; single characters are not marked alone.
    expect(highlighter("止损位")("跌破止损位，止住")).toBe(`跌破${bold("止损位")}，止住`);
    // A word is marked from its start only.
    expect(highlighter("stop")("nonstop stopped")).toBe(`nonstop ${bold("stopped")}`);
  });

  it("wants colour on a terminal only, and never with NO_COLOR", () => {
    expect(wantsColor({ isTTY: true }, {})).toBe(true);
    expect(wantsColor({ isTTY: true }, { NO_COLOR: "1" })).toBe(false);
    expect(wantsColor({ isTTY: false }, {})).toBe(false);
    expect(wantsColor({}, {})).toBe(false);
  });
});
