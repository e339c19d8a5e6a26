import fs from "node:fs";
import path from "node:path";
import { type Browser, chromium } from "playwright-core";

/** Where a Chromium for the browser tests may be: $CHROMIUM_PATH first, then Debian's paths. */
export function findChromium(): string | null {
  const candidates = [
    process.env.CHROMIUM_PATH,
    "/usr/bin/chromium",
    "/usr/bin/chromium-browser",
  ].filter((p): p is string => typeof p === "string" && p !== "");
  return candidates.find((p) => fs.existsSync(p)) ?? null;
}

/**
 * Headless Chromium, or a failure that says how to get one: a browser test never skips, since a
 * skipped test would let a broken report through CI.
 */
export async function launchChromium(): Promise<Browser> {
  const executablePath = findChromium();
  if (executablePath === null) {
    throw new Error(
      "No Chromium for the report's browser tests: install Debian's package (apt-get install -y chromium) or set CHROMIUM_PATH to a Chromium binary.",
    );
  }
  // CI runs as root, where Chromium's sandbox cannot start.
  return chromium.launch({
    executablePath,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
  });
}

/** A directory for screenshots that survives the test (git-ignored), printed for the reader. */
export function artifactPath(name: string): string {
  const dir = path.resolve(import.meta.dirname, "..", "..", "test-artifacts");
  fs.mkdirSync(dir, { recursive: true });
  return path.join(dir, name);
}
