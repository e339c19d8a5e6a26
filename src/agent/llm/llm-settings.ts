import { baseUrlOf, DEFAULT_BASE_URL, isHttpUrl, nonEmpty } from "../../config/base-url.js";

export { DEFAULT_BASE_URL };

/**
 * Sent when no key is configured: local servers (Ollama, llama.cpp, vLLM) need none, but the
 * openai client refuses to start without one.
 */
export const NO_API_KEY = "not-needed";

export interface LlmFlags {
  model?: string | undefined;
  baseURL?: string | undefined;
  apiKey?: string | undefined;
}

export interface LlmSettings {
  model: string | undefined;
  baseURL: string;
  apiKey: string;
  /** Where the key came from; "none" means the placeholder is sent. */
  apiKeySource: "flag" | "env" | "none";
}

/** --base-url / OPENAI_BASE_URL is not a usable URL. */
export class LlmSettingsError extends Error {
  override readonly name = "LlmSettingsError";
}

/**
 * Flags win over the environment (`OPENAI_API_KEY`, `OPENAI_BASE_URL`); empty values count as
 * absent, as a shell's `OPENAI_BASE_URL=` means "unset".
 */
export function resolveLlmSettings(
  flags: LlmFlags,
  env: Readonly<Record<string, string | undefined>>,
): LlmSettings {
  const flagKey = nonEmpty(flags.apiKey);
  const envKey = nonEmpty(env.OPENAI_API_KEY);
  const rawBase = baseUrlOf(flags.baseURL, env);
  return {
    model: nonEmpty(flags.model),
    baseURL: checkBaseUrl(rawBase),
    apiKey: flagKey ?? envKey ?? NO_API_KEY,
    apiKeySource: flagKey ? "flag" : envKey ? "env" : "none",
  };
}

function checkBaseUrl(raw: string): string {
  if (!isHttpUrl(raw)) {
    throw new LlmSettingsError(
      `The model base URL ${JSON.stringify(raw)} is not an http(s) URL. Pass --base-url or set ` +
        "OPENAI_BASE_URL to one like http://localhost:11434/v1 (Ollama) or https://api.openai.com/v1.",
    );
  }
  // The client appends "/chat/completions"; a trailing slash would make it "//chat/completions".
  return raw.trim().replace(/\/+$/, "");
}

/**
 * One server, however its URL is spelled: scheme and host lower-cased (URL does that), the
 * scheme's default port dropped (:80 for http, :443 for https), no credentials, no trailing
 * slashes. The path keeps its case and the query is kept (both may select a deployment). The
 * response cache keys answers by it, so answers of one server are never served for another.
 */
export function normaliseBaseUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return raw.trim().replace(/\/+$/, "");
  }
  const host = url.port ? `${url.hostname}:${url.port}` : url.hostname;
  return `${url.protocol}//${host}${url.pathname.replace(/\/+$/, "")}${url.search}`;
}

/**
 * The warning a run gets at its start when it will reach OpenAI's own API with no key (which
 * refuses every request; a local server may need none, and a replay asks no server): null
 * otherwise. Answers already in the cache are still used, so the run is not refused.
 */
export function missingKeyWarning(settings: LlmSettings, replaying: boolean): string | null {
  if (settings.apiKeySource !== "none" || replaying) return null;
  // resolveLlmSettings made the URL, and checked it parses.
  const host = new URL(settings.baseURL).hostname;
  if (host !== "api.openai.com") return null;
  return `No API key: OPENAI_API_KEY is not set, and ${host} refuses every request without one (answers already in the cache are still used). Set OPENAI_API_KEY, or point --base-url at a server that needs none.`;
}
