import { z } from "zod";
import type { MemorySystemFactory } from "../memory-system.js";
import { DEFAULT_NAMESPACE, validateNamespace } from "./namespace.js";

// What the registry and `run`'s option checks need of the persistent system, apart from the
// system itself (persistent-system.ts), which loads only for a run that uses it.

/**
 * In the run directory: one JSON line per write this run made to the store, in order. With the
 * snapshot of the store at the run's start it rebuilds the store as the run saw it at any bar
 * (`agenticbt recall <run> --as-of`), whatever happens to the live store later.
 */
export const STORE_LOG = "persistent/ops.jsonl";

/** `memory.persistent` of agenticbt.config.json (and `--memory-namespace`). */
export const persistentConfigSchema = z.strictObject({
  namespace: z.string().default(DEFAULT_NAMESPACE),
});
export type PersistentConfig = z.infer<typeof persistentConfigSchema>;

export function resolvePersistentConfig(raw: unknown): PersistentConfig {
  const parsed = persistentConfigSchema.safeParse(raw ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? issue.path.join(".") : "(block)";
    throw new Error(
      `${where}: ${issue?.message ?? "invalid"}. The block takes {"namespace": "<name>"}.`,
    );
  }
  validateNamespace(parsed.data.namespace);
  return parsed.data;
}

/** The persistent system's name, description, config check and run files. */
export const PERSISTENT_SYSTEM = {
  name: "persistent",
  description:
    "Vibe-Trading: files plus a cross-run store .agenticbt/memory/<namespace>/ (frozen MEMORY.md index, auto-recall, remember tool)",
  resolveConfig: resolvePersistentConfig,
  runFiles: [STORE_LOG],
} satisfies Pick<MemorySystemFactory, "name" | "description" | "resolveConfig" | "runFiles">;
