import type { MemorySection } from "../../memory/memory-system.js";

export interface PrefixParts {
  /** The system rules and the tool guide, with the run's memory system's parts in them. */
  rules: string;
  toolGuide: string;
  strategyPrompt: string;
  /** The memory system's stable section (files: the playbook), last; null for none. */
  memory: MemorySection | null;
  symbols: readonly string[];
  /** One line on costs and permissions (commission, slippage, shorting). */
  tradingTerms: string;
}

/**
 * The system message: identical, byte for byte, from one decision to the next unless the memory
 * section (the playbook) changed, so providers' prompt caches can serve it. Nothing that changes
 * per bar belongs here.
 */
export function buildStablePrefix(p: PrefixParts): string {
  const out = [
    p.rules,
    "",
    p.toolGuide,
    "",
    `Symbols: ${p.symbols.join(", ")}. ${p.tradingTerms}`,
    "",
    "# Strategy",
    "",
    p.strategyPrompt.trim(),
    "",
  ];
  if (p.memory !== null) out.push(`# ${p.memory.heading}`, "", p.memory.body.trim(), "");
  return out.join("\n");
}
