/** OpenAI's own endpoint, used when neither a flag nor OPENAI_BASE_URL names one. */
export const DEFAULT_BASE_URL = "https://api.openai.com/v1";

/** A trimmed value, or undefined for absent or blank (a shell's `VAR=` means unset). */
export function nonEmpty(value: string | null | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

/**
 * The endpoint a model or embeddings request goes to: the flag (`--base-url`,
 * `--embed-base-url`), then $OPENAI_BASE_URL, then OpenAI's own. Blank values count as absent.
 */
export function baseUrlOf(
  flag: string | null | undefined,
  env: Readonly<Record<string, string | undefined>>,
): string {
  return nonEmpty(flag) ?? nonEmpty(env.OPENAI_BASE_URL) ?? DEFAULT_BASE_URL;
}

/** Whether `raw` is an http(s) URL with a host: the one rule every base URL follows. */
export function isHttpUrl(raw: string): boolean {
  try {
    const url = new URL(raw.trim());
    return (url.protocol === "http:" || url.protocol === "https:") && url.host !== "";
  } catch {
    return false;
  }
}

/** A URL as it may be recorded or shown: any user name and password taken out. */
export function withoutCredentials(url: string): string {
  try {
    const u = new URL(url);
    u.username = "";
    u.password = "";
    return u.toString().replace(/\/$/, "");
  } catch {
    return url;
  }
}
