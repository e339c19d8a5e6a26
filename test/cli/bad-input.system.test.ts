import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cliAsync, ROOT, runArgs, runDirs, tempDir } from "../helpers/cli.js";

const work = tempDir();
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

const HEADER = "Date,Open,High,Low,Close,Volume";
const GOOD = "2020-01-02,10,11,9,10.5,100";

/** Each validation rule of README's Data section: a malformed file, the line the message must name,
 * and what it must say. */
const CASES: { name: string; text: string; line: number | null; mentions: string }[] = [
  { name: "empty file", text: "", line: null, mentions: "empty" },
  { name: "header only", text: `${HEADER}\n`, line: 1, mentions: "no data rows" },
  {
    name: "missing column",
    text: "Date,Open,High,Low,Volume\n2020-01-02,10,11,9,100\n",
    line: 1,
    mentions: "Close",
  },
  {
    name: "unparsable number",
    text: `${HEADER}\n${GOOD}\n2020-01-03,10,abc,9,10.5,100\n`,
    line: 3,
    mentions: "High",
  },
  {
    name: "empty cell",
    text: `${HEADER}\n${GOOD}\n2020-01-03,10,11,,10.5,100\n`,
    line: 3,
    mentions: "Low",
  },
  {
    name: "NaN cell",
    text: `${HEADER}\n${GOOD}\n2020-01-03,10,11,9,NaN,100\n`,
    line: 3,
    mentions: "Close",
  },
  {
    name: "unparsable date",
    text: `${HEADER}\n${GOOD}\nyesterday,10,11,9,10.5,100\n`,
    line: 3,
    mentions: "Date",
  },
  {
    name: "impossible date",
    text: `${HEADER}\n${GOOD}\n2020-02-30,10,11,9,10.5,100\n`,
    line: 3,
    mentions: "Date",
  },
  {
    name: "non-positive price",
    text: `${HEADER}\n${GOOD}\n2020-01-03,0,11,9,10.5,100\n`,
    line: 3,
    mentions: "Open",
  },
  {
    name: "high below open/close",
    text: `${HEADER}\n${GOOD}\n2020-01-03,10,10.2,9,10.5,100\n`,
    line: 3,
    mentions: "High",
  },
  {
    name: "low above open/close",
    text: `${HEADER}\n${GOOD}\n2020-01-03,10,11,10.2,10.5,100\n`,
    line: 3,
    mentions: "Low",
  },
  {
    name: "wrong field count",
    text: `${HEADER}\n${GOOD}\n2020-01-03,10,11,9,10.5\n`,
    line: 3,
    mentions: "field",
  },
  {
    name: "duplicate timestamp",
    text: `${HEADER}\n${GOOD}\n${GOOD}\n`,
    line: 3,
    mentions: "2020-01-02",
  },
];

function exitOf(
  child: ReturnType<typeof cliAsync>,
): Promise<{ code: number | null; stderr: string }> {
  let stderr = "";
  child.stderr?.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stderr })));
}

