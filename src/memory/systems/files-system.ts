import type { Millis } from "../../engine/types.js";
import type { MemoryPort } from "../../strategy/types.js";
import type {
  MemoryDecisionView,
  MemoryModel,
  MemoryMoment,
  MemoryPolicyView,
  MemorySection,
  MemorySystem,
  MemorySystemFactory,
} from "../memory-system.js";
import { filesTools } from "./files-tools.js";
import {
  type Compressed,
  compressPlaybook,
  modelCompressed,
  PLAYBOOK_COMPRESS_PURPOSE,
  playbookCompressRequest,
  playbookLessons,
} from "./playbook-compress.js";

/** The memory bullets of the system prompt for the files memory. */
export const FILES_RULES = [
  "- Your memory is a set of files you write with tools: a journal (memory_log), notes (memory_note) and your playbook. Each decision starts a fresh conversation: anything you do not write down is forgotten.",
  "- The notes position_<SYMBOL> are shown to you while you hold that symbol. The playbook is always shown.",
].join("\n");

/** What the files memory needs for playbook compression (absent: it never compresses). */
export interface PlaybookCompression {
  policy: MemoryPolicyView;
  rewritePlaybook: (text: string, at: Millis) => string | null;
  /** The run's first bar time: the compression threshold is read there (it does not evolve). */
  start: Millis;
  /** The run's model (`playbook_compress_mode` "model"); absent: the rule compresses. */
  complete?: MemoryModel;
  /** Said once, when the rule replaces a bad answer of the model. */
  warn?: (message: string) => void;
}

/**
 * The files memory (the default): playbook.md always in the prefix, position notes of held symbols
 * in each decision, journal/notes/reviews recalled on demand. The files and their recall index are
 * the state; nothing else is kept, so a checkpoint is empty.
 *
 * With the policy's `playbook_compress_char_threshold` set, the prefix shows the playbook as it
 * stood at the last compression (or the run's start), the lessons added since are shown with
 * each decision, and at a day end a playbook longer than the threshold is compressed
 * (playbook-compress.ts): the prompt prefix changes only at a compression.
 */
export class FilesMemory implements MemorySystem {
  readonly name = "files";
  readonly rules = FILES_RULES;
  readonly usesMoments: boolean;
  readonly tools;
  private readonly threshold: number;
  /** The playbook the prefix shows (compressing only; null until first read). */
  private frozen: string | null = null;
  private compressions = 0;
  private merged = 0;
  private dropped = 0;
  /** The model's compressions, and those the rule did in its place (mode "model" only). */
  private readonly byModel: { used: number; fallbacks: number } | null;
  private warned = false;

  constructor(
    private readonly port: MemoryPort,
    private readonly fileStats: () => Record<string, number>,
    private readonly compression: PlaybookCompression | null = null,
  ) {
    this.tools = filesTools(port);
    this.threshold =
      compression?.policy.at(compression.start).playbook_compress_char_threshold ?? 0;
    this.usesMoments = this.threshold > 0;
    const mode = compression?.policy.at(compression.start).playbook_compress_mode ?? "rule";
    this.byModel =
      mode === "model" && compression?.complete !== undefined ? { used: 0, fallbacks: 0 } : null;
  }

  private playbook(): string {
    return this.port.readNote("playbook") ?? "";
  }

  stableSection(): MemorySection {
    if (this.threshold === 0) return { heading: "Playbook (playbook.md)", body: this.playbook() };
    this.frozen ??= this.playbook();
    return { heading: "Playbook (playbook.md)", body: this.frozen };
  }

  volatileSections(view: MemoryDecisionView): MemorySection[] {
    const out: MemorySection[] = [];
    if (this.threshold > 0 && this.frozen !== null) {
      const added = newLessons(this.frozen, this.playbook());
      if (added.length > 0) {
        out.push({
          heading: "Playbook lessons since its last compression",
          body: added.join("\n"),
        });
      }
    }
    const notes: string[] = [];
    for (const symbol of view.held) {
      const key = `position_${symbol}`;
      const content = this.port.readNote(key);
      if (content !== null) notes.push(`## ${key}\n\n${content.trim()}`);
    }
    if (notes.length) out.push({ heading: "Position notes", body: notes.join("\n\n") });
    return out;
  }

  momentPrompt(): null {
    return null;
  }

  pendingPrompt(): null {
    return null;
  }

