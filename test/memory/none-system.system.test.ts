import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { NONE_RULES } from "../../src/memory/systems/none-system.js";
import { DATA, tempDir } from "../helpers/cli.js";
import { isMoment, runLlm, sliceCsv, systemOf, toolNames, userOf } from "../helpers/llm-run.js";
import { startScriptedServer } from "../helpers/scripted-openai-server.js";

const work = tempDir();
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));
const goog = sliceCsv(path.join(DATA, "GOOG.csv"), 30, work, "GOOG.csv");

// The agent buys once, then holds: fills and closes would be memory moments under files.
const script = (_req: unknown, index: number) =>
  index === 0
    ? {
        toolCalls: [
          {
            name: "place_order",
            arguments: JSON.stringify({ symbol: "GOOG", side: "buy", quantity: 1 }),
          },
        ],
      }
    : { content: "Holding." };

async function runWith(system: string) {
  const server = await startScriptedServer(script);
  try {
    const { result, dir } = await runLlm({
      baseURL: server.url,
      data: [goog],
      runsRoot: path.join(work, `runs-${system}`),
      memory: { system, config: null },
      agent: { cache: false },
    });
    return {
      result,
      dir,
      requests: server.requests.filter((r) => r.path.endsWith("/chat/completions")),
    };
  } finally {
    await server.close();
  }
}

describe("--memory none: the control without memory", async () => {
  const none = await runWith("none");
  const files = await runWith("files");

  it("completes, and trades as the agent said", () => {
    expect(none.result.status).toBe("completed");
    expect(none.result.metrics).not.toBeNull();
    expect(none.requests.length).toBeGreaterThan(0);
  });

  it("offers no memory tool, where files offers its three", () => {
    const memoryTools = (names: string[]) => names.filter((n) => n.startsWith("memory_"));
    for (const r of none.requests) expect(memoryTools(toolNames(r))).toEqual([]);
    expect(memoryTools(toolNames(files.requests[0]!)).sort()).toEqual([
      "memory_log",
      "memory_note",
      "memory_recall",
    ]);
  });

  it("runs no memory moment, where files runs some on the same answers", () => {
    expect(none.requests.filter(isMoment)).toEqual([]);
    expect(files.requests.filter(isMoment).length).toBeGreaterThan(0);
  });

  it("injects nothing: no playbook, no memory section, only its one rule", () => {
    const system = systemOf(none.requests[0]!);
    expect(system).toContain(NONE_RULES);
    expect(system).not.toContain("Playbook");
    expect(system).not.toContain("memory_");
    for (const r of none.requests) expect(userOf(r)).not.toContain("Position notes");
    expect(systemOf(files.requests[0]!)).toContain("Playbook");
  });
});
