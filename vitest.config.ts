import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

// Two projects, told apart by the file name so the class moves with the file: `unit` (the inner
// loop, `npm run test:unit`) starts no process and no server, and its setup refuses both;
// `system` (*.system.test.ts) runs the built CLI, browsers, tmux and the scripted LLM server.
export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        // The package's own source for `import "agenticbt"`, as tsconfig.test.json resolves it:
        // the unit run needs no build.
        ssr: {
          resolve: { conditions: ["agenticbt-source", "module", "node", "development|production"] },
        },
        test: {
          name: "unit",
          include: ["test/**/*.test.ts"],
          exclude: ["test/**/*.system.test.ts"],
          setupFiles: ["test/helpers/unit-guard.ts"],
          // In-process tests only: threads sharing one module graph start fastest, and every
          // core gets one (vitest's default leaves one core to its own process, idle here).
          pool: "threads",
          isolate: false,
          maxWorkers: availableParallelism(),
          // Projects with different worker counts run one after the other: unit first.
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: "system",
          include: ["test/**/*.system.test.ts"],
          pool: "forks",
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
