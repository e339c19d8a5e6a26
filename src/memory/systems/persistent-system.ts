import path from "node:path";
import { writeJsonAtomic } from "../../util/atomic-write.js";
import { readFileNoFollow } from "../../util/no-follow.js";
import {
  defineMemoryTool,
  type FinishedRunRecall,
  type MemoryCallSite,
  type MemoryDecisionView,
  type MemorySection,
  type MemorySystem,
  type MemorySystemEnv,
  type MemorySystemFactory,
  type MemoryToolSpec,
  recallSeq,
} from "../memory-system.js";
import { memoryRootFor } from "../persistent/namespace.js";
import {
  PERSISTENT_SYSTEM,
  type PersistentConfig,
  resolvePersistentConfig,
} from "../persistent/persistent-config.js";
import { SnapshotError } from "../persistent/persistent-errors.js";
import { PersistentSession, type PersistentStats } from "../persistent/persistent-session.js";
import { PersistentStore } from "../persistent/persistent-store.js";
import { rememberParameters } from "../persistent/remember-schema.js";
import { QUERY_NOTES, situationQuery } from "../persistent/situation-query.js";
import { citation, readStoreLog, STORE_LOG, StoreLog, storeAt } from "../persistent/store-log.js";
import { replayStoreFrom, snapshotStore } from "../persistent/store-snapshot.js";
import { DEFAULT_MEMORY_POLICY } from "../policy/memory-policy.js";
import { compactStamp } from "../sim-time.js";
import { WrappedMemory } from "../wrapped-memory.js";
import { FILES_RULES, FilesMemory } from "./files-system.js";

/** In the run directory: where the store came from, its hash at the start, what was flagged. */
export const STORE_RECORD = "persistent/store.json";

const PERSISTENT_RULES = `${FILES_RULES}
- You also have a persistent memory shared with later runs. Its index, as it was when this run started, is in these instructions; entries relevant to a decision are shown before it in <recalled-memories>. remember(action "save" | "recall" | "forget") writes, searches and deletes entries. Save only lessons that should hold in another period.`;

const REMEMBER_GUIDE =
  '- remember(action, …): your persistent memory across runs. "save" {title, content, type?, description?}, "recall" {query, limit?}, "forget" {title}.';

const REMEMBER_DESCRIPTION =
  'Your persistent memory, shared with later runs. action "save": write a memory (title, content; optional type lesson|market|strategy|reference and a one-line description for the index); it is saved at once, and the index in your instructions shows it from the next run. "recall": search memories by keywords (query, optional limit). "forget": delete the memory with exactly this title.';

/** What the run recorded about its store, read back by a replay. */
interface StoreRecord {
  namespace: string;
  storeHash: string;
  lookAheadFiles: string[];
}

/**
 * Vibe-Trading's cross-run memory over the files memory: the run keeps its own file memory
 * (playbook, journal, notes, reviews; their tools and recall), and adds the cross-run store: the
 * frozen index in the prefix, auto-recall before each decision message, and the `remember` tool.
 */
export class PersistentMemory extends WrappedMemory {
  readonly name = "persistent";
  readonly rules = PERSISTENT_RULES;
  readonly tools: readonly MemoryToolSpec[];
  private readonly session: PersistentSession;
  private readonly policyAt: NonNullable<MemorySystemEnv["policy"]>["at"];
  /** The run's latest memory writes, newest last (auto-recall's query reads them). */
  private readonly notes: string[] = [];

