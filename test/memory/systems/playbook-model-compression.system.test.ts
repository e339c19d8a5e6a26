import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  DEFAULT_MEMORY_POLICY,
  type MemoryPolicy,
} from "../../../src/memory/policy/memory-policy.js";
import { lessonKey, playbookLessons } from "../../../src/memory/systems/playbook-compress.js";
import { cli, DATA, replayArgs, tempDir } from "../../helpers/cli.js";
import {
  barOf,
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

const BARS = 6;
const spy = sliceCsv(path.join(DATA, "SPY_D.csv"), BARS, work, "SPY.csv");
// Each lesson line is "- [YYYY-MM-DD HH:MM] " (21) + 16 + "\n".
const LESSONS = ["Cut losers fast.", "Let winners run."];
const LINE = 21 + 16 + 1;
// The model's wording of the first lesson (19 characters): it differs from the rule's.
const REWORDED = "Cut losers quickly.";

const policy = (p: Partial<MemoryPolicy>) => ({
  policy: { ...DEFAULT_MEMORY_POLICY, ...p },
  config: p,
  configFile: null,
  overrides: {},
  overridesFile: null,
});

const isCompress = (r: RecordedRequest) => systemOf(r).startsWith("You maintain a trader's");

/** The model merges the lessons by their first word, keeping the earliest stamp, and words the
 * first one its own way; `bad`: it repeats the first lesson (a duplicate the check refuses). */
function compressAnswer(req: RecordedRequest, bad: boolean): string {
  const lines = userOf(req).split("\n");
  if (bad) return [lines[0], lines[0]].join("\n");
  const first = new Map<string, string>();
  for (const line of lines) {
    const m = /^- (\[[^\]]+\]) (\S+)/.exec(line);
    if (m && !first.has(m[2] as string)) first.set(m[2] as string, m[1] as string);
  }
  return [...first]
    .map(([word, stamp]) => `- ${stamp} ${word === "Cut" ? REWORDED : (LESSONS[1] as string)}`)
    .join("\n");
}

/** Each decision adds a playbook lesson, the two in turn (bar 1: the first), then holds. */
function trader(seen: RecordedRequest[], bad = false) {
  return (req: RecordedRequest): Step => {
    seen.push(req);
    if (isCompress(req)) return { content: compressAnswer(req, bad) };
    if (turnMessages(req).length > 0) return { content: "hold" };
    const content = LESSONS[(barOf(req) - 1) % 2];
    return {
      toolCalls: [{ name: "memory_note", arguments: JSON.stringify({ key: "playbook", content }) }],
    };
  };
}

describe("files playbook compression by the model", async () => {
  const seen: RecordedRequest[] = [];
  const server = await startScriptedServer(trader(seen));
  const badSeen: RecordedRequest[] = [];
  const badServer = await startScriptedServer(trader(badSeen, true));
  afterAll(async () => {
    await server.close();
    await badServer.close();
  });
  const run = (url: string, name: string, p: Partial<MemoryPolicy>) =>
    runLlm({
      baseURL: url,
      data: [spy],
      runsRoot: path.join(work, name),
      memoryPolicy: policy(p),
      agent: { cache: false, moments: [] },
    });

  // The threshold: the playbook with its 2 lessons, plus 10 characters (a third lesson passes it).
  const plain = await run(server.url, "plain", {});
  const plainBook = fs.readFileSync(path.join(plain.dir, "playbook.md"), "utf8");
  const twoLessons = plainBook.length - (BARS - 2) * LINE;
  const threshold = twoLessons + 10;
  seen.length = 0;

  it("rewrites the lessons with the model at each day end, after a backup; the replay asks nothing", async () => {
    const r = await run(server.url, "model", {
      playbook_compress_char_threshold: threshold,
      playbook_compress_mode: "model",
    });
    expect(r.result.status).toBe("completed");
    // Day ends 3 … 6 each find 3 lessons: one request each, with the lessons only.
    const asked = seen.filter(isCompress);
    expect(asked).toHaveLength(BARS - 2);
    expect(userOf(asked[0] as RecordedRequest).split("\n")).toHaveLength(3);
    expect(userOf(asked[0] as RecordedRequest)).not.toContain("#");
    const book = fs.readFileSync(path.join(r.dir, "playbook.md"), "utf8");
    const lessons = playbookLessons(book);
    // The model's words, once each, with the stamps of bars 1 and 2.
    expect(lessons.map((l) => lessonKey([l]))).toEqual(["cut losers quickly", "let winners run"]);
    expect(lessons[0]?.slice(0, 21)).toBe(playbookLessons(plainBook)[0]?.slice(0, 21));
    expect(lessons[1]?.slice(0, 21)).toBe(playbookLessons(plainBook)[1]?.slice(0, 21));
    expect(book.length).toBe(twoLessons + REWORDED.length - 16);
    expect(r.result.memory).toMatchObject({
      playbookCompressions: BARS - 2,
      playbookLessonsMerged: BARS - 2,
      playbookLessonsDropped: 0,
      playbookModelCompressions: BARS - 2,
      playbookModelFallbacks: 0,
    });
    // A backup before each rewrite: the first holds the three lessons the model was shown.
    const backups = fs
      .readdirSync(path.join(r.dir, "backups"))
      .filter((n) => n.startsWith("playbook.compress-"))
      .sort();
    expect(backups).toHaveLength(BARS - 2);
    const first = fs.readFileSync(path.join(r.dir, "backups", backups[0] as string), "utf8");
    expect(playbookLessons(first).join("\n")).toBe(userOf(asked[0] as RecordedRequest));
    const purposes = readJsonl(path.join(r.dir, "transcript.jsonl")).filter(
      (l) => l.purpose === "files.playbook_compress",
    );
    expect(purposes).toHaveLength(BARS - 2);

    const before = seen.length;
    const rep = cli(replayArgs(r.result.id, path.join(work, "model"), "--json"), work);
    expect(rep.status, rep.stderr).toBe(0);
    expect(seen.length).toBe(before);
    const replayed = JSON.parse(rep.stdout);
    expect(replayed.memory).toEqual(r.result.memory);
    expect(fs.readFileSync(path.join(work, "model", replayed.id, "playbook.md"), "utf8")).toBe(
      book,
    );
  });

  it("falls back to the rule's merge when the model's playbook repeats a lesson", async () => {
    const warnings: string[] = [];
    const r = await runLlm({
      baseURL: badServer.url,
      data: [spy],
      runsRoot: path.join(work, "bad"),
      memoryPolicy: policy({
        playbook_compress_char_threshold: threshold,
        playbook_compress_mode: "model",
      }),
      agent: { cache: false, moments: [] },
      onEvent: (e) => {
        if (e.type === "warning") warnings.push(e.message);
      },
    });
    expect(badSeen.filter(isCompress)).toHaveLength(BARS - 2);
    const book = fs.readFileSync(path.join(r.dir, "playbook.md"), "utf8");
    // No duplicate lesson after it: the rule's merge, each lesson once, in the user's words.
    expect(playbookLessons(book).map((l) => lessonKey([l]))).toEqual([
      "cut losers fast",
      "let winners run",
    ]);
    expect(book.length).toBe(twoLessons);
    expect(r.result.memory).toMatchObject({
      playbookCompressions: BARS - 2,
      playbookModelCompressions: 0,
      playbookModelFallbacks: BARS - 2,
    });
    expect(warnings.filter((w) => w.startsWith("files memory:"))).toHaveLength(1);
  });
});
