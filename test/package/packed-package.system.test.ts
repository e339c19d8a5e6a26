import { type SpawnSyncReturns, spawnSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backtest } from "../../src/runner/backtest.js";
import { ROOT, readJson, tempDir } from "../helpers/cli.js";
import { sliceCsv } from "../helpers/llm-run.js";
import { captureUntilExit, TmuxPane } from "../helpers/tmux.js";

/**
 * The package as a user gets it: `npm pack`, the tarball installed into a fresh project, a strategy
 * there importing from "agenticbt", run through the installed bin and through `backtest()`. Only
 * the packed files are installed, so a file left out of `files` or a wrong `exports` entry fails
 * here. No network: the temp project gets a lock file made from this repository's (the same
 * versions), so `npm ci --offline` takes every dependency from the npm cache that this repository's
 * own `npm ci` filled; better-sqlite3's native binding is copied from this repository's build
 * rather than compiled again (≈ 100 s). Needs `npm run build` first, as the CLI tests do. README's
 * library example runs here as written (README's `npm install` of the tarball ends in the same
 * node_modules).
 */

const project = tempDir("agenticbt-packed-");
afterAll(() => fs.rmSync(project, { recursive: true, force: true }));

const pkg = readJson<{
  version: string;
  dependencies: Record<string, string>;
  bin: Record<string, string>;
  license: string;
  engines: Record<string, string>;
}>(path.join(ROOT, "package.json"));
const tarball = `agenticbt-${pkg.version}.tgz`;
const installed = path.join(project, "node_modules", "agenticbt");