  constructor(
    /** The run's own file memory (`files`), which this system wraps. */
    files: MemorySystem,
    env: MemorySystemEnv,
    config: PersistentConfig,
  ) {
    super(files);
    const policy = env.policy;
    this.policyAt = policy ? (t) => policy.at(t) : () => DEFAULT_MEMORY_POLICY;
    const times = env.barTimes;
    const start = times[env.startIndex ?? 0] ?? 0;
    const end = times[times.length - 1] ?? start;
    const store = openStore(env, config.namespace);
    const hash = snapshotStore(store.dir, env.dir);
    this.session = new PersistentSession(
      store,
      { runId: env.runId, periodStart: start, periodEnd: end },
      config.namespace,
      hash,
      new StoreLog(env.dir),
    );
    const flagged = this.session.flagged;
    writeJsonAtomic(path.join(env.dir, ...STORE_RECORD.split("/")), {
      namespace: config.namespace,
      store: env.replayOf === null ? store.dir : null,
      replayOf: env.replayOf,
      storeHash: hash,
      entriesAtStart: store.entries().length,
      lookAheadFiles: flagged,
    } satisfies StoreRecord & Record<string, unknown>);
    if (flagged.length > 0) {
      const message =
        `persistent memory "${config.namespace}": ${flagged.length} ${flagged.length === 1 ? "entry was" : "entries were"} ` +
        `written by runs whose simulated period ends after this run starts, and ${flagged.length === 1 ? "is" : "are"} ` +
        `hidden from the agent to avoid look-ahead: ${flagged.slice(0, 5).join(", ")}${flagged.length > 5 ? ", …" : ""}.`;
      (env.warn ?? ((m: string) => process.stderr.write(`warning: ${m}\n`)))(message);
    }
    const session = this.session;
    const policyAt = this.policyAt;
    const notes = this.notes;
    this.tools = [
      // The file tools as they are, but what they write is kept for auto-recall's query.
      ...files.tools.map((t) =>
        NOTED_TOOLS.has(t.name)
          ? {
              ...t,
              run: (args: unknown, at: MemoryCallSite) => {
                const out = t.run(args, at);
                noteWritten(notes, args);
                return out;
              },
            }
          : t,
      ),
      defineMemoryTool({
        name: "remember",
        description: REMEMBER_DESCRIPTION,
        parameters: rememberParameters,
        guide: REMEMBER_GUIDE,
        run: (args, at: MemoryCallSite) => {
          const result = session.remember(args, at.time, policyAt(at.time).retrieve_limit);
          if (args.action === "save")
            noteWritten(notes, { content: `${args.title}\n${args.content}` });
          const chars = args.action === "save" ? args.content.length : 0;
          const memory = { tool: `remember_${args.action}`, chars };
          if (args.action !== "recall" || session.log === null)
            return { result, record: { memory } };
          // Recorded like memory_recall's, with the store's write count as its seq, so
          // `recall <run> --as-of` answers exactly this (see recallRun).
          const citations = session.log.citations(session.lastRecalled, args.query);
          return {
            result,
            record: { memory, recall: { query: args.query, citations, seq: session.log.count } },
          };
        },
      }),
    ];
  }

  /** The playbook, then the frozen index: both fixed for the run, so the prefix stays cacheable. */
  override stableSection(): MemorySection | null {
    const base = super.stableSection();
    const index = this.session.indexText;
    if (index === "") return base;
    const persistent = `# Persistent memory (MEMORY.md, as of the start of this run)\n\n${index}`;
    if (base === null) return { heading: "Persistent memory", body: index };
    return { heading: base.heading, body: `${base.body.trim()}\n\n${persistent}` };
  }

  /**
   * Vibe-Trading's auto-recall, with the situation as the query (symbols, positions, the memory
   * shown, the last notes) rather than the whole message (see situationQuery).
   */
  override decisionPrefix(_message: string, view: MemoryDecisionView): string {
    const query = situationQuery({
      symbols: view.symbols ?? [],
      held: view.held,
      shown: super.volatileSections(view).map((x) => x.body),
      notes: this.notes,
    });
    return this.session.autoRecall(query, this.policyAt(view.time).retrieve_limit);
  }

