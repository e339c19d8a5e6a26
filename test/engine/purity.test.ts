import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ENGINE_DIR = join(dirname(fileURLToPath(import.meta.url)), "../../src/engine");

const FORBIDDEN_MODULES = [
  "fs",
  "fs/promises",
  "fs-extra",
  "net",
  "http",
  "https",
  "crypto",
  "child_process",
];

const modulePattern = `(?:node:)?(?:${FORBIDDEN_MODULES.map((m) => m.replace("/", "\\/")).join("|")})`;

const RULES: ReadonlyArray<readonly [string, RegExp]> = [
  ["forbidden import", new RegExp(`\\bfrom\\s*["']${modulePattern}["']`)],
  ["forbidden side-effect import", new RegExp(`\\bimport\\s*["']${modulePattern}["']`)],
  ["forbidden dynamic import", new RegExp(`\\bimport\\s*\\(\\s*["']${modulePattern}["']`)],
  ["forbidden require", new RegExp(`\\brequire\\s*\\(\\s*["']${modulePattern}["']`)],
  ["clock: Date.now", /\bDate\s*\.\s*now\b/],
  ["clock: performance.now", /\bperformance\s*\.\s*now\b/],
  ["clock: new Date()", /\bnew\s+Date\s*\(\s*\)/],
  ["randomness: Math.random", /\bMath\s*\.\s*random\b/],
  ["environment: process.", /(?<![\w.])process\s*\./],
  ["timer: setTimeout", /\bsetTimeout\b/],
  ["network: fetch(", /(?<![\w.])fetch\s*\(/],
];

/** Names of the purity rules the source text breaks (empty when pure). */
function purityViolations(source: string): string[] {
  return RULES.filter(([, re]) => re.test(source)).map(([name]) => name);
}

function engineFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...engineFiles(p));
    else if (e.name.endsWith(".ts")) out.push(p);
  }
  return out.sort();
}

describe("engine purity", () => {
  it("the scanner catches each kind of violation in synthetic source", () => {
    const cases: ReadonlyArray<readonly [string, string]> = [
      ['import { readFileSync } from "fs";', "forbidden import"],
      ["import * as fs from 'node:fs';", "forbidden import"],
      ['import { readFile } from "fs/promises";', "forbidden import"],
      ['import fse from "fs-extra";', "forbidden import"],
      ['import { connect } from "node:net";', "forbidden import"],
      ['import http from "http";', "forbidden import"],
      ['import https from "node:https";', "forbidden import"],
      ['import { randomUUID } from "node:crypto";', "forbidden import"],
      ['import { createHash } from "crypto";', "forbidden import"],
      ['import { spawn } from "child_process";', "forbidden import"],
      ['import "node:fs";', "forbidden side-effect import"],
      ['const fs = await import("fs");', "forbidden dynamic import"],
      ['const cp = require("node:child_process");', "forbidden require"],
      ["const t = Date.now();", "clock: Date.now"],
      ["const t = performance.now();", "clock: performance.now"],
      ["const d = new Date();", "clock: new Date()"],
      ["const r = Math.random();", "randomness: Math.random"],
      ["const tz = process.env.TZ;", "environment: process."],
      ["setTimeout(() => {}, 0);", "timer: setTimeout"],
      ['const res = await fetch("https://x");', "network: fetch("],
    ];
    for (const [src, rule] of cases) expect(purityViolations(src), src).toContain(rule);
  });

  it("the scanner accepts pure code that merely looks similar", () => {
    const ok = [
      "const d = new Date(t);",
      "broker.processBar(i);",
      "// orders are processed at the open",
      'import { x } from "./fs-helpers.js";',
      'import { y } from "./network.js";',
      "this.prefetch(x);",
      "const random = rng.next();",
    ].join("\n");
    expect(purityViolations(ok)).toEqual([]);
  });

  it("no file under src/engine uses I/O, the clock, randomness, timers or the environment", () => {
    const files = engineFiles(ENGINE_DIR);
    // the engine modules named in the spec must all be scanned
    const names = files.map((f) => f.slice(ENGINE_DIR.length + 1));
    for (const n of ["broker.ts", "simulation.ts", "fill-model.ts", "portfolio.ts", "types.ts"]) {
      expect(names).toContain(n);
    }
    const bad = files
      .map(
        (f) => [f.slice(ENGINE_DIR.length + 1), purityViolations(readFileSync(f, "utf8"))] as const,
      )
      .filter(([, v]) => v.length > 0);
    expect(bad).toEqual([]);
  });
});
