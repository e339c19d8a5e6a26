import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  readTranscript,
  type TranscriptEntry,
  TranscriptError,
  TranscriptWriter,
} from "../../../src/agent/llm/transcript.js";

let dir: string;
let file: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "abt-transcript-"));
  file = path.join(dir, "run", "transcript.jsonl");
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const entry = (text: string): Omit<TranscriptEntry, "seq"> => ({
  requestHash: "a".repeat(64),
  request: { model: "m", messages: [{ role: "user", content: text }] },
  response: { message: { role: "assistant", content: text, refusal: null }, finishReason: "stop" },
  error: null,
  usage: { prompt: 3, completion: 1, cached: 0 },
  latencyMs: 12,
  attempts: 1,
  source: "network",
});

describe("transcript", () => {
  it("appends one JSON line per call with increasing seq, and reads them back", () => {
    const writer = new TranscriptWriter(file);
    expect(writer.append(entry("one"))).toBe(1);
    expect(writer.append(entry("two"))).toBe(2);
    const lines = fs.readFileSync(file, "utf8").split("\n");
    expect(lines).toHaveLength(3);
    expect(lines[2]).toBe("");
    const read = readTranscript(file);
    expect(read.map((e) => [e.seq, e.response?.message.content])).toEqual([
      [1, "one"],
      [2, "two"],
    ]);
    expect(read[0]).toEqual({ seq: 1, ...entry("one") });
  });

  it("skips a partial last line left by a crash, and a reopened writer continues after it", () => {
    new TranscriptWriter(file).append(entry("one"));
    fs.appendFileSync(file, '{"seq":2,"requestHash":"aaa');
    expect(readTranscript(file).map((e) => e.seq)).toEqual([1]);
    const writer = new TranscriptWriter(file);
    expect(writer.append(entry("again"))).toBe(2);
    expect(readTranscript(file).map((e) => e.response?.message.content)).toEqual(["one", "again"]);
  });

  it("rejects a damaged line in the middle, naming the line", () => {
    const writer = new TranscriptWriter(file);
    writer.append(entry("one"));
    fs.appendFileSync(file, "garbage\n");
    writer.append(entry("three"));
    expect(() => readTranscript(file)).toThrow(TranscriptError);
    expect(() => readTranscript(file)).toThrow(/Line 2 of .*transcript\.jsonl/);
  });

  it("reads an absent transcript as empty", () => {
    expect(readTranscript(path.join(dir, "none.jsonl"))).toEqual([]);
  });
});
