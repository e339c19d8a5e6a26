import { CHARS_PER_TOKEN } from "../../src/agent/llm/usage-meter.js";
import type { RecordedRequest, ScriptedToolCall, Step } from "./scripted-openai-server.js";

// A scripted trader whose answers depend on the request's seed and bar: two repeats (two seeds)
// of one run trade differently, the same seed always the same. Memory moments get a short note.

interface Body {
  seed?: number;
  messages: { role: string; content?: string | null }[];
  tools?: { function: { name: string } }[];
}

/** The decision's bar number, from "Bar N of M" in its user message. */
const barOf = (b: Body) =>
  Number(/Bar (\d+) of/.exec(String(b.messages[1]?.content ?? ""))?.[1] ?? 0);

export function seededTrader(req: RecordedRequest): Step {
  const body = req.body as Body;
  const last = body.messages.at(-1);
  const trading = (body.tools ?? []).some((t) => t.function.name === "place_order");
  if (!trading || last?.role === "tool") return billed(body, { content: "Done." });
  const seed = body.seed ?? 0;
  // With memory the trader is a bar earlier: the cells of a memory axis differ, repeatably.
  const memory = !String(body.messages[0]?.content ?? "").includes("You have no memory");
  const phase = (barOf(body) + seed * 3 + (memory ? 1 : 0)) % 8;
  if (phase === 0 || phase === 4)
    return billed(body, {
      toolCalls: [
        {
          // Its own id, not the server's (which counts every request it answered): the id comes
          // back in the next prompts, so a run's billed tokens would depend on what else the
          // server had answered before it (another experiment, the order of parallel runs).
          id: `call_s${seed}_b${barOf(body)}`,
          name: "place_order",
          arguments: JSON.stringify({
            symbol: "GOOG",
            side: phase === 0 ? "buy" : "sell",
            ...(phase === 0 ? { fraction_of_equity: 0.5 + (seed % 5) / 10 } : { target_weight: 0 }),
          }),
        },
      ],
    });
  return billed(body, { content: `Holding (seed ${seed}).` });
}

/**
 * The answer with its usage as a provider would bill it: the request's characters (its messages
 * and tool definitions, as sent) and the answer's, at CHARS_PER_TOKEN characters per token.
 */
function billed(body: Body, answer: { content?: string; toolCalls?: ScriptedToolCall[] }): Step {
  const prompt = JSON.stringify(body.messages).length + JSON.stringify(body.tools ?? []).length;
  const completion = (answer.content ?? "").length + JSON.stringify(answer.toolCalls ?? []).length;
  return {
    ...answer,
    usage: {
      prompt: Math.ceil(prompt / CHARS_PER_TOKEN),
      completion: Math.ceil(completion / CHARS_PER_TOKEN),
    },
  };
}
