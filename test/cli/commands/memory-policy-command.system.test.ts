import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  DEFAULT_MEMORY_POLICY,
  policyProposalSchema,
} from "../../../src/memory/policy/memory-policy.js";
import { PolicyState } from "../../../src/memory/policy/policy-state.js";
import { cli, DATA, readJson, runArgs, runDirs, tempDir } from "../../helpers/cli.js";

const work = tempDir();
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));
const t = (iso: string) => Date.parse(`${iso}T00:00:00Z`);

/** A finished code run whose policy_snapshots/ we write as its agent would have: 20 → 6 → 3. */
function evolvedRun(): string {
  const r = cli(
    runArgs("strategies/buy-and-hold.ts", path.join(DATA, "GOOG.csv"), "runs", "--json"),
    work,
  );
  expect(r.status, r.stderr).toBe(0);
  const dir = runDirs(path.join(work, "runs"))[0] as string;
  const state = new PolicyState(dir, { ...DEFAULT_MEMORY_POLICY, evolution_enabled: true }, {});
  for (const [month, day, index, limit] of [
    ["2024-01", "2024-01-31", 21, 6],
    ["2024-02", "2024-02-29", 41, 3],
  ] as const) {
    state.openMonthEnd(month, index);
    const p = policyProposalSchema.parse({ retrieve_limit: limit, reason: "focus" });
    state.propose(p, { time: t(day), label: day, index });
  }
  return dir;
}

describe("agenticbt memory policy rollback", () => {
  const dir = evolvedRun();
  const id = path.basename(dir);
  const runsDir = path.join(work, "runs");

  it("refuses an unknown snapshot with exit 2, listing the run's snapshots", () => {
    const r = cli(["memory", "policy", "rollback", id, "9", "--runs-dir", runsDir], work);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('No policy snapshot "9"');
    expect(r.stderr).toContain("Its snapshots: 001_2024-01, 002_2024-02.");
  });

  it("restores the policy before snapshot 2 and backs up the current overrides", () => {
    const r = cli(
      ["memory", "policy", "rollback", id, "002_2024-02", "--runs-dir", runsDir, "--json"],
      work,
    );
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({
      snapshot: "002_2024-02.json",
      backup: "policy_backups/policy_overrides.1.json",
      policy: { retrieve_limit: 6 },
    });
    expect(readJson(path.join(dir, "policy_backups", "policy_overrides.1.json"))).toEqual({
      retrieve_limit: 3,
    });
  });

  it("run --policy-from carries the rolled-back policy to the next run", () => {
    const r = cli(
      runArgs(
        "strategies/buy-and-hold.ts",
        path.join(DATA, "GOOG.csv"),
        "next",
        "--json",
        "--policy-from",
        dir,
      ),
      work,
    );
    expect(r.status, r.stderr).toBe(0);
    const next = runDirs(path.join(work, "next"))[0] as string;
    const config = readJson<{ memoryPolicy: Record<string, unknown> }>(
      path.join(next, "config.json"),
    );
    expect(config.memoryPolicy).toMatchObject({
      policy: { retrieve_limit: 6, evolution_enabled: true },
      policyFrom: dir,
    });
    expect(readJson(path.join(next, "policy_overrides.json"))).toMatchObject({
      retrieve_limit: 6,
    });
    const show = cli(["show", next], work);
    expect(show.status, show.stderr).toBe(0);
    expect(show.stdout).toMatch(/Policy from\s+\S*runs/);
  });
});