  /** At a day end (at most once a simulated day), a playbook over the threshold is compressed. */
  onMoment(moment: MemoryMoment): void | Promise<void> {
    if (this.threshold === 0 || moment.kind !== "day_end" || this.compression === null) return;
    const current = this.playbook();
    if (current.length <= this.threshold) return;
    const complete = this.compression.complete;
    if (this.byModel !== null && complete !== undefined) {
      return this.compressByModel(current, moment.time, complete);
    }
    this.compressed(current, compressPlaybook(current, this.threshold), moment.time);
  }

  /**
   * `playbook_compress_mode` "model": the model rewrites the lessons; its answer is checked (no
   * lesson alike twice, no stamp invented, no more lessons) and the rule replaces a bad one.
   */
  private async compressByModel(current: string, at: Millis, complete: MemoryModel) {
    const request = playbookCompressRequest(current, this.threshold);
    const answer = request === null ? null : await complete(PLAYBOOK_COMPRESS_PURPOSE, request);
    const c = answer === null ? null : modelCompressed(current, answer, this.threshold);
    const counts = this.byModel as { used: number; fallbacks: number };
    if (c !== null) counts.used++;
    else {
      counts.fallbacks++;
      if (!this.warned) {
        this.warned = true;
        this.compression?.warn?.(
          "files memory: the model's playbook compression failed its checks (a duplicate lesson, an invented stamp, text that is not a lesson, or no answer); the rule merged the duplicates instead (counted in result.json memory.playbookModelFallbacks).",
        );
      }
    }
    this.compressed(current, c ?? compressPlaybook(current, this.threshold), at);
  }

  private compressed(current: string, c: Compressed, at: Millis): void {
    if (this.compression === null) return;
    if (c.text !== current) this.compression.rewritePlaybook(c.text, at);
    this.compressions++;
    this.merged += c.merged;
    this.dropped += c.dropped;
    // The new prefix: the compressed playbook, with every lesson added until now.
    this.frozen = c.text;
  }

  recall(query: string, limit: number, asOf: number) {
    return this.port.recallAsync(query, limit, asOf);
  }

  stats(): Record<string, number> {
    const own = this.fileStats();
    return this.threshold === 0
      ? own
      : {
          ...own,
          playbookCompressions: this.compressions,
          playbookLessonsMerged: this.merged,
          playbookLessonsDropped: this.dropped,
          ...(this.byModel === null
            ? {}
            : {
                playbookModelCompressions: this.byModel.used,
                playbookModelFallbacks: this.byModel.fallbacks,
              }),
        };
  }

  checkpoint(): unknown {
    if (this.threshold === 0) return {};
    return this.byModel === null
      ? { frozenPlaybook: this.frozen }
      : { frozenPlaybook: this.frozen, byModel: { ...this.byModel } };
  }

  restore(state: unknown): void {
    const s = state as {
      frozenPlaybook?: unknown;
      byModel?: { used?: unknown; fallbacks?: unknown };
    };
    const frozen = s?.frozenPlaybook;
    if (typeof frozen === "string") this.frozen = frozen;
    const m = s?.byModel;
    if (this.byModel !== null && typeof m?.used === "number" && typeof m.fallbacks === "number") {
      this.byModel.used = m.used;
      this.byModel.fallbacks = m.fallbacks;
    }
  }

  finish(): void {}
}

/** The lessons of `current` that `frozen` does not hold (each counted as often as it occurs). */
export function newLessons(frozen: string, current: string): string[] {
  const left = new Map<string, number>();
  for (const l of playbookLessons(frozen)) left.set(l, (left.get(l) ?? 0) + 1);
  const out: string[] = [];
  for (const l of playbookLessons(current)) {
    const n = left.get(l) ?? 0;
    if (n > 0) left.set(l, n - 1);
    else out.push(l);
  }
  return out;
}

export const filesMemoryFactory: MemorySystemFactory = {
  name: "files",
  description:
    "playbook, journal, notes, reviews in the run directory; BM25/hybrid recall (the default)",
  create: (env) =>
    new FilesMemory(
      env.files,
      env.fileStats,
      env.policy && env.rewritePlaybook
        ? {
            policy: env.policy,
            rewritePlaybook: env.rewritePlaybook,
            start: env.barTimes[env.startIndex ?? 0] ?? 0,
            ...(env.complete ? { complete: env.complete } : {}),
            ...(env.warn ? { warn: env.warn } : {}),
          }
        : null,
    ),
};
