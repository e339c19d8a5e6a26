import type { Strategy } from "../strategy/types.js";

/** A code strategy's starting playbook: its name, description and parameters, as markdown. */
export function playbookFor(strategy: Strategy<unknown>, params: Record<string, unknown>): string {
  const lines = [`# Playbook: ${strategy.name}`, ""];
  if (strategy.description) lines.push(strategy.description.trim(), "");
  const keys = Object.keys(params);
  if (keys.length) {
    lines.push("## Parameters", "");
    for (const k of keys) lines.push(`- ${k}: ${String(params[k])}`);
    lines.push("");
  }
  return `${lines.join("\n")}`;
}

/** An LLM strategy's starting playbook: its manual is the prompt file. */
export function llmPlaybook(name: string, source: string): string {
  return `# Playbook: ${name}\n\nThe manual is the strategy prompt (${source}). Lessons learned are appended below.\n`;
}
