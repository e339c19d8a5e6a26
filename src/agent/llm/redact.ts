/** Shown instead of a secret wherever a secret could have leaked into text. */
export const REDACTED = "[redacted]";

/**
 * Removes every occurrence of `secret` from `text`. A provider may echo the key in an error body
 * and an HTTP library may quote a header; the key must never reach a message, a log or a file.
 * Secrets shorter than 4 characters are not secrets worth mangling ordinary text for (the
 * placeholder key of local servers is not one either).
 */
export function redactSecret(text: string, secret: string | null | undefined): string {
  if (!secret || secret.length < 4) return text;
  return text.split(secret).join(REDACTED);
}
