import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { confirmLaunch, formatEstimate } from "../../src/cli/experiment-estimate-prompt.js";
import { UsageError } from "../../src/errors/usage-error.js";
import { estimateExperiment } from "../../src/sweep/experiment/experiment-estimate.js";

const window = {
  decisionChars: 4000,
  momentChars: 2000,
  bars: 10,
  decisions: 5,
  momentBars: 10,
  tradeMoments: false,
};
const cell = {
  label: "memory=files",
  model: "m",
  price: { input: 1, cachedInput: 1, output: 2 },
  maxSteps: 8,
  maxOutputTokens: null,
  windows: [window],
};
const priced = estimateExperiment([cell], 3, "the default price table");
const unpriced = estimateExperiment(
  [cell, { ...cell, label: "model=x", model: "x", price: null }],
  1,
  "the default price table",
);

/** A stream that keeps what is written to it. */
function sink() {
  const s = new PassThrough();
  let text = "";
  s.on("data", (d: Buffer) => {
    text += d.toString();
  });
  return { s, text: () => text };
}
const tty = (answer: string) => {
  const input = Object.assign(new PassThrough(), { isTTY: true });
  input.end(answer);
  return input;
};
const FLAGS = { yes: false, json: false, quiet: false };

describe("formatEstimate", () => {
  it("says runs, decisions, turns, calls, tokens and $ with their ranges, and the prices used", () => {
    const text = formatEstimate(priced, 100);
    expect(text).toContain("Estimate: 3 runs, 15 decisions, 30 memory turns");
    // 3 runs × (low 15 calls, point 17.5, high 35) (see experiment-estimate.test.ts).
    expect(text).toContain("~53 (45..105) model calls");
    // The cell's row: runs, calls, its first prompt (4,000 characters), tokens, $.
    expect(text).toMatch(/\nmemory=files +3 +~53 +1000 +~/);
    expect(text).toContain("Prices per 1M tokens in/out: m $1/$2");
    expect(text).toContain("the default price table");
    expect(text).toContain("4 characters per token");
  });

  it("fits the terminal: no line wider than 80 columns at 80, the label cut first", () => {
    const long = estimateExperiment(
      [{ ...cell, label: "memory=persistent,model=a-very-long-local-model-name-indeed" }],
      3,
      "the default price table",
    );
    const text = formatEstimate(long, 80);
    for (const line of text.split("\n")) expect(line.length, line).toBeLessThanOrEqual(80);
    expect(text).toContain("memory=persistent");
    expect(text).toContain("…");
  });

  it("shows an unknown price as unknown, with the fix, never $0", () => {
    const text = formatEstimate(unpriced, 100);
    expect(text).toContain("x unknown (pass --prices <file.json>)");
    expect(text).toMatch(/\ntotal .*\$ unknown\n/);
    // The priced cell alone, as a part, at $1 / $2 per 1M: prompt 10,000 / 12,500 / 37,500 and
    // completion 150 / 875 / 14,000 tokens: $0.0103 / $0.01425 / $0.0655.
    expect(text).toMatch(
      /Of the total, the 1 priced cell: ~\$0\.014 \(\$0\.010\.\.\$0\.06[56]\)\./,
    );
    expect(text).not.toContain("$0.00");
  });
});

describe("confirmLaunch", () => {
  it("asks 'Start N runs?' on a terminal, after the estimate: y starts, anything else not", async () => {
    for (const [answer, expected] of [
      ["y\n", true],
      ["n\n", false],
      ["", false],
    ] as const) {
      const out = sink();
      const stdout = sink();
      const io = { input: tty(answer), output: out.s, stdout: stdout.s };
      expect(await confirmLaunch(priced, FLAGS, io), answer).toBe(expected);
      expect(out.text()).toContain("Estimate: 3 runs");
      expect(out.text().endsWith("Start 3 runs? [y/N] ")).toBe(true);
      expect(stdout.text()).toBe("");
    }
  });

  it("off a terminal, without --yes: the estimate on stdout and a usage error naming --yes", async () => {
    const out = sink();
    const stdout = sink();
    const io = { input: new PassThrough(), output: out.s, stdout: stdout.s };
    const refused = confirmLaunch(priced, FLAGS, io);
    await expect(refused).rejects.toThrow(UsageError);
    await expect(refused).rejects.toThrow(/add --yes/);
    expect(stdout.text()).toContain("Estimate: 3 runs");
    const json = sink();
    await expect(
      confirmLaunch(priced, { ...FLAGS, json: true }, { ...io, stdout: json.s }),
    ).rejects.toThrow(UsageError);
    expect(JSON.parse(json.text())).toEqual({ estimate: JSON.parse(JSON.stringify(priced)) });
  });

  it("with --yes: starts without asking, the estimate shown unless quiet or --json", async () => {
    for (const [flags, shown] of [
      [{ ...FLAGS, yes: true }, true],
      [{ ...FLAGS, yes: true, quiet: true }, false],
      [{ ...FLAGS, yes: true, json: true }, false],
    ] as const) {
      const out = sink();
      const io = { input: new PassThrough(), output: out.s, stdout: sink().s };
      expect(await confirmLaunch(priced, flags, io)).toBe(true);
      expect(out.text().includes("Estimate: 3 runs")).toBe(shown);
      expect(out.text()).not.toContain("[y/N]");
    }
  });
});
