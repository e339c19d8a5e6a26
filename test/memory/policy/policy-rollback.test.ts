import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { memoryPolicyOf } from "../../../src/cli/run-command.js";
import {
  DEFAULT_MEMORY_POLICY,
  policyProposalSchema,
  recordedPolicy,
} from "../../../src/memory/policy/memory-policy.js";
import { PolicyError } from "../../../src/memory/policy/policy-errors.js";
import { rollbackPolicy } from "../../../src/memory/policy/policy-rollback.js";
import { PolicyState } from "../../../src/memory/policy/policy-state.js";
import { tempDir } from "../../helpers/cli.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});
const work = () => {
  const d = tempDir();
  dirs.push(d);
  return d;
};
const t = (iso: string) => Date.parse(`${iso}T00:00:00Z`);
const readJson = (file: string) => JSON.parse(fs.readFileSync(file, "utf8"));

/** A run directory whose agent changed retrieve_limit 20 → 6 in January, 6 → 3 in February. */
function evolvedRun(): string {
  const dir = work();
  fs.writeFileSync(path.join(dir, "config.json"), "{}\n");
  const state = new PolicyState(
    dir,
    { ...DEFAULT_MEMORY_POLICY, evolution_enabled: true },
    { evolution_enabled: true },
  );
  const propose = (month: string, day: string, index: number, limit: number) => {
    state.openMonthEnd(month, index);
    const p = policyProposalSchema.parse({ retrieve_limit: limit, reason: "focus" });
    state.propose(p, { time: t(day), label: day, index });
  };
  propose("2024-01", "2024-01-31", 21, 6);
  propose("2024-02", "2024-02-29", 41, 3);
  return dir;
}

describe("policy rollback", () => {
  it("restores the policy before a snapshot, after backing up the current overrides", () => {
    const dir = evolvedRun();
    const overrides = path.join(dir, "policy_overrides.json");
    const current = fs.readFileSync(overrides, "utf8");
    expect(JSON.parse(current)).toEqual({ evolution_enabled: true, retrieve_limit: 3 });
    const out = rollbackPolicy(dir, "2");
    expect(out.snapshot).toBe("002_2024-02.json");
    expect(out.backup).toBe("policy_backups/policy_overrides.1.json");
    expect(fs.readFileSync(path.join(dir, out.backup as string), "utf8")).toBe(current);
    // Before February's change: January's policy, retrieve_limit 6.
    expect(readJson(overrides)).toEqual({
      ...DEFAULT_MEMORY_POLICY,
      evolution_enabled: true,
      retrieve_limit: 6,
    });
    // By file name too; a second rollback keeps the first backup.
    const again = rollbackPolicy(dir, "001_2024-01");
    expect(again.backup).toBe("policy_backups/policy_overrides.2.json");
    expect(readJson(overrides).retrieve_limit).toBe(20);
  });

  it("refuses an unknown snapshot, listing the run's snapshots", () => {
    const dir = evolvedRun();
    expect(() => rollbackPolicy(dir, "7")).toThrow(PolicyError);
    expect(() => rollbackPolicy(dir, "7")).toThrow(/Its snapshots: 001_2024-01, 002_2024-02\./);
    const none = work();
    expect(() => rollbackPolicy(none, "001")).toThrow(/This run has none/);
    expect(fs.existsSync(path.join(none, "policy_overrides.json"))).toBe(false);
  });

  it("--policy-from carries a run's policy_overrides.json, under --policy-overrides", () => {
    const dir = evolvedRun();
    const block = { retrieve_limit: 9, recent_days: 4 };
    const carried = memoryPolicyOf({ policyFrom: dir }, block);
    expect(carried.policy).toEqual({
      ...DEFAULT_MEMORY_POLICY,
      recent_days: 4,
      evolution_enabled: true,
      retrieve_limit: 3,
    });
    expect(carried.policyFrom).toBe(dir);
    const file = path.join(work(), "over.json");
    fs.writeFileSync(file, JSON.stringify({ retrieve_limit: 2 }));
    expect(
      memoryPolicyOf({ policyFrom: dir, policyOverrides: file }, block).policy.retrieve_limit,
    ).toBe(2);
    // A run without overrides carries nothing.
    const plain = work();
    fs.writeFileSync(path.join(plain, "config.json"), "{}\n");
    expect(memoryPolicyOf({ policyFrom: plain }, block).policy.retrieve_limit).toBe(9);
  });

  it("a policy recorded before the new keys reads with their defaults", () => {
    const old = { ...DEFAULT_MEMORY_POLICY } as Record<string, unknown>;
    delete old.session_relevant_history_limit;
    delete old.playbook_compress_char_threshold;
    expect(recordedPolicy({ ...old, retrieve_limit: 4 })).toEqual({
      ...DEFAULT_MEMORY_POLICY,
      retrieve_limit: 4,
    });
    expect(recordedPolicy({ retrieve_limit: 0 })).toBeNull();
  });
});
