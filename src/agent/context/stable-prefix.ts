import { SYSTEM_RULES, TOOL_GUIDE } from "../prompts.js";

export interface PrefixParts {
  strategyPrompt: string;
  playbook: string;
  symbols: readonly string[];
  /** One line on costs and permissions (commission, slippage, shorting). */
  tradingTerms: string;
}

/**
 * The system message: identical, byte for byte, from one decision to the next unless the playbook
 * changed, so providers' prompt caches can serve it. Nothing that changes per bar belongs here.
 */
export function buildStablePrefix(p: PrefixParts): string {
  return [
    SYSTEM_RULES,
    "",
    TOOL_GUIDE,
    "",
    `Symbols: ${p.symbols.join(", ")}. ${p.tradingTerms}`,
    "",
    "# Strategy",
    "",
    p.strategyPrompt.trim(),
    "",
    "# Playbook (playbook.md)",
    "",
    p.playbook.trim(),
    "",
  ].join("\n");
}
