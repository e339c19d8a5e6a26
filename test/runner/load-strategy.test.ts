import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { commonJsScope } from "../../src/runner/load-strategy.js";
import { tempDir } from "../helpers/cli.js";

const root = tempDir();
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

function dirWith(name: string, manifest: object | string | null): string {
  const dir = path.join(root, name, "src");
  fs.mkdirSync(dir, { recursive: true });
  if (manifest !== null) {
    const text = typeof manifest === "string" ? manifest : JSON.stringify(manifest);
    fs.writeFileSync(path.join(root, name, "package.json"), text);
  }
  return dir;
}

describe("which TypeScript files Node takes for CommonJS", () => {
  it("follows the nearest package.json's type, and .cts / .mts whatever it says", () => {
    const esm = dirWith("esm", { type: "module" });
    const cjs = dirWith("cjs", { type: "commonjs" });
    const untyped = dirWith("untyped", { name: "x" });
    const bare = dirWith("bare", null);
    expect(commonJsScope(path.join(esm, "s.ts"))).toBe(false);
    expect(commonJsScope(path.join(esm, "s.cts"))).toBe(true);
    expect(commonJsScope(path.join(cjs, "s.ts"))).toBe(true);
    expect(commonJsScope(path.join(cjs, "s.mts"))).toBe(false);
    expect(commonJsScope(path.join(untyped, "s.tsx"))).toBe(true);
    // No package.json up to the file system's root (a temp dir): CommonJS, as Node decides.
    expect(commonJsScope(path.join(bare, "s.ts"))).toBe(true);
  });
});
