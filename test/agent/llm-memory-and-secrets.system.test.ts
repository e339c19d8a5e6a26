import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cliRun, DATA, tempDir } from "../helpers/cli.js";
import { isMoment, runLlm, sliceCsv, systemOf, turnMessages, userOf } from "../helpers/llm-run.js";
import {
  type RecordedRequest,
  type Step,
  startScriptedServer,
} from "../helpers/scripted-openai-server.js";

const work = tempDir();
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

const SECRET = "sk-test-SECRET-4242-do-not-leak";

/** Writes a playbook lesson at the first decision, then holds. */
function lessonWriter(req: RecordedRequest): Step {
  if (turnMessages(req).some((m) => m.role === "tool"))
    return { content: "ok", usage: { prompt: 2000, completion: 100 } };
  if (!isMoment(req) && userOf(req).includes("Bar 1 of")) {
    return {
      toolCalls: [
        {
          name: "memory_note",
          arguments: JSON.stringify({ key: "playbook", content: "Never chase a gap up." }),
        },
      ],
    };
  }
  return { content: "hold", usage: { prompt: 2000, completion: 100 } };
}

describe("memory across runs, presets, costs and secrets", async () => {
  const server = await startScriptedServer(lessonWriter);
  afterAll(() => server.close());
  const spy = sliceCsv(path.join(DATA, "SPY_D.csv"), 6, work, "SPY.csv");
  const runsRoot = path.join(work, "runs");

  it("a playbook lesson is appended (never overwriting the manual) and changes the prefix from then on", async () => {
    const before = server.requests.length;
    const { dir } = await runLlm({
      baseURL: server.url,
      data: [spy],
      runsRoot,
      agent: { moments: [], cache: false },
    });
    const playbook = fs.readFileSync(path.join(dir, "playbook.md"), "utf8");
    expect(playbook).toMatch(/^# Playbook: prompt/);
    expect(playbook).toMatch(
      /## Lessons\n[\s\S]*- \[1999-11-01 \d{2}:\d{2}\] Never chase a gap up\./,
    );
    const decisions = server.requests.slice(before).filter((r) => turnMessages(r).length === 0);
    const prefixes = decisions.map(systemOf);
    expect(prefixes[0]).not.toContain("Never chase a gap up");
    for (const p of prefixes.slice(1)) expect(p).toContain("Never chase a gap up");
    expect(new Set(prefixes.slice(1)).size).toBe(1);
  });

  it("--memory-from starts from another run's playbook and notes; --preset seeds a note", async () => {
    const [first] = fs.readdirSync(runsRoot);
    const preset = path.join(work, "experience.md");
    fs.writeFileSync(preset, "# Experience\n\nSPY mean-reverts after three down days.\n");
    const before = server.requests.length;
    const { dir, result } = await runLlm({
      baseURL: server.url,
      data: [spy],
      runsRoot,
      agent: { moments: [], cache: false },
      presets: [{ target: "notes/experience.md", file: preset }],
      memoryFrom: first,
    });
    expect(result.status).toBe("completed");
    expect(fs.readFileSync(path.join(dir, "notes", "experience.md"), "utf8")).toContain(
      "three down days",
    );
    // The lesson from the first run is in this run's very first request.
    const firstRequest = server.requests[before] as RecordedRequest;
    expect(systemOf(firstRequest)).toContain("Never chase a gap up");
  });

  it("--max-cost stops the run cleanly once the estimated cost is reached", async () => {
    // gpt-4o-mini list price: 0.15 $/M input, 0.6 $/M output. Call 1 (the lesson, default usage
    // 10 + 5 tokens) costs 10 × 0.15e-6 + 5 × 0.6e-6 = 0.0000045 $; every other call 2000 × 0.15e-6
    // + 100 × 0.6e-6 = 0.00036 $. Before call 4: 0.0000045 + 2 × 0.00036 = 0.0007245 < 0.001, so it
    // runs; before call 5: 0.0010845 >= 0.001, so the run stops.
    const { result } = await runLlm({
      baseURL: server.url,
      data: [spy],
      runsRoot: path.join(work, "cost"),
      agent: { moments: [], cache: false, maxCost: 0.001 },
    });
    expect(result.status).toBe("budget_exhausted");
    const usage = (result.llm as { usage: { calls: { network: number }; cost: { usd: number } } })
      .usage;
    expect(usage.calls.network).toBe(4);
    expect(usage.cost.usd).toBeCloseTo(0.0010845, 10);
  });

  it("the API key never appears in the run directory, the output or an error message", async () => {
    const runs = path.join(work, "secret-runs");
    const env = { ...process.env, OPENAI_API_KEY: SECRET };
    const ok = await cliRun(
      [
        "run",
        "--prompt",
        "hold",
        "--data",
        spy,
        "--base-url",
        server.url,
        "--runs-dir",
        runs,
        "--no-cache",
      ],
      work,
      env,
    );
    expect(ok.status, ok.stderr).toBe(0);
    const dead = await cliRun(
      [
        "run",
        "--prompt",
        "hold",
        "--data",
        spy,
        "--base-url",
        "http://127.0.0.1:9/v1",
        "--max-retries",
        "0",
        "--timeout",
        "500",
        "--runs-dir",
        runs,
        "--no-cache",
        "--moments",
        "none",
      ],
      work,
      env,
    );
    // Nothing listens there: the first decision fails (unreachable) and so does the run.
    expect(dead.status).toBe(1);
    expect(dead.stderr).toContain("--base-url");
    for (const out of [ok.stdout, ok.stderr, dead.stdout, dead.stderr])
      expect(out).not.toContain(SECRET);
    const files = fs
      .readdirSync(runs, { recursive: true })
      .map(String)
      .map((f) => path.join(runs, f))
      .filter((f) => fs.statSync(f).isFile());
    expect(files.length).toBeGreaterThan(10);
    for (const f of files) expect(fs.readFileSync(f, "utf8"), f).not.toContain(SECRET);
    // The requests did carry it: the key reached the server, and only the server.
    const auth = server.requests.map((r) => r.headers.authorization);
    expect(auth, JSON.stringify(auth.slice(-2))).toContain(`Bearer ${SECRET}`);
    const deadResult = JSON.parse(
      fs.readFileSync(
        path.join(runs, fs.readdirSync(runs).sort()[1] as string, "result.json"),
        "utf8",
      ),
    );
    expect(deadResult.status).toBe("failed");
    expect(deadResult.error.type).toBe("unreachable");
    expect(deadResult.llm.usage.errors.unreachable).toBe(1);
    expect(deadResult.llm.agent.turnErrors.unreachable).toBe(1);
  });
});
