import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { UsageError } from "../../src/errors/run-errors.js";
import { PROJECT_CONFIG_FILE, readProviderLimits } from "../../src/runner/project-config.js";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

/** A working directory whose agenticbt.config.json holds `config`. */
function withConfig(config: unknown): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "agenticbt-project-config-"));
  dirs.push(dir);
  fs.writeFileSync(path.join(dir, PROJECT_CONFIG_FILE), JSON.stringify(config));
  return dir;
}

describe("agenticbt.config.json's providers", () => {
  it("reads each provider's limits under its flags' names, checked as the flags are", () => {
    const dir = withConfig({
      memory: {},
      providers: [
        { baseURL: " http://localhost:11434/v1 ", concurrency: 1 },
        { model: "gpt-4o-mini", rpm: 500, tpm: 200000, "rate-window": 1 },
      ],
    });
    expect(readProviderLimits(dir)).toEqual([
      { baseURL: "http://localhost:11434/v1", model: null, limits: { concurrency: 1 } },
      { baseURL: null, model: "gpt-4o-mini", limits: { rpm: 500, tpm: 200000, rateWindowS: 1 } },
    ]);
  });

  it("is empty without the file or the list", () => {
    const none = fs.mkdtempSync(path.join(os.tmpdir(), "agenticbt-project-config-"));
    dirs.push(none);
    expect(readProviderLimits(none)).toEqual([]);
    expect(readProviderLimits(withConfig({ memory: {} }))).toEqual([]);
  });

  it.each([
    [{ providers: { rpm: 5 } }, '"providers" must be a list'],
    [{ providers: [5] }, "providers[0] must be an object"],
    [{ providers: [{ rpm: 0 }] }, "providers[0].rpm 0 is not valid"],
    [{ providers: [{ concurrency: 1.5 }] }, "providers[0].concurrency 1.5 is not valid"],
    [{ providers: [{}, { rps: 2 }] }, 'providers[1] has an unknown key "rps"'],
    [{ providers: [{ model: "" }] }, "providers[0].model must be a text"],
  ])("refuses %j", (config, message) => {
    const dir = withConfig(config);
    expect(() => readProviderLimits(dir)).toThrow(UsageError);
    expect(() => readProviderLimits(dir)).toThrow(message);
  });
});
