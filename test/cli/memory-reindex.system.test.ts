import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { reindexOutputSchema } from "../../src/rundir/memory-command-schemas.js";
import { cli, DATA, readJson, runArgs, runDirs, tempDir } from "../helpers/cli.js";

const work = tempDir();
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));
const runs = path.join(work, "runs");

describe("agenticbt memory reindex", () => {
  // 10 daily bars (1999-11-01 .. 1999-11-12): a journal file per day, one note, the playbook.
  const made = cli(
    runArgs(
      "test/fixtures/strategies/journal-and-recall.ts",
      path.join(DATA, "SPY_D.csv"),
      runs,
      "--to",
      "1999-11-12",
      "--json",
    ),
    work,
  );
  const [dir] = runDirs(runs);
  const index = path.join(dir!, "index.sqlite");
  const recall = () =>
    JSON.parse(cli(["recall", dir!, "marker bar", "--json", "-n", "20"], work).stdout);

  it("rebuilds index.sqlite beside the old one, keeps the old one, and answers the same", () => {
    expect(made.status, made.stderr).toBe(0);
    const recorded = readJson<{ index: { files: number; chunks: number } }>(
      path.join(dir!, "result.json"),
    ).index;
    const before = recall().citations;
    const oldBytes = fs.readFileSync(index);
    const oldInode = fs.statSync(index).ino;
    const out = cli(["memory", "reindex", dir!, "--json"], work);
    expect(out.status, out.stderr).toBe(0);
    const report = reindexOutputSchema.parse(JSON.parse(out.stdout));
    expect(report.index.files).toBe(10 + 1 + 1);
    expect(report.index.chunks).toBe(recorded.chunks);
    expect(report.index.errors).toEqual([]);
    expect(report.backup).toBe(`${index}.bak`);
    expect(fs.readFileSync(`${index}.bak`).equals(oldBytes)).toBe(true);
    expect(fs.statSync(index).ino).not.toBe(oldInode);
    expect(fs.existsSync(`${index}.reindex`)).toBe(false);
    expect(recall().citations).toEqual(before);
  });

  it("never follows a link: a planted backup link is refused and nothing changes", () => {
    const outside = path.join(work, "outside.txt");
    fs.writeFileSync(outside, "not yours");
    fs.rmSync(`${index}.bak`);
    fs.symlinkSync(outside, `${index}.bak`);
    const bytes = fs.readFileSync(index);
    const out = cli(["memory", "reindex", dir!], work);
    expect(out.status).toBe(2);
    expect(out.stderr).toContain("index.sqlite.bak");
    expect(fs.readFileSync(outside, "utf8")).toBe("not yours");
    expect(fs.readFileSync(index).equals(bytes)).toBe(true);
    fs.rmSync(`${index}.bak`);
  });

  it("refuses a run that is still running", () => {
    const file = path.join(dir!, "result.json");
    const result = fs.readFileSync(file, "utf8");
    fs.writeFileSync(file, JSON.stringify({ ...JSON.parse(result), status: "running" }));
    try {
      const out = cli(["memory", "reindex", dir!], work);
      expect(out.status).toBe(2);
      expect(out.stderr).toContain("still running");
      expect(fs.existsSync(`${index}.bak`)).toBe(false);
    } finally {
      fs.writeFileSync(file, result);
    }
  });
});
