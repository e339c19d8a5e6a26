import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cliRun, DATA, ROOT, tempDir } from "../../helpers/cli.js";
import { sliceCsv } from "../../helpers/llm-run.js";

const work = tempDir();
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));
const STRATEGY = path.join(ROOT, "test/fixtures/strategies/remember-many.ts");
const goog = sliceCsv(path.join(DATA, "GOOG.csv"), 64, work, "GOOG.csv");

/** Two CLI runs saving into one namespace at the same time; returns the store directory. */
async function twoRunsAtOnce(namespace: string, params: [string, string][]): Promise<string> {
  const runsDir = path.join(work, "runs");
  const results = await Promise.all(
    params.map(([run, shared]) =>
      cliRun(
        [
          "run",
          STRATEGY,
          "--data",
          goog,
          "--memory",
          "persistent",
          "--memory-namespace",
          namespace,
          "--param",
          `run=${run}`,
          "--param",
          `shared=${shared}`,
          "--runs-dir",
          runsDir,
          "--no-ui",
        ],
        work,
      ),
    ),
  );
  for (const r of results) expect(r.status, r.stderr).toBe(0);
  return path.join(work, "memory", namespace);
}

const entryFiles = (store: string) =>
  fs.readdirSync(store).filter((f) => f.endsWith(".md") && f !== "MEMORY.md");
const indexLines = (store: string) =>
  fs
    .readFileSync(path.join(store, "MEMORY.md"), "utf8")
    .split("\n")
    .filter((l) => l !== "");

describe("two runs writing one persistent namespace at once", () => {
  it("keeps every entry, every index line and every backup (60 entries each, each saved twice)", async () => {
    const store = await twoRunsAtOnce("both", [
      ["1", "0"],
      ["2", "0"],
    ]);
    const files = entryFiles(store);
    expect(files).toHaveLength(120);
    const lines = indexLines(store);
    expect(lines).toHaveLength(120);
    // Each line links one entry, and every entry has its line.
    const linked = lines.map((l) => /\]\(([^)]+)\)/.exec(l)?.[1]);
    expect(new Set(linked)).toEqual(new Set(files));
    // Each entry's first draft is its one backup, and the entry holds the final version.
    const backups = fs.readdirSync(path.join(store, "backups")).sort();
    expect(backups).toEqual(files.map((f) => f.replace(/\.md$/, ".1.md")).sort());
    for (const f of backups) {
      expect(fs.readFileSync(path.join(store, "backups", f), "utf8")).toContain("first draft:");
    }
    for (const f of files) expect(fs.readFileSync(path.join(store, f), "utf8")).toContain("final:");
    expect(fs.readdirSync(store).filter((f) => f.startsWith(".lock"))).toEqual([]);
  }, 120_000);

  it("numbers the backups of an entry both runs replace without a gap or an overwrite", async () => {
    const store = await twoRunsAtOnce("shared", [
      ["1", "1"],
      ["2", "1"],
    ]);
    expect(entryFiles(store)).toEqual(["lesson_shared_rule.md"]);
    expect(indexLines(store)).toHaveLength(1);
    // 120 saves of one entry: the 119 versions it replaced, numbered 1..119, each a distinct save.
    const backups = fs.readdirSync(path.join(store, "backups"));
    expect(backups.sort()).toEqual(
      Array.from({ length: 119 }, (_, i) => `lesson_shared_rule.${i + 1}.md`).sort(),
    );
    const saves = new Set(
      [
        ...backups.map((f) => path.join(store, "backups", f)),
        path.join(store, "lesson_shared_rule.md"),
      ].map((f) => /run \d+ bar \d+/.exec(fs.readFileSync(f, "utf8"))?.[0]),
    );
    expect(saves.size).toBe(120);
  }, 120_000);
});