describe("bad input through the CLI", () => {
  it("every malformed file exits with code 2, names the file and line, and simulates nothing", async () => {
    const runs = path.join(work, "runs");
    const results = await Promise.all(
      CASES.map(async (c, k) => {
        const file = path.join(work, `case-${k}.csv`);
        fs.writeFileSync(file, c.text);
        const child = cliAsync(runArgs("strategies/buy-and-hold.ts", file, runs), work);
        return { c, file, ...(await exitOf(child)) };
      }),
    );
    for (const { c, file, code, stderr } of results) {
      expect(code, `${c.name}: ${stderr}`).toBe(2);
      expect(stderr, c.name).toContain(file);
      if (c.line !== null) expect(stderr, c.name).toContain(`${file}:${c.line}`);
      expect(stderr, c.name).toContain(c.mentions);
    }
    expect(runDirs(runs)).toEqual([]);
  }, 120_000);

  it("numbers are decimal only: a hex cell, option or parameter exits 2 and says so", async () => {
    const runs = path.join(work, "runs-decimal");
    const good = path.join(work, "decimal-good.csv");
    fs.writeFileSync(good, `${HEADER}\n${GOOD}\n2020-01-03,10,11,9,10.5,100\n`);
    const hex = path.join(work, "decimal-hex.csv");
    fs.writeFileSync(hex, `${HEADER}\n${GOOD}\n2020-01-03,10,11,9,0xA,100\n`);
    const cases: { args: string[]; mentions: string[] }[] = [
      {
        args: ["strategies/buy-and-hold.ts", "--data", hex],
        mentions: [`${hex}:3`, "Close", '"0xA" is not a decimal number'],
      },
      {
        args: ["strategies/buy-and-hold.ts", "--data", good, "--cash", "0x2710"],
        mentions: ['--cash "0x2710" is not valid: expected a decimal number'],
      },
      {
        args: ["strategies/buy-and-hold.ts", "--data", good, "--commission", "0b1"],
        mentions: ['--commission "0b1" is not valid: expected a decimal number'],
      },
      {
        args: ["strategies/buy-and-hold.ts", "--data", good, "--cash", "Infinity"],
        mentions: ['--cash "Infinity" is not valid'],
      },
      {
        args: ["strategies/buy-and-hold.ts", "--data", good, "--cash", "1e999"],
        mentions: ['--cash "1e999" is not valid'],
      },
      {
        args: ["strategies/sma-crossover.ts", "--data", good, "--param", "fast=0x0A"],
        mentions: ['Parameter fast must be a decimal number (got "0x0A")'],
      },
      // A decimal number out of range is told its range, not the notation.
      {
        args: ["strategies/buy-and-hold.ts", "--data", good, "--cash", "-5"],
        mentions: ['--cash "-5" is not valid: it must be a number > 0.'],
      },
      {
        args: ["strategies/buy-and-hold.ts", "--data", good, "--volume-cap", "1.5"],
        mentions: ['--volume-cap "1.5" is not valid: it must be a number > 0 and <= 1.'],
      },
    ];
    const results = await Promise.all(
      cases.map(async (c) => {
        const [strategy, ...rest] = c.args;
        const child = cliAsync(
          ["run", path.join(ROOT, strategy as string), ...rest, "--runs-dir", runs],
          work,
        );
        return { c, ...(await exitOf(child)) };
      }),
    );
    for (const { c, code, stderr } of results) {
      expect(code, `${c.args.join(" ")}: ${stderr}`).toBe(2);
      for (const m of c.mentions) expect(stderr, c.args.join(" ")).toContain(m);
    }
    expect(runDirs(runs)).toEqual([]);
  }, 120_000);

  it("unsorted rows are sorted with a warning, or rejected with --strict (exit 2)", async () => {
    const file = path.join(work, "unsorted.csv");
    fs.writeFileSync(
      file,
      `${HEADER}\n2020-01-03,10,11,9,10.5,100\n${GOOD}\n2020-01-06,10,11,9,10.5,100\n`,
    );
    const runs = path.join(work, "runs-unsorted");
    const lenient = await exitOf(cliAsync(runArgs("strategies/buy-and-hold.ts", file, runs), work));
    expect(lenient.code).toBe(0);
    expect(lenient.stderr).toMatch(/warning: .*unsorted\.csv:3/);
    const strict = await exitOf(
      cliAsync(runArgs("strategies/buy-and-hold.ts", file, runs, "--strict"), work),
    );
    expect(strict.code).toBe(2);
    expect(strict.stderr).toContain(`${file}:3`);
  }, 60_000);
});

describe("data formats and special files through the CLI", () => {
  it("bad --time-unit, --date-format, --columns and /dev/zero exit 2 with the fix, simulating nothing", async () => {
    const runs = path.join(work, "runs-formats");
    const good = path.join(work, "formats-good.csv");
    fs.writeFileSync(good, `${HEADER}\n${GOOD}\n`);
    const slash = path.join(work, "formats-slash.csv");
    fs.writeFileSync(slash, `${HEADER}\n02/01/2020,10,11,9,10.5,100\n`);
    const cases: { args: string[]; mentions: string }[] = [
      { args: ["--data", "/dev/zero"], mentions: "/dev/zero: it is a character device" },
      { args: ["--data", good, "--time-unit", "us"], mentions: '--time-unit "us": use s or ms' },
      { args: ["--data", good, "--date-format", "YY/MM/DD"], mentions: "is not a date format" },
      { args: ["--data", good, "--columns", "price=Close"], mentions: 'unknown key "price"' },
      {
        args: ["--data", good, "--columns", "close=Last"],
        mentions: `${good}:1: --columns maps close`,
      },
      { args: ["--data", slash], mentions: `${slash}:2: column Date:` },
    ];
    const results = await Promise.all(
      cases.map(async (c) => {
        const child = cliAsync(
          ["run", path.join(ROOT, "strategies/buy-and-hold.ts"), ...c.args, "--runs-dir", runs],
          work,
        );
        return { c, ...(await exitOf(child)) };
      }),
    );
    for (const { c, code, stderr } of results) {
      expect(code, stderr).toBe(2);
      expect(stderr).toContain(c.mentions);
    }
    expect(runDirs(runs)).toEqual([]);
  }, 120_000);
});
