import { describe, expect, it } from "vitest";
import { escapeHtml, jsonScript } from "../../../src/report/html/escape.js";
import { readableNumber } from "../../../src/report/html/page-parts.js";

describe("escaping run-directory strings for the page", () => {
  it("escapes markup and both quote kinds", () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe(
      "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;",
    );
  });

  it("embeds JSON that no string can break out of, and that parses back to the same value", () => {
    const value = { note: "</script><script>alert(1)</script><!-- \u2028" };
    const html = jsonScript("d", value);
    expect(html.indexOf("</script")).toBe(html.length - "</script>".length);
    expect(html).not.toContain("<!--");
    const json = html.slice(html.indexOf(">") + 1, -"</script>".length);
    expect(JSON.parse(json)).toEqual(value);
  });
});

describe("readableNumber", () => {
  it("rounds to four decimals from 1 up and keeps six significant digits below", () => {
    expect(readableNumber("370.9999999999998")).toBe("371");
    expect(readableNumber("-44.37992000000041")).toBe("-44.3799");
    expect(readableNumber("9.98084751291573e-9")).toBe("9.98085e-9");
    expect(readableNumber("0.000123456789")).toBe("0.000123457");
    expect(readableNumber("53")).toBe("53");
    expect(readableNumber("2004-12-21")).toBe("2004-12-21");
    expect(readableNumber("false")).toBe("false");
  });
});