function sh(cmd: string, args: string[], cwd: string): SpawnSyncReturns<string> {
  const r = spawnSync(cmd, args, { cwd, encoding: "utf8", maxBuffer: 1 << 26 });
  if (r.status !== 0) {
    throw new Error(`${cmd} ${args.join(" ")} failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
  }
  return r;
}

/** The temp project's lock file: the tarball, and this repository's locked non-dev packages. */
function lockFile(): unknown {
  const lock = readJson<{ packages: Record<string, { dev?: boolean; link?: boolean }> }>(
    path.join(ROOT, "package-lock.json"),
  );
  const packages: Record<string, unknown> = {
    "": { name: "user-project", version: "1.0.0", dependencies: { agenticbt: `file:${tarball}` } },
    "node_modules/agenticbt": {
      version: pkg.version,
      resolved: `file:${tarball}`,
      license: pkg.license,
      dependencies: pkg.dependencies,
      bin: pkg.bin,
      engines: pkg.engines,
    },
  };
  for (const [key, entry] of Object.entries(lock.packages)) {
    if (key && !entry.dev && !entry.link) packages[key] = entry;
  }
  return { name: "user-project", version: "1.0.0", lockfileVersion: 3, requires: true, packages };
}

const STRATEGY = `import type { IndicatorView, Strategy } from "agenticbt";

interface State {
  trend: IndicatorView;
}

/** Long above the 20-bar SMA, flat below it. */
const aboveAverage: Strategy<State> = {
  name: "above-average",
  params: { period: 20 },
  init(ctx) {
    return { trend: ctx.indicator("sma", { period: Number(ctx.params.period) }) };
  },
  onBar(ctx, { trend }) {
    const sma = trend.value;
    if (sma === null) return;
    if ((ctx.close() ?? 0) > sma && ctx.position() === 0) ctx.buy({ fraction: 1 });
    else if ((ctx.close() ?? 0) < sma && ctx.position() > 0) ctx.closePosition();
  },
};

export default aboveAverage;
`;

const API = `import { type Strategy, backtest } from "agenticbt";
import aboveAverage from "./strategy.js";

const strategy: Strategy<unknown> = aboveAverage;
const result = await backtest({
  strategy,
  data: ["node_modules/agenticbt/data/GOOG.csv"],
  broker: { commissionRate: 0.001 },
});
const closed: number = result.trades.closed;
process.stdout.write(JSON.stringify({ status: result.status, closed, metrics: result.metrics }));
`;

/** The first code block of `language` after `heading` in README.md. */
function readmeBlock(heading: string, language: string): string {
  const readme = fs.readFileSync(path.join(ROOT, "README.md"), "utf8");
  const at = readme.indexOf(heading);
  if (at < 0) throw new Error(`README.md has no "${heading}"`);
  const fence = `\`\`\`${language}\n`;
  const start = readme.indexOf(fence, at);
  return `${readme.slice(start + fence.length, readme.indexOf("\n```\n", start))}\n`;
}

const TSCONFIG = {
  compilerOptions: {
    target: "ES2023",
    module: "NodeNext",
    moduleResolution: "NodeNext",
    strict: true,
    noEmit: true,
    // The user's own code against the package's declarations, which must resolve too.
    skipLibCheck: false,
    rewriteRelativeImportExtensions: false,
    allowImportingTsExtensions: false,
    typeRoots: [path.join(ROOT, "node_modules", "@types")],
    types: ["node"],
  },
  include: ["*.ts"],
};

beforeAll(() => {
  if (!fs.existsSync(path.join(ROOT, "dist", "index.js"))) {
    throw new Error("dist/ is missing: run `npm run build` first (`npm test` does).");
  }
  sh("npm", ["pack", "--ignore-scripts", "--silent", "--pack-destination", project], ROOT);
  fs.writeFileSync(
    path.join(project, "package.json"),
    JSON.stringify({
      name: "user-project",
      version: "1.0.0",
      private: true,
      type: "module",
      dependencies: { agenticbt: `file:${tarball}` },
    }),
  );
  fs.writeFileSync(path.join(project, "package-lock.json"), JSON.stringify(lockFile(), null, 2));
  const ci = spawnSync(
    "npm",
    ["ci", "--offline", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"],
    { cwd: project, encoding: "utf8" },
  );
  if (ci.status !== 0) {
    throw new Error(
      `npm ci --offline of the packed tarball failed: a dependency is not in the npm cache (run \`npm ci\` in the repository first).\n${ci.stderr}`,
    );
  }
  // The same better-sqlite3 as this repository's (same lock), so its built binding fits.
  const repoRequire = createRequire(path.join(ROOT, "package.json"));
  const repoSqlite = path.dirname(repoRequire.resolve("better-sqlite3/package.json"));
  const binding = path.join("build", "Release", "better_sqlite3.node");
  const target = path.join(project, "node_modules", "better-sqlite3");
  fs.mkdirSync(path.join(target, "build", "Release"), { recursive: true });
  fs.copyFileSync(path.join(repoSqlite, binding), path.join(target, binding));
  fs.writeFileSync(path.join(project, "strategy.ts"), STRATEGY);
  fs.writeFileSync(path.join(project, "api.ts"), API);
  fs.writeFileSync(path.join(project, "tsconfig.json"), JSON.stringify(TSCONFIG, null, 2));
}, 120_000);

describe("the packed package, installed in a user's project", () => {
  it("installs only the packed files, with the bin linked", () => {
    expect(fs.existsSync(path.join(installed, "src"))).toBe(false);
    expect(fs.existsSync(path.join(installed, "test"))).toBe(false);
    // What the README links to ships with it, and the licence package.json names.
    expect(fs.existsSync(path.join(installed, "docs", "metrics.md"))).toBe(true);
    expect(fs.readFileSync(path.join(installed, "LICENSE"), "utf8")).toMatch(/^MIT License/);
    expect(fs.realpathSync(path.join(project, "node_modules", ".bin", "agenticbt"))).toBe(
      path.join(installed, "bin", "agenticbt"),
    );
  });

  it("runs the user's strategy through the installed bin and through backtest(), with the same numbers", () => {
    const bin = path.join(project, "node_modules", ".bin", "agenticbt");
    const run = sh(
      bin,
      [
        "run",
        "strategy.ts",
        "--data",
        "node_modules/agenticbt/data/GOOG.csv",
        "--commission",
        "0.001",
        "--json",
        "--no-ui",
      ],
      project,
    );
    const printed = JSON.parse(run.stdout) as { id: string; status: string };
    const onDisk = readJson<{
      status: string;
      trades: { closed: number };
      metrics: { equityFinal: number; trades: number };
    }>(path.join(project, ".agenticbt", "runs", printed.id, "result.json"));
    expect(onDisk.status).toBe("completed");
    expect(onDisk.trades.closed).toBeGreaterThan(0);

    const api = JSON.parse(
      sh(path.join(project, "node_modules", ".bin", "tsx"), ["api.ts"], project).stdout,
    ) as { status: string; closed: number; metrics: { equityFinal: number } };
    expect(api.status).toBe("completed");
    expect(api.closed).toBe(onDisk.trades.closed);
    expect(api.metrics.equityFinal).toBe(onDisk.metrics.equityFinal);
    expect(api.metrics).toEqual(onDisk.metrics);
  });

  it("runs README's library example as written: its strategy as my-strategy.ts, its main.ts through npx tsx", async () => {
    const readme = fs.readFileSync(path.join(ROOT, "README.md"), "utf8");
    expect(readme).toContain(
      "With the strategy above saved as `my-strategy.ts`, `npx tsx main.ts`",
    );
    const main = readmeBlock("### As a library", "ts");
    expect(main).toContain('from "./my-strategy.ts"');
    fs.writeFileSync(
      path.join(project, "my-strategy.ts"),
      readmeBlock("### Writing a strategy", "ts"),
    );
    fs.writeFileSync(path.join(project, "main.ts"), main);
    // npx finds tsx in the project's .bin (a runtime dependency of agenticbt): no download.
    const ran = spawnSync("npx", ["tsx", "main.ts"], {
      cwd: project,
      encoding: "utf8",
      maxBuffer: 1 << 26,
      env: { ...process.env, npm_config_offline: "true", npm_config_update_notifier: "false" },
    });
    // A .ts strategy given by path loads under plain node too: tsx comes with the package.
    fs.writeFileSync(
      path.join(project, "by-path.mjs"),
      `import { backtest } from "agenticbt";\nconst r = await backtest({ strategy: "my-strategy.ts", data: ["node_modules/agenticbt/data/GOOG.csv"], broker: { commissionRate: 0.001 } });\nconsole.log(r.status, r.metrics?.returnPct);\n`,
    );
    const byPath = sh(process.execPath, ["by-path.mjs"], project).stdout.trim().split(" ");
    expect(byPath[0]).toBe("completed");
    // Out of the type check's way (its tsconfig refuses `.ts` in an import, as tsx does not).
    fs.renameSync(path.join(project, "main.ts"), path.join(project, "main.ts.txt"));
    expect(ran.status, ran.stderr).toBe(0);
    // The figures the same strategy gives here; its memory writes (ctx.note, ctx.log, ctx.review)
    // go to a temporary directory.
    const expected = await backtest({
      strategy: path.join(project, "my-strategy.ts"),
      data: [path.join(ROOT, "data", "GOOG.csv")],
      broker: { commissionRate: 0.001 },
    });
    expect(expected.status).toBe("completed");
    expect(expected.trades.closed).toBeGreaterThan(0);
    const [returnPct, buyHold] = ran.stdout.trim().split(/\s+/);
    expect(returnPct).toBe(String(expected.metrics?.returnPct));
    expect(byPath[1]).toBe(returnPct);
    expect(buyHold).toBe(String(expected.metrics?.buyHoldReturnPct));
    expect(ran.stdout).toContain("Float64Array");
    expect(ran.stdout).toContain(`entryTimeLabel: '${expected.tradeList[0]?.entryTimeLabel}'`);
  });

  it("draws the live view from the installed package in a terminal (its bundled process)", async () => {
    // The view process runs a file the build bundles (dist/ui/live-view.bundle.js): a package
    // without it would still run, with no view. A strategy slow enough (5 ms a bar) to be watched.
    const work = tempDir("agenticbt-packed-view-");
    const strategy = path.join(work, "slow.mjs");
    fs.writeFileSync(
      strategy,
      `export default { name: "slow-buyer", async onBar(ctx) { await new Promise((r) => setTimeout(r, 5)); if (ctx.position() === 0) ctx.buy({ qty: 3 }); } };\n`,
    );
    const csv = sliceCsv(path.join(installed, "data", "GOOG.csv"), 200, work);
    const bin = path.join(project, "node_modules", ".bin", "agenticbt");
    const pane = new TmuxPane([bin, "run", strategy, "--data", csv, "--runs-dir", "runs"], {
      cwd: work,
    });
    try {
      const { frames, exitCode } = await captureUntilExit(pane);
      expect(exitCode).toBe(0);
      const mid = frames.find((f) => /\b([1-9]|[1-9]\d)% \d{4}-\d\d-\d\d · bar \d+\/200/.test(f));
      expect(mid, frames.join("\n----\n")).toBeDefined();
      expect(mid).toContain("slow-buyer on GOOG");
      const last = frames.at(-1) as string;
      expect(last).toContain("100%");
      expect(last).toContain("· completed");
    } finally {
      pane.kill();
      fs.rmSync(work, { recursive: true, force: true });
    }
  }, 60_000);

  it("type-checks the user's code against the installed declarations", () => {
    const tsc = path.join(ROOT, "node_modules", ".bin", "tsc");
    const r = spawnSync(tsc, ["-p", "tsconfig.json"], { cwd: project, encoding: "utf8" });
    expect(`${r.stdout}${r.stderr}`).toBe("");
    expect(r.status).toBe(0);
    // And a wrong use is caught: the check really reads the package's types.
    fs.writeFileSync(
      path.join(project, "wrong.ts"),
      `import { backtest } from "agenticbt";\nawait backtest({ strategy: "s.ts", data: [], broker: { commisionRate: 0.001 } });\n`,
    );
    const bad = spawnSync(tsc, ["-p", "tsconfig.json", "--noEmit"], {
      cwd: project,
      encoding: "utf8",
    });
    fs.rmSync(path.join(project, "wrong.ts"));
    expect(bad.status).not.toBe(0);
    expect(bad.stdout).toContain("commisionRate");
  });
});
