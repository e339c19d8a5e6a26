import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LlmClient } from "../../../src/agent/llm/llm-client.js";
import {
  describeDifference,
  ReplaySource,
  ReplaySourceError,
} from "../../../src/agent/llm/replay-source.js";
import { readTranscript, TranscriptWriter } from "../../../src/agent/llm/transcript.js";
import { type ChatRequest, LlmError } from "../../../src/agent/types.js";
import { type ScriptedServer, startScriptedServer } from "../../helpers/scripted-openai-server.js";

let server: ScriptedServer;
let dir: string;
const recorded = () => path.join(dir, "recorded");

beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "abt-replay-"));
  server = await startScriptedServer([
    { content: "first", usage: { prompt: 100, completion: 10, cached: 50 } },
    { toolCalls: [{ name: "get_bars", arguments: '{"symbol":"GOOG","n":5}' }] },
    { status: 400, body: { error: { message: "context too long" } } },
  ]);
});
afterEach(async () => {
  await server.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const ask = (day: string): ChatRequest => ({
  model: "gpt-4o-mini",
  messages: [
    { role: "system", content: "You trade GOOG." },
    { role: "user", content: `It is ${day}. What now?` },
  ],
});

/** Records a run of three calls (two answers, one failure) through the scripted server. */
async function record(): Promise<void> {
  const client = new LlmClient({
    baseURL: server.url,
    apiKey: "k",
    transcript: new TranscriptWriter(path.join(recorded(), "transcript.jsonl")),
  });
  await client.complete(ask("Monday"));
  await client.complete(ask("Tuesday"));
  await client.complete(ask("Wednesday")).catch(() => undefined);
}

const replayClient = (transcriptDir = path.join(dir, "replayed")) =>
  new LlmClient({
    baseURL: server.url,
    apiKey: "k",
    replay: ReplaySource.fromRun(recorded()),
    transcript: new TranscriptWriter(path.join(transcriptDir, "transcript.jsonl")),
  });

describe("replay of a recorded run", () => {
  it("answers every call from the recording with zero network, errors included", async () => {
    await record();
    const before = server.requests.length;
    const client = replayClient();
    const monday = await client.complete(ask("Monday"));
    const tuesday = await client.complete(ask("Tuesday"));
    const wednesday = await client.complete(ask("Wednesday")).catch((e: unknown) => e);
    expect(server.requests.length).toBe(before);

    expect(monday).toMatchObject({
      source: "replay",
      message: { content: "first" },
      usage: { prompt: 100, completion: 10, cached: 50 },
    });
    expect(tuesday.message.tool_calls?.[0]).toMatchObject({
      function: { name: "get_bars", arguments: '{"symbol":"GOOG","n":5}' },
    });
    expect(wednesday).toBeInstanceOf(LlmError);
    expect(wednesday).toMatchObject({ type: "bad_request", status: 400 });
    expect((wednesday as LlmError).message).toContain("context too long");

    // The replay's own transcript answers what the recording answered.
    const original = readTranscript(path.join(recorded(), "transcript.jsonl"));
    const replayed = readTranscript(path.join(dir, "replayed", "transcript.jsonl"));
    const strip = (e: (typeof original)[number]) => [e.requestHash, e.response, e.error?.type];
    expect(replayed.map(strip)).toEqual(original.map(strip));
    expect(replayed.map((e) => e.source)).toEqual(["replay", "replay", "replay"]);
  });

  it("stops at the first changed request, naming the call and the difference", async () => {
    await record();
    const client = replayClient();
    await client.complete(ask("Monday"));
    const err = await client.complete(ask("Thursday")).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LlmError);
    const { type, message } = err as LlmError;
    expect(type).toBe("replay_divergence");
    expect(message).toContain("diverged at call 2 (seq 2)");
    expect(message).toContain("message 1 (user) differs");
    expect(message).toContain("Thursday");
    expect(message).toContain("Tuesday");
    expect(server.requests).toHaveLength(3);
  });

  it("says so when the run asks for more calls than were recorded", async () => {
    await record();
    const client = replayClient();
    await client.complete(ask("Monday"));
    await client.complete(ask("Tuesday"));
    await client.complete(ask("Wednesday")).catch(() => undefined);
    const err = (await client.complete(ask("Thursday")).catch((e: unknown) => e)) as LlmError;
    expect(err.type).toBe("replay_exhausted");
    expect(err.message).toContain("call 4");
    expect(err.message).toContain("has 3");
  });

  it("refuses a run directory without a transcript, naming it", () => {
    expect(() => ReplaySource.fromRun(path.join(dir, "nowhere"))).toThrow(ReplaySourceError);
    expect(() => ReplaySource.fromRun(path.join(dir, "nowhere"))).toThrow(
      /nowhere.*transcript\.jsonl/,
    );
  });
});

describe("describeDifference", () => {
  const base = ask("Monday");
  it("names the model, a message, a message count or a parameter", () => {
    expect(describeDifference(base, { ...base, model: "gpt-4o" })).toBe(
      'the model is "gpt-4o", was "gpt-4o-mini"',
    );
    const longer = {
      ...base,
      messages: [...base.messages, { role: "user" as const, content: "x" }],
    };
    expect(describeDifference(base, longer)).toBe("the request has 3 messages, the recording 2");
    expect(describeDifference(base, { ...base, temperature: 0.5 })).toBe("the temperature differ");
    const swapped: ChatRequest = {
      ...base,
      messages: [{ role: "user", content: "You trade GOOG." }, ...base.messages.slice(1)],
    };
    expect(describeDifference(base, swapped)).toMatch(/^message 0 \(user, was system\) differs/);
  });
});
