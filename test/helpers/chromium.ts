import fs from "node:fs";
import path from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";

/** Where a Chromium for the browser tests may be: $CHROMIUM_PATH first, then Debian's paths. */
export function findChromium(): string | null {
  const chosen = process.env.CHROMIUM_PATH;
  // A path the user chose is used or refused, never silently replaced by another browser.
  if (chosen) return fs.existsSync(chosen) ? chosen : null;
  return ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find((p) => fs.existsSync(p)) ?? null;
}

/**
 * Headless Chromium, or a failure that says how to get one: a browser test never skips, since a
 * skipped test would let a broken report through CI.
 */
export async function launchChromium(): Promise<Browser> {
  const executablePath = findChromium();
  if (executablePath === null) {
    throw new Error(
      process.env.CHROMIUM_PATH
        ? `CHROMIUM_PATH=${process.env.CHROMIUM_PATH} does not exist: point it at a Chromium binary, or unset it to use /usr/bin/chromium.`
        : "No Chromium for the report's browser tests: install Debian's package (apt-get install -y chromium) or set CHROMIUM_PATH to a Chromium binary.",
    );
  }
  // CI runs as root, where Chromium's sandbox cannot start.
  return chromium.launch({
    executablePath,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
  });
}

/**
 * For a test file: launches Chromium once; `get()` returns it or throws the reason there is none.
 * The file then has a test that fails with that reason (not a skipped suite).
 */
export function sharedChromium() {
  let browser: Browser | Error | null = null;
  return {
    async start() {
      browser = await launchChromium().catch((err: unknown) => err as Error);
    },
    get(): Browser {
      if (browser === null) throw new Error("Chromium was not started.");
      if (browser instanceof Error) throw browser;
      return browser;
    },
    async close() {
      if (browser !== null && !(browser instanceof Error)) await browser.close();
    },
  };
}

/** A directory for screenshots that survives the test (git-ignored), printed for the reader. */
export function artifactPath(name: string): string {
  const dir = path.resolve(import.meta.dirname, "..", "..", "test-artifacts");
  fs.mkdirSync(dir, { recursive: true });
  return path.join(dir, name);
}

// Code that runs in the page is passed as text: the project's TypeScript has no DOM types.

/** Distinct colours painted in the canvases under `selector` (a blank chart has 0 or 1). */
export function canvasColours(page: Page, selector: string): Promise<number> {
  return page.evaluate(`(() => {
    const colours = new Set();
    for (const c of document.querySelectorAll(${JSON.stringify(`${selector} canvas`)})) {
      if (c.width === 0 || c.height === 0) continue;
      const px = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
      for (let i = 0; i < px.length; i += 16) {
        if (px[i + 3] !== 0) colours.add((px[i] << 16) | (px[i + 1] << 8) | px[i + 2]);
      }
    }
    return colours.size;
  })()`) as Promise<number>;
}

/** The text of every cell of a table's body, row by row. */
export function tableRows(page: Page, tableId: string): Promise<string[][]> {
  return page.evaluate(`Array.from(document.querySelectorAll(${JSON.stringify(`#${tableId} tbody tr`)}),
    (tr) => Array.from(tr.querySelectorAll("td"), (td) => td.textContent))`) as Promise<string[][]>;
}

/** The `data-key` of each body row of a table (a metric's result.json key). */
export function rowKeys(page: Page, tableId: string): Promise<(string | null)[]> {
  return page.evaluate(`Array.from(document.querySelectorAll(${JSON.stringify(`#${tableId} tbody tr`)}),
    (tr) => tr.getAttribute("data-key"))`) as Promise<(string | null)[]>;
}

/** The text of the header cells of a table. */
export function tableHeader(page: Page, tableId: string): Promise<string[]> {
  return page.evaluate(`Array.from(document.querySelectorAll(${JSON.stringify(`#${tableId} thead th`)}),
    (th) => th.textContent)`) as Promise<string[]>;
}
