import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { reportLocation } from "../../src/cli/report-location.js";
import { tempDir } from "../helpers/cli.js";

const work = tempDir();
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

describe("the line that ends a run", () => {
  it("names report.html when it is there, else the command that writes it", () => {
    const underDefault = path.join(work, ".agenticbt", "runs", "20260101-0000-x");
    fs.mkdirSync(underDefault, { recursive: true });
    expect(reportLocation(underDefault, "20260101-0000-x", work)).toBe(
      "Report not written: agenticbt report 20260101-0000-x writes it",
    );
    fs.writeFileSync(path.join(underDefault, "report.html"), "<!doctype html>");
    expect(reportLocation(underDefault, "20260101-0000-x", work)).toBe(
      `Report ${path.join(".agenticbt", "runs", "20260101-0000-x", "report.html")}`,
    );
    // Under another runs root the id alone would not find it: the directory is named, quoted.
    const elsewhere = path.join(work, "my runs", "r1");
    fs.mkdirSync(elsewhere, { recursive: true });
    expect(reportLocation(elsewhere, "r1", work)).toBe(
      "Report not written: agenticbt report 'my runs/r1' writes it",
    );
    // A link in report.html's place is not the run's page.
    fs.symlinkSync(path.join(underDefault, "report.html"), path.join(elsewhere, "report.html"));
    expect(reportLocation(elsewhere, "r1", work)).toContain("Report not written");
  });
});
