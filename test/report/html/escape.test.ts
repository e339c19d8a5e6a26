import { describe, expect, it } from "vitest";
import { escapeHtml, jsonScript } from "../../../src/report/html/escape.js";

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
