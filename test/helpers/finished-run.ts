import fs from "node:fs";
import path from "node:path";

/**
 * A finished run directory as the runner leaves it, with only what `memory distill` reads:
 * result.json (status and period), the playbook's stamped lessons, the reviews.
 */
export function finishedRunDir(
  runsRoot: string,
  id: string,
  period: { start: string; end: string },
  lessons: string[],
  reviews: Record<string, string> = {},
): string {
  const dir = path.join(runsRoot, id);
  fs.mkdirSync(path.join(dir, "reviews"), { recursive: true });
  const result = {
    id,
    status: "completed",
    strategy: { name: "t", kind: "llm", path: "t.md" },
    data: [{ symbol: "SPY" }],
    period: { ...period, bars: 20 },
    metrics: null,
    benchmark: { metrics: null },
    startedAt: "2026-01-01T00:00:00Z",
    finishedAt: "2026-01-01T00:01:00Z",
  };
  fs.writeFileSync(path.join(dir, "result.json"), JSON.stringify(result));
  const bullets = lessons.map((l, i) => `- [${period.start} 0${i}:00] ${l}`).join("\n");
  fs.writeFileSync(
    path.join(dir, "playbook.md"),
    `# Manual\n\nBuy dips.\n\n## Lessons\n\n${bullets}\n`,
  );
  for (const [key, text] of Object.entries(reviews)) {
    fs.writeFileSync(
      path.join(dir, "reviews", `${key}.md`),
      `<!-- written ${period.end} 00:00 by run ${id} -->\n${text}\n`,
    );
  }
  return dir;
}

/** Midnight UTC of a YYYY-MM-DD date, in ms. */
export const utc = (d: string) => Date.parse(`${d}T00:00:00Z`);
