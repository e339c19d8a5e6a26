import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runOptions } from "../../src/cli/run-options.js";
import { checkSettings } from "../../src/config/check-setting.js";
import {
  BROKER_SETTINGS,
  DEFAULT_AGENT_OPTIONS,
  DEFAULT_BROKER_CONFIG,
  DEFAULT_RECALL_OPTIONS,
} from "../../src/config/run-settings.js";
import { fn } from "../../src/config/setting.js";
import { RUN_SETTINGS_SCHEMA } from "../../src/config/settings-schema.js";
import { loadCsv } from "../../src/data/load-csv.js";
import { alignSeries } from "../../src/engine/align-series.js";
import { UsageError } from "../../src/errors/usage-error.js";
import { backtest } from "../../src/runner/backtest.js";
import { simulate } from "../../src/runner/simulate.js";
import { tempDir } from "../helpers/cli.js";
import { badSettings, GOOG, reasonOf, STRATEGY } from "./bad-settings.js";

// The library's half of the settings contract (no child process): every numeric and choice
// setting the library takes refuses a bad value with a UsageError in the command line's words.

const work = tempDir("agenticbt-settings-");
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

describe("the library checks every setting as the command line does", () => {
  const cases = badSettings().filter((c) => c.library !== null);

  it("covers every numeric and choice setting the library takes", () => {
    expect(cases.length).toBeGreaterThan(50);
  });

  it.each(cases.map((c) => [c.name, c] as const))("%s is refused", async (_name, c) => {
    const runsRoot = path.join(work, c.name.replace(/\W+/g, "_"));
    const run = c.library?.(runsRoot) ?? Promise.resolve();
    const err = await run.then(
      () => null,
      (e: unknown) => e,
    );
    expect(err, c.name).toBeInstanceOf(UsageError);
    const message = (err as Error).message;
    // It names the setting, and says what it takes (the range's bounds, or the choices).
    const [subject] = c.name.split(" = ");
    const key = (subject as string).split(".").at(-1) as string;
    expect(message).toContain(key === "hookTimeout" ? "hookTimeoutMs" : key);
    expect(reasonOf(message)).not.toMatch(/^\(no reason/);
    if (c.setting.kind === "number") {
      for (const bound of Object.values(c.setting.range).filter((v) => typeof v === "number"))
        expect(message).toContain(String(bound));
      if (c.setting.range.integer) expect(message).toContain("a whole ");
    }
    // Refused before anything is written.
    expect(fs.existsSync(runsRoot)).toBe(false);
  });

  it("backtest({ broker: { commissionRate: -0.5 } }) throws instead of trading on", async () => {
    await expect(
      backtest({ strategy: STRATEGY, data: [GOOG], broker: { commissionRate: -0.5 } }),
    ).rejects.toThrow(
      "broker.commissionRate -0.5 is not valid: it must be a number >= 0 and <= 0.5.",
    );
  });

  it("simulate() checks its broker too", async () => {
    const { series } = loadCsv(GOOG);
    await expect(
      simulate({
        data: alignSeries([series]),
        broker: { ...DEFAULT_BROKER_CONFIG, tickSize: 0 },
        strategy: { name: "idle", onBar() {} },
      }),
    ).rejects.toThrow("broker.tickSize 0 is not valid: it must be a number > 0.");
  });

  it("values at the edge of a range are taken", async () => {
    const r = await backtest({
      strategy: STRATEGY,
      data: [GOOG],
      broker: { commissionRate: 0.5, slippageRate: 0, shortMargin: 10, volumeCap: 1 },
    });
    expect(r.status).toBe("completed");
  });

  it("an unknown key names the one meant, in the broker and its risk limits", async () => {
    await expect(
      backtest({ strategy: STRATEGY, data: [GOOG], broker: { cash: 5 } as never }),
    ).rejects.toThrow('Unknown broker option "cash": did you mean "initialCash"?');
    await expect(
      backtest({
        strategy: STRATEGY,
        data: [GOOG],
        broker: { risk: { maxOpenPosition: 2 } } as never,
      }),
    ).rejects.toThrow('Unknown risk limit "maxOpenPosition": did you mean "maxOpenPositions"?');
  });

  it("a function-valued setting (the library's alone) is checked like the others", () => {
    // How a commission function joins the broker's settings: one entry, no flag.
    const settings = {
      ...BROKER_SETTINGS,
      fee: fn<(units: number, price: number) => number>({
        group: "broker",
        help: "commission of a fill",
      }),
    };
    const what = { name: "broker option", prefix: "broker." };
    const fee = (units: number, price: number) => units * price * 0.001;
    expect(checkSettings(settings, { fee }, what).fee).toBe(fee);
    expect(checkSettings(settings, {}, what).fee).toBeNull();
    expect(() => checkSettings(settings, { fee: 0.001 }, what)).toThrow(
      "broker.fee 0.001 is not valid: expected a function.",
    );
    expect(() => checkSettings(settings, { fees: fee }, what)).toThrow(
      'Unknown broker option "fees": did you mean "fee"?',
    );
    // No command-line option is made for it.
    expect(runOptions().some((o) => o.settings.includes(settings.fee))).toBe(false);
  });

  it("the one zod schema gives the defaults the library exports", () => {
    const parsed = RUN_SETTINGS_SCHEMA.parse({
      broker: {},
      data: {},
      run: {},
      memory: {},
      recall: {},
      agent: {},
      output: {},
    });
    expect(parsed.broker).toEqual(DEFAULT_BROKER_CONFIG);
    expect(parsed.agent).toEqual(DEFAULT_AGENT_OPTIONS);
    expect(parsed.recall).toEqual(DEFAULT_RECALL_OPTIONS);
    // Key order too: config.json writes them in this order.
    expect(Object.keys(parsed.broker)).toEqual(Object.keys(DEFAULT_BROKER_CONFIG));
    expect(Object.keys(parsed.agent)).toEqual(Object.keys(DEFAULT_AGENT_OPTIONS));
  });
});
