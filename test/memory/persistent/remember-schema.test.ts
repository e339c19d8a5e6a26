import { describe, expect, it } from "vitest";
import { toolParametersSchema } from "../../../src/agent/tools/tool-definition.js";
import { rememberParameters } from "../../../src/memory/persistent/remember-schema.js";

describe("remember tool arguments", () => {
  it("parse each action into its own shape", () => {
    expect(
      rememberParameters.parse({ action: "save", title: "止损", content: "x", type: "market" }),
    ).toEqual({
      action: "save",
      title: "止损",
      content: "x",
      type: "market",
    });
    expect(rememberParameters.parse({ action: "recall", query: "stop", limit: 2 })).toEqual({
      action: "recall",
      query: "stop",
      limit: 2,
    });
    expect(rememberParameters.parse({ action: "forget", title: "t" })).toEqual({
      action: "forget",
      title: "t",
    });
  });

  it("refuse a missing field, an unknown field and a bad type, naming the field", () => {
    const issues = (v: unknown) =>
      rememberParameters.safeParse(v).error?.issues.map((i) => i.path.join(".") || i.message);
    expect(issues({ action: "save", title: "t" })).toEqual(["content"]);
    expect(issues({ action: "recall" })).toEqual(["query"]);
    expect(issues({ action: "forget", query: "q" })).toEqual(["title"]);
    expect(
      rememberParameters.safeParse({ action: "save", title: "t", content: "c", path: "../x" })
        .success,
    ).toBe(false);
    expect(
      rememberParameters.safeParse({ action: "save", title: "t", content: "c", type: "secret" })
        .success,
    ).toBe(false);
  });

  it("render as one object schema the model can call", () => {
    const schema = toolParametersSchema(rememberParameters);
    expect(schema.type).toBe("object");
    expect(schema.required).toEqual(["action"]);
    expect(Object.keys(schema.properties as object)).toEqual([
      "action",
      "title",
      "content",
      "type",
      "description",
      "query",
      "limit",
    ]);
  });

  it("refuse control characters in every text field (an escape sequence stored in the cross-run store would act in later runs' prompts and terminals)", () => {
    const bad = (v: Record<string, unknown>) =>
      rememberParameters.safeParse(v).error?.issues.map((i) => i.path.join("."));
    expect(bad({ action: "save", title: "t\u001b[2J", content: "c" })).toEqual(["title"]);
    expect(bad({ action: "save", title: "t", content: "a\u0000b" })).toEqual(["content"]);
    expect(bad({ action: "save", title: "t", content: "c", description: "\u202eevil" })).toEqual([
      "description",
    ]);
    expect(bad({ action: "recall", query: "q\u0007" })).toEqual(["query"]);
    // Tabs and line breaks are text.
    expect(
      rememberParameters.safeParse({ action: "save", title: "t", content: "a\tb\nc" }).success,
    ).toBe(true);
  });
});
