/** What a DataError needs: where the problem is, what is wrong, and how the user can fix it. */
export interface DataErrorDetails {
  file: string;
  /** 1-based line in the file (the header is line 1), or null when the problem is not on a line. */
  line: number | null;
  /** The column name as written in the header ("" for an unnamed column), or null. */
  column: string | null;
  /** What is wrong, without a trailing period. */
  problem: string;
  /** How to fix it, as a full sentence. */
  fix: string;
}

/**
 * Bad input data. Every problem with a data file surfaces as one of these so the CLI can print the
 * message as is and exit with code 2 (bad input) before anything is simulated.
 */
export class DataError extends Error {
  override readonly name = "DataError";
  readonly exitCode = 2;
  readonly file: string;
  readonly line: number | null;
  readonly column: string | null;

  constructor(details: DataErrorDetails) {
    super(formatMessage(details));
    this.file = details.file;
    this.line = details.line;
    this.column = details.column;
  }
}

function formatMessage(d: DataErrorDetails): string {
  const where = d.line === null ? d.file : `${d.file}:${d.line}`;
  const column = d.column === null ? "" : `column ${d.column === "" ? "(unnamed)" : d.column}: `;
  return `${where}: ${column}${d.problem}. ${d.fix}`;
}

/** Quotes a cell for an error message, shortened so a runaway field cannot flood the terminal. */
export function quoteCell(cell: string): string {
  return JSON.stringify(cell.length > 40 ? `${cell.slice(0, 40)}…` : cell);
}

/** A bad data-format option (`--columns`, `--date-format`, `--time-unit`): exit code 2. */
export class DataOptionError extends Error {
  override readonly name = "DataOptionError";
  readonly exitCode = 2;
}