  override stats(): Record<string, number> {
    const s: PersistentStats = this.session.stats();
    return {
      ...super.stats(),
      persistentEntriesAtStart: s.entriesAtStart,
      persistentLookAheadFlagged: s.lookAheadFlagged,
      persistentIndexLines: s.indexLines,
      persistentSaves: s.saves,
      persistentRecalls: s.recalls,
      persistentForgets: s.forgets,
      persistentAutoRecalls: s.autoRecalls,
      persistentAutoRecallHits: s.autoRecallHits,
    };
  }

  /** Long-term compression (policy `long_term_compress_char_threshold`), once, at the run's end. */
  override finish(): void {
    const end = this.session.run.periodEnd;
    const threshold = this.policyAt(end).long_term_compress_char_threshold;
    if (threshold > 0) this.session.store.compressIndex(threshold, compactStamp(end));
    super.finish();
  }
}

/** File tools whose `content` is a note auto-recall's query should read. */
const NOTED_TOOLS: ReadonlySet<string> = new Set(["memory_log", "memory_note"]);

/** Keeps the content of a write (the last QUERY_NOTES of them). */
function noteWritten(notes: string[], args: unknown): void {
  const content = (args as { content?: unknown } | null)?.content;
  if (typeof content !== "string") return;
  notes.push(content);
  if (notes.length > QUERY_NOTES) notes.splice(0, notes.length - QUERY_NOTES);
}

/** The live store, or for a replay a private copy of the recorded run's snapshot. */
function openStore(env: MemorySystemEnv, namespace: string): PersistentStore {
  if (env.replayOf === null) {
    const root = memoryRootFor(path.dirname(env.dir));
    return PersistentStore.open(root, path.join(root, namespace));
  }
  const recordFile = path.join(env.replayOf, ...STORE_RECORD.split("/"));
  const bytes = readFileNoFollow(recordFile);
  if (bytes === null) {
    throw new SnapshotError(
      `Cannot replay ${env.replayOf} with --memory persistent: it has no ${STORE_RECORD} (it was not a persistent-memory run). Replay it with its own memory system.`,
    );
  }
  const recorded = JSON.parse(bytes.toString("utf8")) as StoreRecord;
  const dir = replayStoreFrom(env.replayOf, env.dir, recorded.storeHash);
  return PersistentStore.open(env.dir, dir);
}

export const persistentMemoryFactory: MemorySystemFactory = {
  ...PERSISTENT_SYSTEM,
  create: (env) =>
    new PersistentMemory(
      new FilesMemory(env.files, env.fileStats),
      env,
      resolvePersistentConfig(env.config),
    ),
  recallRun: recallPersistentRun,
};

/**
 * `recall <run> --as-of` for a persistent run: the store as the run's `remember` recall saw it
 * (the snapshot of its start, its own writes up to the recorded recall's seq, or those of earlier
 * bars; look-ahead entries hidden as the run hid them), scored as that recall scores. Without
 * `asOf`: after all of the run's writes. Reads the run directory only, never the live store.
 */
function recallPersistentRun(r: FinishedRunRecall) {
  const bytes = readFileNoFollow(path.join(r.dir, ...STORE_RECORD.split("/")));
  if (bytes === null) {
    throw new SnapshotError(
      `${path.join(r.dir, ...STORE_RECORD.split("/"))} is missing: the run's persistent memory cannot be read back. Restore it from a copy of the run directory.`,
    );
  }
  const hidden = new Set((JSON.parse(bytes.toString("utf8")) as StoreRecord).lookAheadFiles);
  const ops = readStoreLog(r.dir);
  const seq = recallSeq(r, ops, STORE_LOG);
  const { store, lines } = storeAt(r.dir, ops, seq ?? ops.length);
  const limit = Math.min(r.limit, r.retrieveLimit ?? r.limit);
  const hits = store.find(r.query, limit, (e) => !hidden.has(e.file));
  return {
    citations: hits.map((h) => citation(h, r.query, lines.get(h.entry.file) ?? null)),
    seq,
    items: store.entries().filter((e) => !hidden.has(e.file)).length,
  };
}
