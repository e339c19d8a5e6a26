import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  DEFAULT_MEMORY_POLICY,
  policyProposalSchema,
} from "../../../src/memory/policy/memory-policy.js";
import { PolicyError } from "../../../src/memory/policy/policy-errors.js";
import {
  parsePolicyBlock,
  readOverridesFile,
  resolvePolicy,
} from "../../../src/memory/policy/policy-sources.js";
import { nextMonth, PolicyState } from "../../../src/memory/policy/policy-state.js";
import { readMemoryConfig } from "../../../src/runner/project-config.js";
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

describe("policy sources", () => {
  it("resolve defaults ← config memory block ← overrides, the last to set a key winning", () => {
    const dir = work();
    fs.writeFileSync(
      path.join(dir, "agenticbt.config.json"),
      JSON.stringify({ memory: { retrieve_limit: 7, recent_days: 2, layered: { x: 1 } } }),
    );
    fs.writeFileSync(path.join(dir, "over.json"), JSON.stringify({ retrieve_limit: 3 }));
    const config = parsePolicyBlock(readMemoryConfig(dir), "agenticbt.config.json", ["layered"]);
    const overrides = readOverridesFile(path.join(dir, "over.json"));
    expect(resolvePolicy(config, overrides)).toEqual({
      ...DEFAULT_MEMORY_POLICY,
      retrieve_limit: 3,
      recent_days: 2,
    });
    expect(parsePolicyBlock(readMemoryConfig(work()), "agenticbt.config.json")).toEqual({});
  });

  it("name an unknown key, with the nearest valid one", () => {
    expect(() => parsePolicyBlock({ retreive_limit: 5 }, "agenticbt.config.json")).toThrow(
      /agenticbt\.config\.json: memory\.retreive_limit is not a memory policy key \(did you mean retrieve_limit\?\)/,
    );
  });

  it("reject out-of-range and mistyped values, naming key and value", () => {
    const bad = (block: unknown) => () => parsePolicyBlock(block, "agenticbt.config.json");
    expect(bad({ retrieve_limit: 0 })).toThrow(
      /memory\.retrieve_limit must be from 1 to 20 .*got 0/,
    );
    expect(bad({ recent_days: 2.5 })).toThrow(/memory\.recent_days must be a whole number/);
    expect(bad({ evolution_enabled: "yes" })).toThrow(
      /evolution_enabled must be true or false.*got "yes"/,
    );
    expect(bad([1])).toThrow(PolicyError);
  });
});

describe("evolution", () => {
  it("a month-end proposal is snapshotted and in force from the next month, not before", () => {
    const dir = work();
    const state = new PolicyState(dir, { ...DEFAULT_MEMORY_POLICY, evolution_enabled: true }, {});
    expect(state.at(t("2024-01-31")).retrieve_limit).toBe(20);
    state.openMonthEnd("2024-01", 21);
    const proposal = policyProposalSchema.parse({ retrieve_limit: 4, reason: "less noise" });
    const snap = state.propose(proposal, { time: t("2024-01-31"), label: "2024-01-31", index: 21 });
    expect(snap).toMatchObject({
      seq: 1,
      month: "2024-01",
      effectiveFrom: "2024-02",
      changes: [{ key: "retrieve_limit", before: 20, after: 4 }],
    });
    expect(
      JSON.parse(fs.readFileSync(path.join(dir, "policy_snapshots", "001_2024-01.json"), "utf8")),
    ).toEqual(snap);
    expect(JSON.parse(fs.readFileSync(path.join(dir, "policy_overrides.json"), "utf8"))).toEqual({
      retrieve_limit: 4,
    });
    // Still January: the old policy. From the first February bar: the new one.
    expect(state.at(t("2024-01-31")).retrieve_limit).toBe(20);
    expect(state.at(t("2024-02-01")).retrieve_limit).toBe(4);
    expect(state.stats()).toEqual({ policyProposalsAccepted: 1, policyProposalsRefused: 0 });
  });

  it("refuses proposals off a month end, with evolution off, or that change nothing", () => {
    const dir = work();
    const on = new PolicyState(dir, { ...DEFAULT_MEMORY_POLICY, evolution_enabled: true }, {});
    const p = policyProposalSchema.parse({ recent_days: 3, reason: "r" });
    expect(() => on.propose(p, { time: t("2024-01-15"), label: "2024-01-15", index: 10 })).toThrow(
      /only be proposed at a month end/,
    );
    on.openMonthEnd("2024-01", 21);
    const same = policyProposalSchema.parse({ recent_days: 5, reason: "r" });
    expect(() =>
      on.propose(same, { time: t("2024-01-31"), label: "2024-01-31", index: 21 }),
    ).toThrow(/changes nothing/);
    const off = new PolicyState(work(), DEFAULT_MEMORY_POLICY, {});
    off.openMonthEnd("2024-01", 21);
    expect(() => off.propose(p, { time: t("2024-01-31"), label: "2024-01-31", index: 21 })).toThrow(
      /evolution is off/,
    );
    expect(on.stats().policyProposalsRefused).toBe(2);
    expect(fs.existsSync(path.join(dir, "policy_snapshots"))).toBe(false);
  });

  it("the proposal schema refuses bad values, unknown keys, the evolution switch and empty proposals", () => {
    const bad = (v: unknown) => policyProposalSchema.safeParse(v).success;
    expect(bad({ retrieve_limit: 0, reason: "r" })).toBe(false);
    expect(bad({ retrieve_limit: 5 })).toBe(false);
    expect(bad({ retrive_limit: 5, reason: "r" })).toBe(false);
    expect(bad({ evolution_enabled: false, reason: "r" })).toBe(false);
    expect(bad({ reason: "r" })).toBe(false);
    expect(bad({ long_term_compress_char_threshold: 5000, reason: "r" })).toBe(true);
    expect(nextMonth("2024-12")).toBe("2025-01");
  });
});
