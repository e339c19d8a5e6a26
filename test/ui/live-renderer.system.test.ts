import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { liveRenderer } from "../../src/ui/live-renderer.js";
import { tempDir } from "../helpers/cli.js";

const work = tempDir("agenticbt-live-renderer-");
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

async function failureOf(r: ReturnType<typeof liveRenderer>): Promise<string | null> {
  for (let k = 0; k < 200 && r.failure() === null; k++) {
    await new Promise((done) => setTimeout(done, 50));
  }
  return r.failure();
}

describe("liveRenderer when its worker cannot draw", () => {
  it("says so in one line when it closes, and the run's events still fold without error", async () => {
    const lines: string[] = [];
    const missing = pathToFileURL(path.join(work, "no-such-view.js"));
    const r = liveRenderer({ viewUrl: missing, warn: (l) => lines.push(l) });
    expect(await failureOf(r)).toMatch(/Cannot find module|ERR_MODULE_NOT_FOUND|no-such-view/);
    r.onEvent({ type: "warning", message: "still folded" });
    await r.close();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^agenticbt: the live view could not draw \(.+\); the run itself/);
    expect(lines[0]).toContain("--no-ui");
    // Closing twice reports once.
    await r.close();
    expect(lines).toHaveLength(1);
  });

  it("reports the error a worker throws while it loads", async () => {
    const throwing = path.join(work, "throwing-view.mjs");
    fs.writeFileSync(throwing, 'throw new Error("ink failed to load: no yoga");\n');
    const lines: string[] = [];
    const r = liveRenderer({
      viewUrl: pathToFileURL(throwing),
      warn: (l) => lines.push(l),
    });
    expect(await failureOf(r)).toBe("ink failed to load: no yoga");
    await r.close();
    expect(lines).toEqual([
      "agenticbt: the live view could not draw (ink failed to load: no yoga); the run itself was not affected. --no-ui prints plain progress lines instead.",
    ]);
  });
});
