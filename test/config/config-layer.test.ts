import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../helpers/cli.js";

// src/config sits at the bottom beside src/util: every layer reads the settings from it, so it
// imports nothing above it (zod, node's modules, util, errors and itself only).

const DIR = path.join(ROOT, "src", "config");

describe("src/config's imports", () => {
  it("are zod, node:*, ../util, ../errors and ./ only", () => {
    const files = fs.readdirSync(DIR).filter((f) => f.endsWith(".ts"));
    expect(files).toContain("run-settings.ts");
    const upward: string[] = [];
    for (const file of files) {
      const text = fs.readFileSync(path.join(DIR, file), "utf8");
      for (const m of text.matchAll(/^(?:import|export)\s[^;]*?from\s*"([^"]+)";/gms)) {
        const spec = m[1] ?? "";
        const ok =
          spec === "zod" ||
          spec.startsWith("node:") ||
          spec.startsWith("./") ||
          spec.startsWith("../util/") ||
          spec.startsWith("../errors/");
        if (!ok) upward.push(`${file}: ${spec}`);
      }
    }
    expect(upward).toEqual([]);
  });

  it("setting.ts and run-settings.ts load no zod (commander's options are built from them)", () => {
    for (const file of ["setting.ts", "run-settings.ts", "base-url.ts"]) {
      const text = fs.readFileSync(path.join(DIR, file), "utf8");
      expect(text, file).not.toMatch(/from "zod"|from "\.\/settings-schema\.js"|check-setting/);
    }
  });
});
