import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cli, cliRun, DATA, ROOT, readJson, runArgs, runDirs, tempDir } from "../helpers/cli.js";
import { enospcEnv, fillDisk, mountTmpfs } from "../helpers/full-disk.js";
import { readJsonl, sliceCsv, turnMessages, userOf } from "../helpers/llm-run.js";
import { startScriptedServer } from "../helpers/scripted-openai-server.js";
import { waitFor } from "../helpers/wait.js";

const work = tempDir();
const mounts: { unmount(): void }[] = [];
afterAll(() => {
  for (const m of mounts) m.unmount();
  fs.rmSync(work, { recursive: true, force: true });
});
const GOOG = path.join(DATA, "GOOG.csv");

interface Result {
  status: string;
  error: { type: string; message: string } | null;
  warnings: string[];
  llm: { cacheWriteFailures?: number } | null;
}

describe("a full disk fails the run with the file named", () => {
  it("equity.csv cannot be written: status failed naming it, stderr says so, nothing half-written (exit 1)", async () => {
    // A real 1 MiB tmpfs filled up mid-run where the machine allows mounting one (root on Linux),
    // else the same ENOSPC injected into the child's writes of equity.csv.
    const mount = mountTmpfs(path.join(work, "tmpfs"), 1024);
    if (mount) mounts.push(mount);
    const runs = path.join(mount ? mount.dir : work, "runs-equity");
    const env = mount ? process.env : enospcEnv("equity\\.csv");
    const child = cliRun(
      [
        "run",
        path.join(ROOT, "test/fixtures/strategies/slow.ts"),
        "--data",
        GOOG,
        "--param",
        "ms=1",
        // Only the checkpoint after bar 0: later ones would take the space left for result.json.
        "--checkpoint-every",
        "100000",
        "--runs-dir",
        runs,
        "--no-ui",
      ],
      work,
      env,
    );
    // The bars are under way once the first checkpoint (saved after bar 0) is there: the set-up's
    // writes (playbook, memory snapshot, the loaded memory system's files) are all done by then.
    await waitFor(
      () => {
        const [dir] = runDirs(runs);
        return dir !== undefined && fs.existsSync(path.join(dir, "checkpoint.json"));
      },
      30_000,
      10,
    );
    // The disk fills while the run goes; 32 KiB stay free: enough for result.json, not for
    // equity.csv (2148 rows, about 140 KB).
    if (mount) fillDisk(mount.dir, 32);
    const r = await child;
    expect(r.status, r.stderr).toBe(1);
    const dir = runDirs(runs)[0] as string;
    const result = readJson<Result>(path.join(dir, "result.json"));
    expect(result.status).toBe("failed");
    expect(result.error?.type).toBe("AtomicWriteError");
    expect(result.error?.message).toContain(`Could not write ${path.join(dir, "equity.csv")}`);
    expect(result.error?.message).toContain("ENOSPC");
    expect(r.stderr).toContain(`${path.join(dir, "equity.csv")}: ENOSPC`);
    expect(fs.existsSync(path.join(dir, "equity.csv"))).toBe(false);
    expect(fs.readdirSync(dir).filter((f) => f.endsWith(".tmp"))).toEqual([]);
    expect(fs.existsSync(path.join(dir, "run.lock"))).toBe(false);
  }, 60_000);

  it("result.json itself cannot be written at the end: stderr says so, and list shows the run interrupted (process gone), not running", () => {
    const runs = path.join(work, "runs-result");
    const r = cli(
      runArgs("strategies/buy-and-hold.ts", GOOG, runs),
      work,
      // The first write of result.json (status running) works; the final one fails.
      enospcEnv("result\\.json", 1),
    );
    expect(r.status).toBe(1);
    const dir = runDirs(runs)[0] as string;
    expect(r.stderr).toContain(
      `The run in ${dir} ended completed, but its result.json could not be written`,
    );
    expect(r.stderr).toContain("ENOSPC");
    expect(readJson<Result>(path.join(dir, "result.json")).status).toBe("running");
    const list = JSON.parse(cli(["list", "--runs-dir", runs, "--json"], work).stdout);
    expect(list.runs[0].status).toBe("interrupted (process gone)");
  }, 60_000);
});

