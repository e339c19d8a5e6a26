/**
 * A memory file would land outside the run directory, or a user-given memory path is not one the
 * workspace accepts. Key validation should make the first impossible; this is the second line.
 */
export class MemoryPathError extends Error {
  override readonly name = "MemoryPathError";
}

/** A memory operation got input it cannot store (empty entry, bad time, unreadable source). */
export class MemoryInputError extends Error {
  override readonly name = "MemoryInputError";
}
