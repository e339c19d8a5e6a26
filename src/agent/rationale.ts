/**
 * A model's closing text is kept whole once, in transcript.jsonl. decisions.jsonl, the report and
 * `show` keep at most this many characters of it: far more than a rationale of a few sentences
 * needs, so a normal answer is never clipped, and a runaway one (megabytes) is not stored again.
 */
export const RATIONALE_CLIP_CHARS = 20_000;

/**
 * The rationale as decisions.jsonl records it, and how to find the whole text when clipped
 * (`requestHash` is asked only then: finding it means searching the decision's responses).
 */
export function recordedRationale(
  text: string,
  requestHash: () => string | null,
): { rationale: string; rationaleClipped?: { chars: number; requestHash: string | null } } {
  if (text.length <= RATIONALE_CLIP_CHARS) return { rationale: text };
  return {
    rationale: text.slice(0, RATIONALE_CLIP_CHARS),
    rationaleClipped: { chars: text.length, requestHash: requestHash() },
  };
}

/**
 * A rationale to show: at most RATIONALE_CLIP_CHARS characters, with a note of what was left out
 * (`total` is the whole text's length when decisions.jsonl recorded it clipped; a run written
 * before clipping holds the whole text, clipped here).
 */
export function shownRationale(text: string, total: number | null = null): string {
  const whole = Math.max(total ?? 0, text.length);
  if (whole === text.length && text.length <= RATIONALE_CLIP_CHARS) return text;
  const kept = Math.min(text.length, RATIONALE_CLIP_CHARS);
  const more = (whole - kept).toLocaleString("en-US");
  return `${text.slice(0, kept)}\n… ${more} more characters: the whole answer is in transcript.jsonl`;
}
