// Names of the run directory's memory layout (README.md, The run directory), shared by the writer
// and the recall.

export const PLAYBOOK_FILE = "playbook.md";
/** `note("playbook", …)` appends a lesson to the manual instead of writing a note. */
export const PLAYBOOK_KEY = "playbook";
export const MEMORY_DIRS = ["journal", "notes", "reviews", "backups"] as const;

/** Other runs' report summaries, written at the start of a run with `--recall-sources reports`
 * (not created otherwise): one file per run, dated by the end of that run's period. */
export const REPORTS_DIR = "reports";

/** The decision traces of the run (`--recall-sources traces`, not created otherwise): one file a
 * simulated day, one `[HH:MM]` entry per recorded decision, written after it. */
export const TRACES_DIR = "traces";

/** A journal entry starts with the simulated clock time. */
export const JOURNAL_ENTRY = /^\[\d{2}:\d{2}\]/;

/** The playbook section lessons are appended to (created with the first lesson). */
export const LESSONS_HEADING = /^##\s+Lessons\s*$/i;
