import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { VERSION } from "../src/version.js";
import { cli, ROOT } from "./helpers/cli.js";

describe("version", () => {
  it("src/version.ts matches package.json, and --version prints it", () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
      version: string;
    };
    expect(VERSION).toBe(pkg.version);
    const r = cli(["--version"], ROOT);
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toBe(pkg.version);
  });

  it("an unknown command is bad usage (exit 2)", () => {
    const r = cli(["frobnicate"], ROOT);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("unknown command");
  });
});
