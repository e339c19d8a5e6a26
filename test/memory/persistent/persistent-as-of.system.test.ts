import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cli, DATA, tempDir } from "../../helpers/cli.js";
import {
  barOf,
  isMoment,
  readJsonl,
  runLlm,
  sliceCsv,
  turnMessages,
} from "../../helpers/llm-run.js";
import {
  type RecordedRequest,
  type Step,
  startScriptedServer,
} from "../../helpers/scripted-openai-server.js";

const work = tempDir();
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

// SPY from 1999-11-01: 10 bars, 1999-11-01 … 1999-11-12.
const spy10 = sliceCsv(path.join(DATA, "SPY_D.csv"), 10, work, "SPY.csv");
const runsRoot = path.join(work, ".agenticbt", "runs");
const store = path.join(work, ".agenticbt", "memory", "default");
const QUERY = "SPY gaps stop loss";

// Before the run: a hand-written entry (no provenance: visible), and one written by a run whose
// window ends after this run starts (look-ahead: hidden from the run, so from recall too).
fs.mkdirSync(store, { recursive: true });
fs.writeFileSync(
  path.join(store, "lesson_opening_gaps.md"),
  "---\nname: Opening gaps\ndescription: Opening gaps\ntype: lesson\n---\n\nSPY opening gaps often fill.\n",
);
fs.writeFileSync(
  path.join(store, "lesson_future.md"),
  "---\nname: Future\ndescription: Future\ntype: lesson\nrun: other\nperiod: 1999-11-01 00:00 .. 2000-06-30 00:00\nwritten: 2000-06-30 00:00\n---\n\nSPY gaps stop loss stop loss.\n",
);

const SAVES: Record<number, { title: string; content: string }> = {
  2: { title: "Gap rule", content: "SPY gaps above the prior high fade by noon." },
  5: { title: "Stop loss", content: "SPY: stop loss at 2 percent." },
};

/** Saves at bars 2 and 5, recalls at bars 3 and 7, holds otherwise. */
function trader(req: RecordedRequest): Step {
  if (turnMessages(req).some((m) => m.role === "tool")) return { content: "hold" };
  if (isMoment(req)) return { content: "nothing to add" };
  const bar = barOf(req);
  const save = SAVES[bar];
  const args = save
    ? { action: "save", ...save }
    : bar === 3 || bar === 7
      ? { action: "recall", query: QUERY }
      : null;
  if (args === null) return { content: "hold" };
  return { toolCalls: [{ name: "remember", arguments: JSON.stringify(args) }] };
}

interface Decision {
  type: string;
  bar: number;
  time: string;
  recalls: { query: string; citations: { snippet: string; score: number }[]; seq: number }[];
}

describe("recall --as-of for a persistent-memory run", async () => {
  const server = await startScriptedServer(trader);
  afterAll(() => server.close());
  const { dir, result } = await runLlm({
    baseURL: server.url,
    data: [spy10],
    runsRoot,
    prompt: "Trade SPY.",
    memory: { system: "persistent", config: { namespace: "default" } },
    agent: { modelCutoff: "1990-01-01" },
  });
  const decisions = readJsonl(path.join(dir, "decisions.jsonl")) as unknown as Decision[];
  /** The decision line of the prompt's "Bar n" (decisions.jsonl counts bars from 0). */
  const at = (bar: number) =>
    decisions.find((d) => d.type === "decision" && d.bar === bar - 1) as Decision;
  /** What the model got back from its remember recall at `bar`: titles, in order. */
  const toolTitles = (bar: number) => {
    const req = server.requests.find(
      (r) => barOf(r) === bar && turnMessages(r).some((m) => m.role === "tool"),
    ) as RecordedRequest;
    const tool = turnMessages(req).find((m) => m.role === "tool") as { content: string };
    return (JSON.parse(tool.content).results as { title: string }[]).map((r) => r.title);
  };
  const recallAsOf = (time: string) => {
    const out = cli(
      ["recall", result.id, QUERY, "--as-of", time, "--runs-dir", runsRoot, "--json"],
      work,
    );
    expect(out.status, out.stderr).toBe(0);
    return JSON.parse(out.stdout) as { seq: number; mode: string; citations: unknown[] };
  };

  it("logs each save, and the run's own recalls see the snapshot plus its earlier saves", () => {
    expect(result.status).toBe("completed");
    const ops = readJsonl(path.join(dir, "persistent", "ops.jsonl"));
    expect(ops.map((o) => [o.seq, o.op, o.file, o.at])).toEqual([
      [1, "save", "lesson_gap_rule.md", "1999-11-02 00:00"],
      [2, "save", "lesson_stop_loss.md", "1999-11-05 00:00"],
    ]);
    // Scores (overlap: 2 per query token in title/description, 1 in the body; query tokens spy,
    // gap, stop, loss): Gap rule 2+1 (gap) + 1 (spy) = 4, Opening gaps 4 (older: after),
    // Stop loss 3+3+1 = 7. Future is hidden (look-ahead).
    expect(toolTitles(3)).toEqual(["Gap rule", "Opening gaps"]);
    expect(toolTitles(7)).toEqual(["Stop loss", "Gap rule", "Opening gaps"]);
    expect(at(3).recalls.map((r) => [r.seq, r.citations.map((c) => c.snippet)])).toEqual([
      [
        1,
        [
          "Gap rule (lesson): SPY gaps above the prior high fade by noon.",
          "Opening gaps (lesson): SPY opening gaps often fill.",
        ],
      ],
    ]);
    // Share of the most a 4-token query scores (3 per token = 12).
    expect(at(7).recalls[0]?.citations.map((c) => c.score)).toEqual([0.583333, 0.333333, 0.333333]);
  });

  it("answers exactly as the run's recall at bars 3 and 7, even after the live store is changed and deleted", () => {
    const bar3 = recallAsOf(at(3).time);
    const bar7 = recallAsOf(at(7).time);
    expect(bar3).toMatchObject({ seq: 1, mode: "persistent" });
    expect(bar3.citations).toEqual(at(3).recalls[0]?.citations);
    expect(bar7).toMatchObject({ seq: 2, mode: "persistent" });
    expect(bar7.citations).toEqual(at(7).recalls[0]?.citations);
    // At the start of bar 2, before the run's first save: the snapshot alone.
    expect(recallAsOf(at(2).time).citations).toEqual([
      expect.objectContaining({ snippet: "Opening gaps (lesson): SPY opening gaps often fill." }),
    ]);

    fs.writeFileSync(
      path.join(store, "lesson_late.md"),
      "---\nname: Late\ndescription: Late\ntype: lesson\n---\n\nSPY gaps stop loss.\n",
    );
    fs.rmSync(path.join(store, "lesson_gap_rule.md"));
    expect(recallAsOf(at(3).time).citations).toEqual(bar3.citations);
    fs.rmSync(store, { recursive: true, force: true });
    expect(recallAsOf(at(3).time).citations).toEqual(bar3.citations);
    expect(recallAsOf(at(7).time).citations).toEqual(bar7.citations);
  });
});
