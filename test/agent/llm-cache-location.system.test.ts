import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cliRun, DATA, tempDir } from "../helpers/cli.js";
import { sliceCsv } from "../helpers/llm-run.js";
import { startScriptedServer } from "../helpers/scripted-openai-server.js";

const work = tempDir();
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

const cacheFiles = (dir: string) =>
  fs.existsSync(dir)
    ? fs
        .readdirSync(dir, { recursive: true })
        .map(String)
        .filter((f) => f.endsWith(".json"))
    : [];

describe("where the response cache lives", async () => {
  const server = await startScriptedServer(() => ({ content: "hold" }));
  afterAll(() => server.close());
  const spy = sliceCsv(path.join(DATA, "SPY_D.csv"), 3, work, "SPY.csv");
  const run = (cwd: string, extra: string[]) =>
    cliRun(
      [
        "run",
        "--prompt",
        "Trade SPY.",
        "--data",
        spy,
        "--base-url",
        server.url,
        "--no-moments",
        "-q",
        ...extra,
      ],
      cwd,
    );

  it("is .agenticbt/cache under the working directory, not next to --runs-dir", async () => {
    const cwd = path.join(work, "project");
    fs.mkdirSync(cwd);
    const elsewhere = path.join(work, "elsewhere");
    const r = await run(cwd, ["--runs-dir", path.join(elsewhere, "runs")]);
    expect(r.status, r.stderr).toBe(0);
    expect(fs.existsSync(path.join(elsewhere, "cache"))).toBe(false);
    expect(cacheFiles(path.join(cwd, ".agenticbt", "cache"))).toHaveLength(3);
  });

  it("is --cache-dir when given", async () => {
    const cwd = path.join(work, "project2");
    fs.mkdirSync(cwd);
    const mine = path.join(work, "my-cache");
    const r = await run(cwd, ["--runs-dir", path.join(cwd, "runs"), "--cache-dir", mine]);
    expect(r.status, r.stderr).toBe(0);
    expect(cacheFiles(mine)).toHaveLength(3);
    expect(fs.existsSync(path.join(cwd, ".agenticbt", "cache"))).toBe(false);
    expect(fs.existsSync(path.join(cwd, "cache"))).toBe(false);
  });
});
