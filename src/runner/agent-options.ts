import { type AgentOptions, DEFAULT_AGENT_OPTIONS } from "../config/run-settings.js";

export { type AgentOptions, DEFAULT_AGENT_OPTIONS };
