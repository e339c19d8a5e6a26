import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  DEFAULT_MEMORY_POLICY,
  type MemoryPolicy,
} from "../../../src/memory/policy/memory-policy.js";
import { lessonKey, playbookLessons } from "../../../src/memory/systems/playbook-compress.js";
import { DATA, tempDir } from "../../helpers/cli.js";
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

const BARS = 30;
const spy = sliceCsv(path.join(DATA, "SPY_D.csv"), BARS, work, "SPY.csv");
// Two lessons of 16 characters: each lesson line is "- [YYYY-MM-DD HH:MM] " (21) + 16 + "\n".
const LESSONS = ["Cut losers fast.", "Let winners run."];
const LINE = 21 + 16 + 1;

const policy = (p: Partial<MemoryPolicy>) => ({
  policy: { ...DEFAULT_MEMORY_POLICY, ...p },
  config: p,
  configFile: null,
  overrides: {},
  overridesFile: null,
});

/** Each decision adds a playbook lesson, the two lessons in turn (bar 1: the first), then holds. */
function trader(req: RecordedRequest): Step {
  if (isMoment(req)) return { content: "ok" };
  if (turnMessages(req).length > 0) return { content: "hold" };
  const content = LESSONS[(barOf(req) - 1) % 2];
  return {
    toolCalls: [{ name: "memory_note", arguments: JSON.stringify({ key: "playbook", content }) }],
  };
}

const decisions = (dir: string) =>
  readJsonl(path.join(dir, "decisions.jsonl")).filter((d) => d.type === "decision");
const prefixHashes = (dir: string) => new Set(decisions(dir).map((d) => d.prefixHash)).size;

describe("files playbook compression", async () => {
  const server = await startScriptedServer(trader);
  afterAll(() => server.close());
  const run = (name: string, p: Partial<MemoryPolicy>) =>
    runLlm({
      baseURL: server.url,
      data: [spy],
      runsRoot: path.join(work, name),
      memoryPolicy: policy(p),
      agent: { cache: false, moments: [] },
    });

  it("merges duplicate lessons at day ends, after a backup, and keeps the prefix stable", async () => {
    const plain = await run("plain", {});
    const plainBook = fs.readFileSync(path.join(plain.dir, "playbook.md"), "utf8");
    expect(playbookLessons(plainBook)).toHaveLength(BARS);
    // Without compression every lesson changes the prefix: one hash per decision.
    expect(prefixHashes(plain.dir)).toBe(BARS);
    expect(plain.result.memory).not.toHaveProperty("playbookCompressions");

    // The threshold: the playbook with 2 lessons, plus 10 characters. A third lesson (38 more)
    // passes it; merging the duplicate brings it back to 2 lessons.
    const twoLessons = plainBook.length - (BARS - 2) * LINE;
    const threshold = twoLessons + 10;
    const r = await run("compressed", { playbook_compress_char_threshold: threshold });
    expect(r.result.status).toBe("completed");
    const book = fs.readFileSync(path.join(r.dir, "playbook.md"), "utf8");
    const lessons = playbookLessons(book);
    // No duplicate lesson after it: each lesson once, where it was first learnt (bars 1 and 2).
    expect(lessons.map((l) => lessonKey([l]))).toEqual(["cut losers fast", "let winners run"]);
    expect(book.length).toBe(twoLessons);
    // Day ends 3 … 30 each find 3 lessons: 28 compressions, each merging one.
    expect(r.result.memory).toMatchObject({
      playbookCompressions: BARS - 2,
      playbookLessonsMerged: BARS - 2,
      playbookLessonsDropped: 0,
    });
    // A backup before each: the first holds the three lessons of 1999-11-03's day end.
    const backups = fs
      .readdirSync(path.join(r.dir, "backups"))
      .filter((n) => n.startsWith("playbook.compress-"))
      .sort();
    expect(backups).toHaveLength(BARS - 2);
    const first = fs.readFileSync(path.join(r.dir, "backups", backups[0] as string), "utf8");
    expect(backups[0]).toBe("playbook.compress-19991103T0000.1.md");
    expect(playbookLessons(first)).toHaveLength(3);
    // The prefix: the starting playbook for bars 1-3, the compressed one from bar 4 on.
    expect(prefixHashes(r.dir)).toBe(2);
    // The lessons since the last compression are shown with each decision instead.
    const thirdContext = server.requests.filter((q) => !isMoment(q) && barOf(q) === 3);
    expect(JSON.stringify(thirdContext.at(-1)?.body)).toContain(
      "Playbook lessons since its last compression",
    );
  });
});
