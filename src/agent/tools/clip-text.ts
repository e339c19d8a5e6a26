/** The longest prefix of `text` of at most `maxChars` UTF-16 units that does not split a surrogate
 * pair. */
export function cutText(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  let end = Math.max(0, maxChars);
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return text.slice(0, end);
}

/** Shortens text the model or a host supplied before it is echoed into a message, so a hostile
 * 1 MB value cannot flood the prompt. */
export function clipText(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  return `${cutText(text, maxChars - 1)}…`;
}

/** A value quoted for a message, shortened. */
export function quote(text: string, maxChars = 60): string {
  return JSON.stringify(clipText(text, maxChars));
}
