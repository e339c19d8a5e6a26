import type { Millis } from "../engine/types.js";
import { minuteStamp, parseMinuteStamp } from "./sim-time.js";

// An HTML comment, so the line is invisible when the markdown is rendered but survives copying.
const ATTRIBUTION = /^<!-- written (\d{4}-\d{2}-\d{2} \d{2}:\d{2}) by run (.*) -->$/;

export interface Attribution {
  at: Millis;
  runId: string;
}

/** The first line of every note and review: when (simulated) and by which run it was written. */
export function attributionLine(at: Millis, runId: string): string {
  return `<!-- written ${minuteStamp(at)} by run ${runId} -->`;
}

/** Reads the attribution from a file's first line, or null when it has none (e.g. a preset). */
export function parseAttribution(text: string): Attribution | null {
  const firstLine = text.split("\n", 1)[0] ?? "";
  const m = ATTRIBUTION.exec(firstLine.trimEnd());
  if (m === null) return null;
  const at = parseMinuteStamp(m[1]!);
  return at === null ? null : { at, runId: m[2]! };
}

/** The content as the writer gave it: without the attribution line. */
export function stripAttribution(text: string): string {
  if (parseAttribution(text) === null) return text;
  const newline = text.indexOf("\n");
  return newline === -1 ? "" : text.slice(newline + 1);
}
