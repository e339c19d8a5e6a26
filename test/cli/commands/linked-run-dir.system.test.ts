import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../../helpers/cli.js";
import { type Sandbox, sandbox, tree } from "../../helpers/symlink-kit.js";
import { RSI_SPY_RUN, reportCli, runStrategy } from "./report-cli.js";

// A run directory that is a link leads outside the runs root: `report` wrote report.html and
// `recall` index.sqlite into its target. Every command refuses it, as rm does.
let box: Sandbox;
let runs: string;
let real: string;
let target: string;
let link: string;
const LINK_ID = "20991231-000000-000-linked-aaaa";

beforeAll(() => {
  box = sandbox();
  runs = path.join(box.root, "runs");
  real = runStrategy(RSI_SPY_RUN, ROOT, runs);
  // The linked run: a copy outside the root without the files report and recall would write.
  target = path.join(box.outside, "run");
  fs.cpSync(real, target, { recursive: true });
  fs.rmSync(path.join(target, "report.html"));
  fs.rmSync(path.join(target, "index.sqlite"));
  link = path.join(runs, LINK_ID);
  fs.symlinkSync(target, link);
}, 60_000);
afterAll(() => box.cleanup());

const COMMANDS: [string, (name: string) => string[]][] = [
  ["report", (n) => ["report", n]],
  ["recall", (n) => ["recall", n, "stop loss"]],
  ["show", (n) => ["show", n]],
  ["show --at", (n) => ["show", n, "--at", "2006-05-18"]],
  ["diff", (n) => ["diff", n, real]],
  ["compare", (n) => ["compare", real, n]],
  ["resume", (n) => ["resume", n]],
  ["rm", (n) => ["rm", n, "--yes"]],
  ["run --memory-from", (n) => ["run", ...RSI_SPY_RUN, "--memory-from", n, "-q"]],
];

describe("a run directory that is a symbolic link", () => {
  it.each(COMMANDS)("%s refuses it, by id prefix and by path, writing nothing", (_, args) => {
    const before = tree(box.outside);
    const runsBefore = fs.readdirSync(runs).sort();
    for (const name of ["20991231", link, `${link}/`]) {
      const r = reportCli([...args(name), "--runs-dir", runs], ROOT);
      expect(r.status, `${name}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toContain(`Refusing ${link}: it is a symbolic link`);
    }
    expect(tree(box.outside)).toEqual(before);
    expect(fs.readdirSync(runs).sort()).toEqual(runsBefore);
    expect(fs.existsSync(path.join(target, "report.html"))).toBe(false);
    expect(fs.existsSync(path.join(target, "index.sqlite"))).toBe(false);
  });

  it("list names it as refused and reads nothing through it", () => {
    const before = tree(box.outside);
    const r = reportCli(["list", "--runs-dir", runs, "--json"], ROOT);
    expect(r.status, r.stderr).toBe(0);
    const rows = (JSON.parse(r.stdout) as { runs: { id: string; status: string; error: string }[] })
      .runs;
    const row = rows.find((x) => x.id === LINK_ID);
    expect(row?.status).toBe("unreadable");
    expect(row?.error).toContain("it is a symbolic link");
    // Its target's name, strategy and figures were not read.
    expect(row).toMatchObject({ name: null, strategy: null, returnPct: null });
    expect(rows.find((x) => x.id === path.basename(real))?.status).toBe("completed");
    expect(tree(box.outside)).toEqual(before);
  });
});
