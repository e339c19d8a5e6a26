/** Whether `err` is a Node system error with this `code` (ENOENT, ENOTDIR, …). */
export function isErrnoCode(err: unknown, code: string): boolean {
  return err instanceof Error && "code" in err && err.code === code;
}
