import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { RUN_FILE, SIMULATION_OUTPUTS } from "../../src/rundir/layout.js";
import { OUTPUT_WRITERS } from "../../src/rundir/write-outputs.js";
import { sourceFiles, withoutComments } from "./import-graph.js";

const SRC = fileURLToPath(new URL("../../src", import.meta.url));
/** Where a name may be written: the layout, and the agent's leaf module it takes the transcript's
 * name from (the agent sits below the layout). */
const OWNERS = new Set(["rundir/layout.ts", "agent/llm/transcript-file.ts"]);

describe("the run directory's file names (src/rundir/layout.ts)", () => {
  it("are written nowhere else in src/ (prose in messages and comments aside)", () => {
    const names = Object.values(RUN_FILE);
    const found: string[] = [];
    for (const file of sourceFiles(SRC)) {
      if (OWNERS.has(file)) continue;
      const code = withoutComments(fs.readFileSync(path.join(SRC, file), "utf8"));
      for (const name of names) {
        const literal = new RegExp(`(["'\`])${name.replaceAll(".", "\\.")}\\1`);
        if (literal.test(code)) found.push(`${file}: "${name}"`);
      }
    }
    expect(found, "use RUN_FILE / runFile() from src/rundir/layout.ts").toEqual([]);
  });

  it("are distinct, and every simulation output has exactly one writer", () => {
    const names = Object.values(RUN_FILE);
    expect(new Set(names).size).toBe(names.length);
    expect(Object.keys(OUTPUT_WRITERS).sort()).toEqual([...SIMULATION_OUTPUTS].sort());
  });
});