describe("JSONL appends and the LLM cache on a full disk", async () => {
  const server = await startScriptedServer(() => ({ content: "hold" }));
  afterAll(() => server.close());
  const spy = sliceCsv(path.join(DATA, "SPY_D.csv"), 3, work, "SPY.csv");
  const llmArgs = (runs: string, cacheDir: string, url = server.url) => [
    "run",
    "--prompt",
    "Trade SPY.",
    "--data",
    spy,
    "--base-url",
    url,
    "--no-moments",
    "--no-ui",
    "--runs-dir",
    runs,
    "--cache-dir",
    cacheDir,
  ];

  it("transcript.jsonl: a short write then ENOSPC leaves only whole lines, and the run fails naming the file", async () => {
    const runs = path.join(work, "runs-transcript");
    // The first call's line is appended; the second's is half written, then the disk is full.
    const r = await cliRun(
      llmArgs(runs, path.join(work, "cache-transcript")),
      work,
      enospcEnv("transcript\\.jsonl", 1),
    );
    expect(r.status).toBe(1);
    const dir = runDirs(runs)[0] as string;
    const file = path.join(dir, "transcript.jsonl");
    const text = fs.readFileSync(file, "utf8");
    expect(text.endsWith("\n")).toBe(true);
    expect(readJsonl(file).map((e) => e.seq)).toEqual([1]);
    const result = readJson<Result>(path.join(dir, "result.json"));
    expect(result.status).toBe("failed");
    expect(result.error?.type).toBe("AppendError");
    expect(result.error?.message).toContain(`Could not append to ${file}: ENOSPC`);
    expect(r.stderr).toContain(`Could not append to ${file}`);
  }, 60_000);

  it("answers the cache cannot store are counted in result.json (llm.cacheWriteFailures) and warned about on stderr", async () => {
    const runs = path.join(work, "runs-cache");
    const mount = mountTmpfs(path.join(work, "tmpfs-cache"), 256);
    if (mount) {
      mounts.push(mount);
      fillDisk(mount.dir, 0);
    }
    const cacheDir = path.join(mount ? mount.dir : work, "cache-full");
    if (mount) fs.mkdirSync(cacheDir);
    const r = await cliRun(
      llmArgs(runs, cacheDir),
      work,
      mount ? process.env : enospcEnv("cache-full"),
    );
    // The run itself is fine: the cache only ever speeds things up.
    expect(r.status, r.stderr).toBe(0);
    const dir = runDirs(runs)[0] as string;
    const result = readJson<Result>(path.join(dir, "result.json"));
    expect(result.status).toBe("completed");
    // Three bars, one model call each (no moments): three answers not stored.
    expect(result.llm?.cacheWriteFailures).toBe(3);
    expect(result.warnings.join("\n")).toContain(
      "3 model answers could not be written to the LLM cache",
    );
    // Warned once while the run goes (ENOSPC named), and again at the end with the count.
    expect(r.stderr.match(/The LLM cache could not store an answer/g)).toHaveLength(1);
    expect(r.stderr).toContain("ENOSPC");
    expect(r.stderr).toContain("WARNING: 3 model answers could not be written to the LLM cache");
  }, 60_000);

  it("a memory note the agent writes on a full disk fails the run naming the file (not a tool error the model may ignore)", async () => {
    const notes = await startScriptedServer((req) => {
      if (turnMessages(req).some((m) => m.role === "tool")) return { content: "ok" };
      if (userOf(req).includes("Bar 1 of")) {
        return {
          toolCalls: [
            {
              name: "memory_note",
              arguments: JSON.stringify({ key: "thesis", content: "SPY trends up." }),
            },
          ],
        };
      }
      return { content: "hold" };
    });
    try {
      const runs = path.join(work, "runs-note");
      const r = await cliRun(
        llmArgs(runs, path.join(work, "cache-note"), notes.url),
        work,
        enospcEnv("thesis\\.md"),
      );
      expect(r.status).toBe(1);
      const dir = runDirs(runs)[0] as string;
      const result = readJson<Result>(path.join(dir, "result.json"));
      expect(result.status).toBe("failed");
      expect(result.error?.type).toBe("AtomicWriteError");
      expect(result.error?.message).toContain(
        `Could not write ${path.join(dir, "notes", "thesis.md")}: ENOSPC`,
      );
      expect(fs.existsSync(path.join(dir, "notes", "thesis.md"))).toBe(false);
    } finally {
      await notes.close();
    }
  }, 60_000);
});
