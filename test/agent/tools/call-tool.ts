import { TRADING_TOOLS } from "../../../src/agent/tools/all-tools.js";
import { dispatchToolCall, type ToolCallOutcome } from "../../../src/agent/tools/dispatch.js";
import type { RecordingHost } from "./recording-host.js";

/** One model tool call with `args` (an object, encoded) or raw argument text, over every tool. */
export function callTool(
  host: RecordingHost,
  name: string,
  args: unknown,
): Promise<ToolCallOutcome> {
  const text = typeof args === "string" ? args : JSON.stringify(args);
  return dispatchToolCall({ id: "call_1", name, arguments: text }, TRADING_TOOLS, host);
}

/** The parsed `{error, hint}` content of a failed call. */
export function errorContent(outcome: ToolCallOutcome): { error: string; hint: string } {
  return JSON.parse(outcome.content) as { error: string; hint: string };
}
