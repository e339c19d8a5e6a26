import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cliRun, DATA, ROOT, tempDir } from "../helpers/cli.js";

const work = tempDir();
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

// No test may reach a real provider: a prompt that slipped through would call this dead port.
const env = { ...process.env, OPENAI_BASE_URL: "http://127.0.0.1:9/v1", OPENAI_API_KEY: "" };
const runsRoot = path.join(work, "runs");
const listing = (dir: string) => (fs.existsSync(dir) ? fs.readdirSync(dir).sort() : []);

describe("bad usage exits 2 before a run directory exists", () => {
  const preset = path.join(work, "exp.md");
  fs.writeFileSync(preset, "# experience\n");
  const base = [
    "--data",
    path.join(DATA, "GOOG.csv"),
    "--to",
    "2004-09-30",
    "--runs-dir",
    runsRoot,
    "-q",
  ];

  for (const target of ["../x.md", "/tmp/x.md", "notes/../../x.md", "journal/x.md"]) {
    it(`--preset ${target}=… is refused at option parsing`, async () => {
      const before = listing(runsRoot);
      const r = await cliRun(
        [
          "run",
          path.join(ROOT, "strategies/buy-and-hold.ts"),
          ...base,
          "--preset",
          `${target}=${preset}`,
        ],
        work,
        env,
      );
      expect(r.status, r.stderr).toBe(2);
      expect(r.stderr).toContain("--preset");
      expect(r.stderr).toContain("notes/<key>.md");
      expect(listing(runsRoot)).toEqual(before);
      expect(fs.existsSync(path.join(work, "x.md"))).toBe(false);
    });
  }

  for (const prompt of ["", "   \n\t "]) {
    it(`--prompt ${JSON.stringify(prompt)} is refused`, async () => {
      const before = listing(runsRoot);
      const r = await cliRun(["run", "--prompt", prompt, ...base], work, env);
      expect(r.status, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/--prompt/);
      expect(listing(runsRoot)).toEqual(before);
    });
  }

  it("--replay is refused a bad --metrics as a run is, before it reads the run", async () => {
    const metrics = ["--metrics", "everything"];
    const run = await cliRun(
      ["run", path.join(ROOT, "strategies/buy-and-hold.ts"), ...base, ...metrics],
      work,
      env,
    );
    const replay = await cliRun(
      ["run", "--replay", "no-such-run", "--runs-dir", runsRoot, "-q", ...metrics],
      work,
      env,
    );
    expect(run.status, run.stderr).toBe(2);
    expect(replay.status, replay.stderr).toBe(2);
    expect(replay.stderr).toContain("--metrics");
    expect(replay.stderr).toBe(run.stderr);
  });

  it('--cache-dir "" is refused', async () => {
    const before = listing(runsRoot);
    const r = await cliRun(["run", "--prompt", "hold", ...base, "--cache-dir", " "], work, env);
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toContain("--cache-dir");
    expect(listing(runsRoot)).toEqual(before);
  });

  it("a good preset still runs (the check is not over-eager)", async () => {
    const r = await cliRun(
      [
        "run",
        path.join(ROOT, "strategies/buy-and-hold.ts"),
        ...base,
        "--preset",
        `notes/experience.md=${preset}`,
        "--json",
      ],
      work,
      env,
    );
    expect(r.status, r.stderr).toBe(0);
    const id = JSON.parse(r.stdout).id as string;
    expect(fs.readFileSync(path.join(runsRoot, id, "notes", "experience.md"), "utf8")).toBe(
      "# experience\n",
    );
  });
});
