import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { resolveRunDir } from "../../src/rundir/resolve-run.js";
import { tempDir } from "../helpers/cli.js";

const root = tempDir();
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe("a run named by a prefix of its id", () => {
  it("is found when one run matches; with many, names five and says how many more", () => {
    const ids = Array.from({ length: 7 }, (_, k) => `20261127-0700${k}0-000-sma-x${k}`);
    for (const id of ids) fs.mkdirSync(path.join(root, id));
    expect(resolveRunDir("20261127-070060", root)).toBe(path.join(root, ids[6] as string));
    expect(() => resolveRunDir("2026", root)).toThrow(
      `"2026" matches 7 runs in ${root}; give more of the id: ${ids.slice(0, 5).join(", ")} and 2 more (agenticbt list shows them all)`,
    );
  });
});
