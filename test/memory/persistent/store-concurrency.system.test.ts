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
    // A run that opens the store after the other's first save sees that entry as look-ahead
    // (the other's window ends after its start): it never replaces it, and saves the title to
    // lesson_shared_rule~2.md instead. Which run opens first is a race; the numbering is not.
    const files = entryFiles(store).sort();
    expect(["lesson_shared_rule.md", "lesson_shared_rule~2.md"]).toEqual(
      expect.arrayContaining(files),
    );
    expect(indexLines(store)).toHaveLength(files.length);
    // 120 saves: every version an entry replaced is a backup, numbered 1..n per entry, each a
    // distinct save.
    const backups = fs.readdirSync(path.join(store, "backups"));
    expect(backups).toHaveLength(120 - files.length);
    const expected = files.flatMap((f) => {
      const stem = f.replace(/\.md$/, "");
      const n = backups.filter((b) => b.startsWith(`${stem}.`)).length;
      return Array.from({ length: n }, (_, i) => `${stem}.${i + 1}.md`);
    });
    expect(backups.sort()).toEqual(expected.sort());
    const saves = new Set(
      [
        ...backups.map((f) => path.join(store, "backups", f)),
        ...files.map((f) => path.join(store, f)),
      ].map((f) => /run \d+ bar \d+/.exec(fs.readFileSync(f, "utf8"))?.[0]),
    );
    expect(saves.size).toBe(120);
  }, 120_000);
});
