import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { RunEvent } from "../../../src/runner/run-events.js";
import { DATA, tempDir } from "../../helpers/cli.js";
import {
  barOf,
  isMoment,
  readJsonl,
  runLlm,
  sliceCsv,
  systemOf,
  turnMessages,
  userOf,
} from "../../helpers/llm-run.js";
import {
  type RecordedRequest,
  type Step,
  startScriptedServer,
} from "../../helpers/scripted-openai-server.js";

const work = tempDir();
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

// SPY from 1999-11-01: 10 rows end on 1999-11-12, 20 rows on 1999-11-29.
const spy10 = sliceCsv(path.join(DATA, "SPY_D.csv"), 10, work, "SPY.csv");
const spy20dir = path.join(work, "b");
fs.mkdirSync(spy20dir);
const spy20 = sliceCsv(path.join(DATA, "SPY_D.csv"), 20, spy20dir, "SPY.csv");
const runsRoot = path.join(work, ".agenticbt", "runs");
const store = path.join(work, ".agenticbt", "memory", "default");

const SAVES: Record<string, { title: string; content: string }> = {
  "Run A": { title: "止损纪律", content: "SPY: cut losses at 2 percent, no exceptions." },
  "Run B": { title: "Gap rule", content: "SPY gaps above the prior high tend to fade by noon." },
};

/** Run A and Run B each save one entry at their bar 2; everything else holds. */
function trader(req: RecordedRequest): Step {
  if (turnMessages(req).some((m) => m.role === "tool")) return { content: "hold" };
  if (isMoment(req)) return { content: "nothing to add" };
  const run = /Run [A-Z]/.exec(systemOf(req))?.[0] ?? "";
  const save = SAVES[run];
  if (barOf(req) === 2 && save) {
    return {
      toolCalls: [{ name: "remember", arguments: JSON.stringify({ action: "save", ...save }) }],
    };
  }
  return { content: "hold" };
}

