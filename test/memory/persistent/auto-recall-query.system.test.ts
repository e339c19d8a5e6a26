import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { PersistentStore } from "../../../src/memory/persistent/persistent-store.js";
import { situationQuery } from "../../../src/memory/persistent/situation-query.js";
import { DATA, tempDir } from "../../helpers/cli.js";
import { barOf, isMoment, runLlm, sliceCsv, turnMessages, userOf } from "../../helpers/llm-run.js";
import {
  type RecordedRequest,
  type Step,
  startScriptedServer,
} from "../../helpers/scripted-openai-server.js";

const work = tempDir();
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

// GOOG from 2004-08-19: 8 bars.
const goog = sliceCsv(path.join(DATA, "GOOG.csv"), 8, work, "GOOG.csv");
const runsRoot = path.join(work, ".agenticbt", "runs");
const root = path.join(work, ".agenticbt", "memory");

const day = (d: string) => Date.parse(`${d}T00:00:00Z`);

/** The one entry about this situation: a GOOG position after an earnings gap. Written first, so
 * it is the oldest. */
const RELEVANT = {
  title: "GOOG earnings gap",
  content:
    "After an earnings gap up, GOOG gave back half the gap within three days: trail the stop.",
};
/** Newer entries about nothing in particular, in the words every decision message uses. */
const GENERIC = [
  "Cash and equity at the close: keep gross exposure under one hundred percent of equity.",
  "Working orders: cancel stale orders before the close; the last bars decide, not events.",
  "Account review: cash, equity, orders and events since your last decision, every bar.",
  "Decide at the close from the last bars; hold when the bars and the account say nothing.",
];

function seedStore(): void {
  const store = PersistentStore.open(root, path.join(root, "default"));
  const prov = (n: number) => ({
    runId: `earlier-${n}`,
    periodStart: day("2003-01-01"),
    periodEnd: day("2003-12-31"),
    writtenAt: day("2003-06-01") + n * 86_400_000,
  });
  store.save(RELEVANT, prov(0));
  GENERIC.forEach((content, i) => {
    store.save({ title: `Routine ${i + 1}`, content }, prov(i + 1));
  });
}

/** Bar 2 buys GOOG and logs why; every other decision holds. */
function trader(req: RecordedRequest): Step {
  if (turnMessages(req).some((m) => m.role === "tool")) return { content: "done" };
  if (isMoment(req)) return { content: "nothing to add" };
  if (barOf(req) === 2) {
    return {
      toolCalls: [
        { name: "place_order", arguments: '{"symbol":"GOOG","side":"buy","quantity":10}', id: "o" },
        {
          name: "memory_log",
          arguments: JSON.stringify({ content: "Bought GOOG on the earnings gap up." }),
          id: "l",
        },
      ],
    };
  }
  return { content: "hold" };
}

/** The titles in a message's <recalled-memories> block, in order. */
function recalledTitles(message: string): string[] {
  const block = /<recalled-memories>\n([\s\S]*?)\n<\/recalled-memories>/.exec(message)?.[1] ?? "";
  return block
    .split("\n")
    .map((l) => /^- (.*?) \(/.exec(l)?.[1] ?? "")
    .filter(Boolean);
}

describe("auto-recall queries the situation, not the message", async () => {
  seedStore();
  const server = await startScriptedServer(trader);
  afterAll(() => server.close());
  await runLlm({
    baseURL: server.url,
    data: [goog],
    runsRoot,
    memory: { system: "persistent", config: { namespace: "default" } },
    agent: { modelCutoff: "1990-01-01" },
  });
  const decisions = server.requests.filter(
    (r) => r.path.endsWith("/chat/completions") && !isMoment(r) && turnMessages(r).length === 0,
  );
  const at = (bar: number) => userOf(decisions.find((r) => barOf(r) === bar) as RecordedRequest);

  it("holding GOOG after logging the gap, the relevant entry comes first", () => {
    expect(recalledTitles(at(4))[0]).toBe(RELEVANT.title);
  });

  it("measured on the fixture: the relevant entry's rank with each query", () => {
    // The same store, the same decision: ranked by the whole message, as before, and by the
    // situation. The message's template words match every generic entry.
    const store = PersistentStore.open(root, path.join(root, "default"));
    const rank = (query: string) =>
      store.find(query, 10).findIndex((h) => h.entry.fields.name === RELEVANT.title) + 1;
    const message = at(4).replace(/<recalled-memories>[\s\S]*?<\/recalled-memories>\n\n/, "");
    const byMessage = rank(message);
    const bySituation = rank(
      situationQuery({
        symbols: ["GOOG"],
        held: ["GOOG"],
        shown: [],
        notes: ["Bought GOOG on the earnings gap up."],
      }),
    );
    expect(bySituation).toBe(1);
    // Past the 3 auto-recall shows (0: not found at all).
    expect(byMessage === 0 || byMessage > 3).toBe(true);
  });

  it("leaves numbers and dates out of the query", () => {
    const q = situationQuery({
      symbols: ["GOOG"],
      held: [],
      shown: ["2004-08-19 close 100.34, up 12%"],
      notes: [],
    });
    expect(q).not.toMatch(/\d/);
    expect(q).toContain("close");
  });
});
