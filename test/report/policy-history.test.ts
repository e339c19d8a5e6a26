import fs from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import {
  DEFAULT_MEMORY_POLICY,
  policyProposalSchema,
} from "../../src/memory/policy/memory-policy.js";
import { PolicyState } from "../../src/memory/policy/policy-state.js";
import { readPolicyHistory } from "../../src/report/policy-history.js";
import { tempDir } from "../helpers/cli.js";

const dir = tempDir();
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe("policy history for diff", () => {
  it("lists each changed key of each snapshot in order, and nothing for a run without evolution", () => {
    const state = new PolicyState(dir, { ...DEFAULT_MEMORY_POLICY, evolution_enabled: true }, {});
    const at = (label: string, index: number) => ({
      time: Date.parse(`${label}T00:00:00Z`),
      label,
      index,
    });
    state.openMonthEnd("2024-01", 20);
    state.propose(
      policyProposalSchema.parse({ retrieve_limit: 4, recent_days: 2, reason: "fewer" }),
      at("2024-01-31", 20),
    );
    state.openMonthEnd("2024-02", 40);
    state.propose(
      policyProposalSchema.parse({ retrieve_limit: 6, reason: "more" }),
      at("2024-02-29", 40),
    );
    expect(readPolicyHistory(dir)).toEqual([
      {
        month: "2024-01",
        effectiveFrom: "2024-02",
        key: "retrieve_limit",
        before: 20,
        after: 4,
        reason: "fewer",
      },
      {
        month: "2024-01",
        effectiveFrom: "2024-02",
        key: "recent_days",
        before: 5,
        after: 2,
        reason: "fewer",
      },
      {
        month: "2024-02",
        effectiveFrom: "2024-03",
        key: "retrieve_limit",
        before: 4,
        after: 6,
        reason: "more",
      },
    ]);
    expect(readPolicyHistory(tempDir())).toEqual([]);
  });
});

describe("the recorded policy at a time (recall --as-of)", () => {
  it("is config.json's policy with the changes whose month has begun", async () => {
    const { recordedPolicyAt } = await import("../../src/report/recorded-policy.js");
    const run = tempDir();
    try {
      fs.writeFileSync(
        `${run}/config.json`,
        JSON.stringify({
          memoryPolicy: { policy: { ...DEFAULT_MEMORY_POLICY, evolution_enabled: true } },
        }),
      );
      const state = new PolicyState(run, { ...DEFAULT_MEMORY_POLICY, evolution_enabled: true }, {});
      state.openMonthEnd("2024-01", 20);
      state.propose(policyProposalSchema.parse({ retrieve_limit: 4, reason: "r" }), {
        time: Date.parse("2024-01-31T00:00:00Z"),
        label: "2024-01-31",
        index: 20,
      });
      expect(recordedPolicyAt(run, Date.parse("2024-01-31T00:00:00Z"))?.retrieve_limit).toBe(20);
      expect(recordedPolicyAt(run, Date.parse("2024-02-01T00:00:00Z"))?.retrieve_limit).toBe(4);
      fs.writeFileSync(`${run}/config.json`, "{}");
      expect(recordedPolicyAt(run, Date.parse("2024-02-01T00:00:00Z"))).toBeNull();
    } finally {
      fs.rmSync(run, { recursive: true, force: true });
    }
  });
});
