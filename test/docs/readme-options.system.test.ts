import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { README_OPTIONS, withOptionsTable } from "../../src/cli/run-options.js";
import { cli, ROOT } from "../helpers/cli.js";

// README's option table is written from the settings (`npm run docs:options`), and `run --help`
// is made from the same settings: both must name the same flags with the same defaults.

const readme = fs.readFileSync(path.join(ROOT, "README.md"), "utf8");

/** flag → default (null: none shown), from README's table rows. */
function readmeTable(): Map<string, string | null> {
  const start = readme.indexOf(README_OPTIONS.begin);
  const end = readme.indexOf(README_OPTIONS.end);
  const out = new Map<string, string | null>();
  for (const line of readme.slice(start, end).split("\n")) {
    // Cells split at `|` not escaped (`<s\|ms>` stays in its cell).
    const cells = line.split(/(?<!\\)\|/).map((c) => c.trim());
    const [, flags, shown] = cells;
    if (flags === undefined || !flags.startsWith("`")) continue;
    for (const flag of flags.match(/--[a-z][a-z-]*/g) ?? [])
      out.set(flag, shown === "" || shown === undefined ? null : shown);
  }
  return out;
}

/** flag → default (null: none shown), from `run --help`'s option lines, wrapped lines joined. */
function helpOptions(help: string): Map<string, string | null> {
  const entries: string[] = [];
  for (const line of help.split("\n")) {
    if (/^ {2}(-\w, )?--/.test(line)) entries.push(line.trim());
    else if (/^ {10,}\S/.test(line) && entries.length > 0)
      entries[entries.length - 1] += ` ${line.trim()}`;
  }
  const out = new Map<string, string | null>();
  for (const entry of entries) {
    const flag = (entry.match(/--[a-z][a-z-]*/) ?? [""])[0];
    const shown = entry.match(/default: (.*)\)$/)?.[1] ?? null;
    out.set(flag, shown);
  }
  out.delete("--help");
  return out;
}

describe("README's run options", () => {
  it("the table is the one the settings make (run `npm run docs:options` after changing one)", () => {
    expect(readme).toContain(README_OPTIONS.begin);
    expect(withOptionsTable(readme)).toBe(readme);
  });

  it("`run --help` and README's table list the same flags with the same defaults", () => {
    const r = cli(["run", "--help"], ROOT);
    expect(r.status, r.stderr).toBe(0);
    const help = helpOptions(r.stdout);
    const table = readmeTable();
    // Enough of both were read for the comparison to mean something.
    expect(help.size).toBeGreaterThan(50);
    expect(help.get("--cash")).toBe("10000");
    expect([...help.keys()].sort()).toEqual([...table.keys()].sort());
    for (const [flag, shown] of help) expect(table.get(flag), flag).toBe(shown);
  });
});
