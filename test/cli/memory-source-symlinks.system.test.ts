import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cliRun, DATA, runArgs, runDirs, tempDir } from "../helpers/cli.js";
import { filesContaining } from "../helpers/symlink-kit.js";

// `--memory-from` and `--preset` copy files into a new run, and the playbook goes into every
// model request. A source file linked to /proc/self/environ would copy the API key: the run must
// refuse before it starts (exit 2, no run directory left behind).

const work = tempDir();
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

const KEY = "sk-test-SECRET-7f3a9c";
const env = { ...process.env, OPENAI_API_KEY: KEY };
// The child's own environment, as the issue describes; a plain file holding the key elsewhere.
const ENVIRON = fs.existsSync("/proc/self/environ") ? "/proc/self/environ" : writeKeyFile();

function writeKeyFile(): string {
  const file = path.join(work, "environ");
  fs.writeFileSync(file, `OPENAI_API_KEY=${KEY}`);
  return file;
}

function sourceRun(name: string): string {
  const dir = path.join(work, name);
  fs.mkdirSync(path.join(dir, "notes"), { recursive: true });
  fs.writeFileSync(path.join(dir, "config.json"), "{}\n");
  fs.writeFileSync(path.join(dir, "notes", "edge.md"), "fade gaps\n");
  return dir;
}

const run = (runs: string, extra: string[]) =>
  cliRun(
    runArgs("strategies/buy-and-hold.ts", path.join(DATA, "GOOG.csv"), runs, ...extra),
    work,
    env,
  );

describe("memory sources that are links", () => {
  it("--memory-from with playbook.md linked to the environment: exit 2, no run, the key nowhere", async () => {
    const source = sourceRun("source-a");
    fs.symlinkSync(ENVIRON, path.join(source, "playbook.md"));
    const runs = path.join(work, "runs-a");
    const r = await run(runs, ["--memory-from", source]);
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toContain(`${path.join(source, "playbook.md")}: it is a symbolic link`);
    expect(runDirs(runs)).toEqual([]);
    expect(filesContaining(work, KEY).filter((f) => f !== "environ")).toEqual([]);
    expect(r.stdout + r.stderr).not.toContain(KEY);
  });

  it("--memory-from a run directory that is itself a link: exit 2, no run", async () => {
    const source = sourceRun("source-b");
    const link = path.join(work, "source-b-link");
    fs.symlinkSync(source, link);
    const runs = path.join(work, "runs-b");
    const r = await run(runs, ["--memory-from", link]);
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toContain(`${link}: it is a symbolic link`);
    expect(runDirs(runs)).toEqual([]);
  });

  it("--preset whose source is a link: exit 2, no run, the key nowhere", async () => {
    const preset = path.join(work, "experience.md");
    fs.symlinkSync(ENVIRON, preset);
    const runs = path.join(work, "runs-c");
    const r = await run(runs, ["--preset", `notes/experience.md=${preset}`]);
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toContain(`${preset}: it is a symbolic link`);
    expect(runDirs(runs)).toEqual([]);
    expect(filesContaining(work, KEY).filter((f) => f !== "environ")).toEqual([]);
  });

  it("a regular --memory-from source still copies its playbook and notes", async () => {
    const source = sourceRun("source-d");
    fs.writeFileSync(path.join(source, "playbook.md"), "# Carried manual\n");
    const runs = path.join(work, "runs-d");
    const r = await run(runs, ["--memory-from", source]);
    expect(r.status, r.stderr).toBe(0);
    const [dir] = runDirs(runs);
    expect(fs.readFileSync(path.join(dir as string, "playbook.md"), "utf8")).toBe(
      "# Carried manual\n",
    );
    expect(fs.readFileSync(path.join(dir as string, "notes", "edge.md"), "utf8")).toBe(
      "fade gaps\n",
    );
  });
});
