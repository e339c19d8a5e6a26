// Writes README.md's table of `agenticbt run`'s options from the settings (src/config):
// `npm run docs:options`. test/docs/readme-options.test.ts fails when the table is stale.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { README_OPTIONS, withOptionsTable } from "../src/cli/run-options.js";

const readme = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "README.md");
const text = fs.readFileSync(readme, "utf8");
const next = withOptionsTable(text);
if (next === text) console.log(`${README_OPTIONS.begin} table is up to date`);
else {
  fs.writeFileSync(readme, next);
  console.log("README.md: the run options table is rewritten");
}
