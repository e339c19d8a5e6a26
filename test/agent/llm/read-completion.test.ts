import { describe, expect, it } from "vitest";
import { readCompletion } from "../../../src/agent/llm/read-completion.js";
import { LlmError } from "../../../src/agent/types.js";

const completion = (
  message: unknown,
  extra: Record<string, unknown> = {},
  finish: unknown = "stop",
) => ({
  id: "x",
  object: "chat.completion",
  choices: [{ index: 0, message, finish_reason: finish }],
  usage: { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 },
  ...extra,
});
const call = (args: unknown, over: Record<string, unknown> = {}) => ({
  id: "call_1",
  type: "function",
  index: 0,
  function: { name: "memory_note", arguments: args },
  ...over,
});
const failure = (raw: unknown): string => {
  try {
    readCompletion(raw);
  } catch (err) {
    expect(err).toBeInstanceOf(LlmError);
    expect((err as LlmError).type).toBe("invalid_response");
    return (err as Error).message;
  }
  throw new Error("no failure");
};

describe("readCompletion", () => {
  it("passes a well-formed answer through as it was, extras of its tool calls included", () => {
    const tc = call('{"key":"k","content":"c"}');
    const r = readCompletion(
      completion({ role: "assistant", content: null, tool_calls: [tc] }, {}, "tool_calls"),
    );
    expect(r.answer).toEqual({
      message: { role: "assistant", content: null, refusal: null, tool_calls: [tc] },
      finishReason: "tool_calls",
    });
    expect(r.answer.message.tool_calls?.[0]).toBe(tc);
    expect(r.usage).toEqual({ prompt: 10, completion: 2, cached: 0 });
    expect(r.notes).toEqual([]);
  });

  it("serialises object arguments and notes it; gives a call without id one", () => {
    const r = readCompletion(
      completion(
        { role: "assistant", tool_calls: [call({ key: "k" }, { id: undefined })] },
        {},
        "tool_calls",
      ),
    );
    const tc = r.answer.message.tool_calls?.[0];
    expect(tc).toMatchObject({ id: "call_1", index: 0, function: { arguments: '{"key":"k"}' } });
    expect(r.notes).toEqual(["object_arguments", "missing_call_id"]);
  });

  it("accepts tool_calls with finish_reason stop, as OpenAI itself sends them", () => {
    const r = readCompletion(
      completion({ role: "assistant", tool_calls: [call("{}")] }, {}, "stop"),
    );
    expect(r.answer.message.tool_calls).toHaveLength(1);
  });

  it("joins content sent as text parts", () => {
    const parts = [
      { type: "text", text: "Hold" },
      { type: "text", text: "ing." },
    ];
    expect(
      readCompletion(completion({ role: "assistant", content: parts })).answer.message.content,
    ).toBe("Holding.");
  });

  it("keeps reasoning fields and counts reasoning tokens above 0", () => {
    const r = readCompletion(
      completion(
        { role: "assistant", content: "Hold.", reasoning_content: "why", reasoning: "" },
        {
          usage: {
            prompt_tokens: 1,
            completion_tokens: 9,
            completion_tokens_details: { reasoning_tokens: 7 },
          },
        },
      ),
    );
    expect(r.answer.message).toEqual({
      role: "assistant",
      content: "Hold.",
      refusal: null,
      reasoning_content: "why",
    });
    expect(r.usage).toEqual({ prompt: 1, completion: 9, cached: 0, reasoning: 7 });
    const zero = readCompletion(
      completion(
        { role: "assistant", content: "x" },
        {
          usage: {
            prompt_tokens: 1,
            completion_tokens: 1,
            completion_tokens_details: { reasoning_tokens: 0 },
          },
        },
      ),
    );
    expect(zero.usage).toEqual({ prompt: 1, completion: 1, cached: 0 });
  });

  it("marks usage unknown when the server sends none, or no count", () => {
    for (const usage of [undefined, null, "x", {}, { total_tokens: 5 }]) {
      expect(
        readCompletion(completion({ role: "assistant", content: "x" }, { usage })).usage,
      ).toEqual({
        prompt: 0,
        completion: 0,
        cached: 0,
        unknown: true,
      });
    }
  });

  it("fails typed, naming the field, for each malformed shape", () => {
    const m = { role: "assistant", content: "x" };
    expect(failure("a string")).toContain("not a JSON object");
    expect(failure({ id: "x" })).toContain("no `choices`");
    expect(failure({ choices: {} })).toContain("not an array");
    expect(failure({ choices: [] })).toContain("`choices` is empty");
    expect(failure(completion(null))).toContain("choices[0].message is null");
    expect(failure(completion("hi"))).toContain("choices[0].message is a string");
    expect(failure(completion({ role: "assistant", content: { text: "x" } }))).toContain(
      "content is an object where a string belongs",
    );
    expect(failure(completion({ role: "assistant", refusal: 3 }))).toContain("refusal");
    expect(failure(completion({ role: "assistant", reasoning_content: 5 }))).toContain(
      "reasoning_content",
    );
    expect(failure(completion({ role: "assistant", tool_calls: "x" }))).toContain(
      "tool_calls is a string",
    );
    expect(failure(completion({ role: "assistant", tool_calls: [null] }))).toContain(
      "tool_calls[0] is null",
    );
    expect(failure(completion({ role: "assistant", tool_calls: [call(5)] }))).toContain(
      "function.arguments is a number (5) where a JSON string belongs",
    );
    expect(
      failure(
        completion({
          role: "assistant",
          tool_calls: [call("{}", { function: { arguments: "{}" } })],
        }),
      ),
    ).toContain("function.name is missing");
    expect(
      failure(completion({ role: "assistant", tool_calls: [call("{}", { type: "custom" })] })),
    ).toContain("custom");
    expect(failure(completion(m, {}, "weird"))).toContain('finish_reason is "weird"');
    expect(failure(completion(m, {}, 7))).toContain("finish_reason is a number");
    expect(failure(completion(m, { usage: { prompt_tokens: -1 } }))).toContain(
      "usage.prompt_tokens is -1",
    );
  });
});
