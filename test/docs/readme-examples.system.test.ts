import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliRun, ROOT, readJson, runDirs, tempDir } from "../helpers/cli.js";
import { isMoment, turnMessages } from "../helpers/llm-run.js";
import { type ScriptedServer, startScriptedServer } from "../helpers/scripted-openai-server.js";

// Every `agenticbt …` command in the README's shell blocks (and `npm run demo`) is run as a user
// would, on the bundled data, so an example can never break silently. LLM examples talk to a
// scripted server on 127.0.0.1 in place of the provider (their --base-url is replaced), which buys
// at the first decision and holds after. A run example must complete, trade, and have no rejected
// order; the other commands must exit 0 and print something.

/** Shell words of one command line: quotes, no expansion. */
function words(line: string): string[] {
  const out: string[] = [];
  const re = /"([^"]*)"|'([^']*)'|(\S+)/g;
  for (let m = re.exec(line); m !== null; m = re.exec(line)) out.push(m[1] ?? m[2] ?? m[3] ?? "");
  return out;
}

/** The README's example commands, continuation lines joined, prompts, comments and redirects cut. */
function readmeCommands(readme: string): string[][] {
  const cmds: string[][] = [];
  for (const block of readme.matchAll(/```(?:sh|bash|console)\n([\s\S]*?)```/g)) {
    const text = (block[1] ?? "").replace(/\\\n\s*/g, " ");
    for (const raw of text.split("\n")) {
      const line = raw
        .replace(/^\$ /, "")
        .replace(/\s#\s.*$/, "")
        .trim();
      if (!line.startsWith("agenticbt ")) continue;
      const argv = words(line.split(" > ")[0] as string).slice(1);
      // The synopsis (`run <strategy> --data <csv…> [options]`) is not an example.
      if (argv.some((a) => a.includes("…") || a.startsWith("["))) continue;
      cmds.push(argv);
    }
  }
  return cmds;
}

const readme = fs.readFileSync(path.join(ROOT, "README.md"), "utf8");
const commands = readmeCommands(readme);
const demo = words(
  (readJson<{ scripts: Record<string, string> }>(path.join(ROOT, "package.json")).scripts.demo ??
    "") as string,
).slice(2); // "node bin/agenticbt run …"

const isLlm = (argv: string[]) =>
  argv.some((a) => a.endsWith(".md") || a === "--model" || a === "--prompt");

const work = tempDir();
const runs = path.join(work, "runs");
let server: ScriptedServer;
let bought = false;
/** The symbol the scripted model buys: the first data file's, named as the CLI names it. */
let symbol = "";

beforeAll(async () => {
  server = await startScriptedServer((req) => {
    if (!bought && !isMoment(req) && turnMessages(req).length === 0) {
      bought = true;
      return {
        toolCalls: [
          {
            name: "place_order",
            arguments: JSON.stringify({ symbol, side: "buy", fraction_of_equity: 0.5 }),
          },
        ],
      };
    }
    return { content: "Holding: nothing in the rules calls for a change." };
  });
});
afterAll(async () => {
  await server.close();
  fs.rmSync(work, { recursive: true, force: true });
});

/** The example's arguments with the runs directory, JSON output and, for LLM runs, our server. */
function asRun(argv: string[]): string[] {
  const out: string[] = [];
  for (let k = 0; k < argv.length; k++) {
    const a = argv[k] as string;
    if (a === "--base-url") {
      k++;
      continue;
    }
    if (a === "--json" || a === "-q") continue;
    out.push(a);
  }
  if (isLlm(argv)) out.push("--base-url", server.url, "--no-cache");
  return [...out, "--runs-dir", runs, "--json", "-q"];
}

const env = { ...process.env, OPENAI_API_KEY: "sk-test-readme", OPENAI_BASE_URL: "" };

describe("README examples", () => {
  it("finds the examples", () => {
    expect(commands.filter((c) => c[0] === "run").length).toBeGreaterThanOrEqual(8);
    expect(demo[0]).toBe("run");
  });

  const runExamples = [demo, ...commands.filter((c) => c[0] === "run")];
  for (const argv of runExamples) {
    it(`agenticbt ${argv.join(" ")}`, { timeout: 120_000 }, async () => {
      bought = false;
      const file = argv[argv.indexOf("--data") + 1] as string;
      symbol = (
        path.basename(file.split("=").pop() as string).split(/[-_.]/)[0] as string
      ).toUpperCase();
      const r = await cliRun(asRun(argv), ROOT, env);
      expect(r.status, r.stderr).toBe(0);
      const result = JSON.parse(r.stdout) as {
        status: string;
        metrics: { trades: number };
        orders: { rejected: number };
      };
      expect(result.status).toBe("completed");
      expect(result.metrics.trades).toBeGreaterThan(0);
      expect(result.orders.rejected, r.stderr).toBe(0);
    });
  }

  // The inspecting commands run against the runs made above: <run> is the first LLM run (it has
  // decisions and memory), <runA> / <runB> the first two runs.
  const others = commands.filter((c) => c[0] !== "run");
  for (const argv of others) {
    it(`agenticbt ${argv.join(" ")}`, { timeout: 60_000 }, async () => {
      const dirs = runDirs(runs);
      const llmRun = dirs.find((d) => fs.existsSync(path.join(d, "transcript.jsonl")));
      expect(llmRun).toBeDefined();
      const args = argv.map((a) =>
        a === "<run>"
          ? path.basename(llmRun as string)
          : a === "<runA>"
            ? path.basename(dirs[0] as string)
            : a === "<runB>"
              ? path.basename(dirs[1] as string)
              : a,
      );
      const r = await cliRun([...args, "--runs-dir", runs], ROOT, env);
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout.trim().length).toBeGreaterThan(0);
      // A dated example must land inside the run it inspects.
      const at = args.indexOf("--at");
      if (at >= 0) expect(r.stdout).toContain(args[at + 1]);
    });
  }
});