describe("persistent memory across runs", async () => {
  const server = await startScriptedServer(trader);
  afterAll(() => server.close());
  const decisions = (from: number) =>
    server.requests
      .slice(from)
      .filter(
        (r) => r.path.endsWith("/chat/completions") && !isMoment(r) && turnMessages(r).length === 0,
      );

  const run = (prompt: string, data: string, extra: Record<string, unknown> = {}) => {
    const events: RunEvent[] = [];
    const started = server.requests.length;
    return runLlm({
      baseURL: server.url,
      data: [data],
      runsRoot,
      prompt,
      memory: { system: "persistent", config: { namespace: "default" } },
      // A cut-off before the 1999 window: the only warnings left are the store's own.
      agent: { modelCutoff: "1990-01-01" },
      onEvent: (e) => events.push(e),
      ...extra,
    }).then((r) => ({ ...r, events, requests: decisions(started) }));
  };

  let dirA = "";
  let dirB = "";

  it("run A saves at once: recalled from its next decision, while its own prompt index stays frozen", async () => {
    const a = await run("Run A: trade SPY.", spy10);
    dirA = a.dir;
    expect(a.result.status).toBe("completed");
    const text = fs.readFileSync(path.join(store, "lesson_止损纪律.md"), "utf8");
    expect(text).toContain(`run: ${a.result.id}\n`);
    expect(text).toContain("period: 1999-11-01 00:00 .. 1999-11-12 00:00\n");
    expect(fs.readFileSync(path.join(store, "MEMORY.md"), "utf8")).toBe(
      "- [止损纪律](lesson_止损纪律.md)\n",
    );
    // The prefix never changed (the store was empty at the start).
    expect(new Set(a.requests.map(systemOf)).size).toBe(1);
    expect(systemOf(a.requests[0] as RecordedRequest)).not.toContain("Persistent memory");
    const block =
      "<recalled-memories>\n- 止损纪律 (lesson): SPY: cut losses at 2 percent, no exceptions.\n</recalled-memories>\n\n# Now";
    expect(a.requests.map((r) => [barOf(r), userOf(r).startsWith(block)])).toEqual(
      Array.from({ length: 10 }, (_, i) => [i + 1, i + 1 > 2]),
    );
    expect(a.result.memory).toMatchObject({
      persistentEntriesAtStart: 0,
      persistentSaves: 1,
      persistentAutoRecalls: 10,
      persistentAutoRecallHits: 8,
      persistentLookAheadFlagged: 0,
    });
  });

  it("run B, starting after A ended, has A's entry in its frozen index and its auto-recall", async () => {
    const b = await run("Run B: trade SPY.", spy20, { from: "1999-11-15" });
    dirB = b.dir;
    expect(b.result.memory).toMatchObject({
      persistentEntriesAtStart: 1,
      persistentLookAheadFlagged: 0,
      persistentIndexLines: 1,
    });
    expect(b.events.filter((e) => e.type === "warning")).toEqual([]);
    const first = b.requests[0] as RecordedRequest;
    expect(systemOf(first)).toContain(
      "# Persistent memory (MEMORY.md, as of the start of this run)\n\n- [止损纪律](lesson_止损纪律.md)",
    );
    expect(userOf(first)).toMatch(/^<recalled-memories>\n- 止损纪律 \(lesson\): SPY: cut losses/);
    // B's own save is on disk and recalled, but its prompt index is still the one of its start.
    expect(new Set(b.requests.map(systemOf)).size).toBe(1);
    expect(fs.readFileSync(path.join(store, "MEMORY.md"), "utf8")).toContain(
      "[Gap rule](lesson_gap_rule.md)",
    );
    const record = JSON.parse(fs.readFileSync(path.join(dirB, "persistent", "store.json"), "utf8"));
    expect(record.storeHash).toMatch(/^[0-9a-f]{64}$/);
    expect(fs.readdirSync(path.join(dirB, "persistent", "snapshot")).sort()).toEqual([
      "MEMORY.md",
      "lesson_止损纪律.md",
    ]);
  });

  it("run C, starting before A's period ended, has A's and B's entries flagged, hidden, counted and warned", async () => {
    const c = await run("Run C: trade SPY.", spy20, { from: "1999-11-08" });
    expect(c.result.memory).toMatchObject({
      persistentEntriesAtStart: 2,
      persistentLookAheadFlagged: 2,
      persistentIndexLines: 0,
      persistentAutoRecallHits: 0,
    });
    const warnings = c.events
      .filter((e) => e.type === "warning")
      .map((e) => (e as { message: string }).message);
    // One look-ahead warning (this run's agent only holds, so the end also says it used no tool).
    expect(warnings.filter((w) => /persistent memory/.test(w))).toEqual([
      expect.stringMatching(
        /2 entries were written by runs whose simulated period ends after this run starts.*lesson_gap_rule\.md, lesson_止损纪律\.md/,
      ),
    ]);
    expect(warnings.filter((w) => !/persistent memory/.test(w))).toEqual([
      expect.stringMatching(/^The agent called no tool in any of its \d+ decisions/),
    ]);
    // The checks below are negative: they mean something only if run C asked the model at all.
    expect(c.requests.length).toBeGreaterThan(0);
    for (const r of c.requests) {
      expect(systemOf(r)).not.toContain("止损纪律");
      expect(userOf(r)).not.toContain("<recalled-memories>");
    }
    expect(
      JSON.parse(fs.readFileSync(path.join(c.dir, "persistent", "store.json"), "utf8"))
        .lookAheadFiles,
    ).toEqual(["lesson_gap_rule.md", "lesson_止损纪律.md"]);
  });

  it("another namespace is another store", async () => {
    const d = await run("Run D: trade SPY.", spy20, {
      from: "1999-11-15",
      memory: { system: "persistent", config: { namespace: "other" } },
    });
    expect(d.result.memory).toMatchObject({ persistentEntriesAtStart: 0 });
    expect(systemOf(d.requests[0] as RecordedRequest)).not.toContain("Persistent memory");
  });

  it("replaying B uses B's recorded snapshot, not the live store, and never writes to it", async () => {
    fs.rmSync(store, { recursive: true, force: true });
    const before = server.requests.length;
    const r = await run("Run B: trade SPY.", spy20, {
      from: "1999-11-15",
      agent: { replay: dirB, cache: false },
    });
    expect(r.result.status).toBe("completed");
    expect(server.requests.length).toBe(before);
    const calls = (dir: string) =>
      readJsonl(path.join(dir, "decisions.jsonl")).map((d) => [
        d.bar,
        d.requestHashes,
        d.rationale,
      ]);
    expect(calls(r.dir)).toEqual(calls(dirB));
    const hash = (dir: string) =>
      JSON.parse(fs.readFileSync(path.join(dir, "persistent", "store.json"), "utf8")).storeHash;
    expect(hash(r.dir)).toBe(hash(dirB));
    expect(fs.existsSync(path.join(store, "lesson_gap_rule.md"))).toBe(false);
    expect(fs.existsSync(path.join(r.dir, "persistent", "store", "lesson_gap_rule.md"))).toBe(true);
  });

  it("a replay whose recorded snapshot was altered is refused", async () => {
    fs.appendFileSync(
      path.join(dirB, "persistent", "snapshot", "lesson_止损纪律.md"),
      "tampered\n",
    );
    await expect(
      run("Run B: trade SPY.", spy20, {
        from: "1999-11-15",
        agent: { replay: dirB, cache: false },
      }),
    ).rejects.toThrow(/snapshot in persistent\/snapshot\/ hashes to/);
    expect(dirA).not.toBe("");
  });
});
