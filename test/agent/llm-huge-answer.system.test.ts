import fs from "node:fs";
import path from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { RATIONALE_CLIP_CHARS } from "../../src/agent/rationale.js";
import { readDecisions } from "../../src/report/decision-lines.js";
import { DATA, tempDir } from "../helpers/cli.js";
import { barOf, isMoment, readJsonl, runLlm, sliceCsv } from "../helpers/llm-run.js";
import { type ScriptedServer, startScriptedServer } from "../helpers/scripted-openai-server.js";

const work = tempDir();
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));
let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const spy = sliceCsv(path.join(DATA, "SPY_D.csv"), 4, work, "SPY.csv");
// Far over the clip, distinct at both ends so a test can tell what was kept.
const HUGE = `START ${"why ".repeat(500_000)}END`;

const fileSize = (dir: string, name: string) => fs.statSync(path.join(dir, name)).size;

describe("a runaway model answer is stored once", () => {
  it("transcript.jsonl keeps it whole; decisions.jsonl and report.html a clip that points there", async () => {
    server = await startScriptedServer((req) =>
      !isMoment(req) && barOf(req) === 2 ? { content: HUGE } : { content: "hold" },
    );
    const { result, dir } = await runLlm({
      baseURL: server.url,
      data: [spy],
      runsRoot: path.join(work, "runs-huge"),
      agent: { moments: [] },
    });
    expect(result.status).toBe("completed");

    const transcript = readJsonl(path.join(dir, "transcript.jsonl"));
    const whole = transcript.filter(
      (t) => (t.response as { message: { content: string } }).message.content === HUGE,
    );
    expect(whole).toHaveLength(1);

    const decisions = readJsonl(path.join(dir, "decisions.jsonl"));
    const huge = decisions.find((d) => d.rationaleClipped !== undefined);
    expect(huge?.rationale).toBe(HUGE.slice(0, RATIONALE_CLIP_CHARS));
    expect(huge?.rationaleClipped).toEqual({
      chars: HUGE.length,
      requestHash: whole[0]?.requestHash,
    });
    // Every other decision keeps its whole rationale and no clip field.
    const others = decisions.filter((d) => d !== huge);
    expect(others.length).toBeGreaterThan(0);
    for (const d of others) {
      expect(d.rationale).toBe("hold");
      expect(d).not.toHaveProperty("rationaleClipped");
    }

    // The run directory holds the answer about once, not three times.
    const total = ["transcript.jsonl", "decisions.jsonl", "report.html"]
      .map((f) => fileSize(dir, f))
      .reduce((a, b) => a + b, 0);
    expect(total).toBeLessThan(HUGE.length * 1.2);
    const html = fs.readFileSync(path.join(dir, "report.html"), "utf8");
    expect(html).not.toContain("END");
    const more = (HUGE.length - RATIONALE_CLIP_CHARS).toLocaleString("en-US");
    expect(html).toContain(`${more} more characters: the whole answer is in transcript.jsonl`);
    console.log(
      `answer ${HUGE.length} chars; transcript ${fileSize(dir, "transcript.jsonl")}, decisions ${fileSize(dir, "decisions.jsonl")}, report ${fileSize(dir, "report.html")} bytes`,
    );
  }, 60_000);

  it("a run written before clipping reads clipped, with the note", () => {
    const dir = path.join(work, "old-run");
    fs.mkdirSync(dir);
    const lines = [
      { time: "2020-01-02", bar: 0, type: "decision", rationale: HUGE },
      { time: "2020-01-03", bar: 1, type: "decision", rationale: "hold" },
    ];
    fs.writeFileSync(
      path.join(dir, "decisions.jsonl"),
      lines.map((l) => `${JSON.stringify(l)}\n`).join(""),
    );
    const [first, second] = readDecisions(dir);
    expect(first?.rationale?.startsWith(HUGE.slice(0, RATIONALE_CLIP_CHARS))).toBe(true);
    expect(first?.rationale).toContain(
      `\n… ${(HUGE.length - RATIONALE_CLIP_CHARS).toLocaleString("en-US")} more characters`,
    );
    expect(first?.rationale?.length).toBeLessThan(RATIONALE_CLIP_CHARS + 200);
    expect(second?.rationale).toBe("hold");
  });
});
