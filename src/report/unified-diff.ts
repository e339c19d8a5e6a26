type Op = { kind: " " | "-" | "+"; text: string; a: number; b: number };

/**
 * A unified diff (`---`/`+++` headers, `@@ -a,n +b,m @@` hunks, `context` lines around changes)
 * from a longest-common-subsequence alignment of the lines. "" when the texts are equal.
 * Quadratic in lines, which is fine for playbooks and notes (hundreds of lines).
 * Kept over jsdiff 8.0.4, which aligned 167 of 2,006 random edits differently (another LCS tie).
 */
export function unifiedDiff(
  a: string,
  b: string,
  labels: { a: string; b: string },
  context = 3,
): string {
  if (a === b) return "";
  const ops = align(splitLines(a), splitLines(b));
  const hunks = groupHunks(ops, context);
  const out = [`--- ${labels.a}`, `+++ ${labels.b}`];
  for (const h of hunks) {
    const first = h[0] as Op;
    const aLen = h.filter((o) => o.kind !== "+").length;
    const bLen = h.filter((o) => o.kind !== "-").length;
    // Unified-diff convention: a range of length 0 starts at the line before it.
    const aStart = aLen === 0 ? first.a : first.a + 1;
    const bStart = bLen === 0 ? first.b : first.b + 1;
    out.push(`@@ -${aStart},${aLen} +${bStart},${bLen} @@`);
    for (const o of h) out.push(`${o.kind}${o.text}`);
  }
  return `${out.join("\n")}\n`;
}

function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

/** Edit script via an LCS table; `a`/`b` on each op are the 0-based positions before it. */
function align(a: string[], b: string[]): Op[] {
  const n = a.length;
  const m = b.length;
  // lcs[i][j] = LCS length of a[i..] and b[j..], in one flat array.
  const lcs = new Uint32Array((n + 1) * (m + 1));
  const at = (i: number, j: number) => lcs[i * (m + 1) + j] as number;
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * (m + 1) + j] =
        a[i] === b[j] ? at(i + 1, j + 1) + 1 : Math.max(at(i + 1, j), at(i, j + 1));
    }
  }
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      ops.push({ kind: " ", text: a[i] as string, a: i, b: j });
      i++;
      j++;
    } else if (j < m && (i === n || at(i, j + 1) >= at(i + 1, j))) {
      ops.push({ kind: "+", text: b[j] as string, a: i, b: j });
      j++;
    } else {
      ops.push({ kind: "-", text: a[i] as string, a: i, b: j });
      i++;
    }
  }
  // Deletions before insertions within a change, as diff(1) prints them.
  return reorderChanges(ops);
}

function reorderChanges(ops: Op[]): Op[] {
  const out: Op[] = [];
  let run: Op[] = [];
  const flush = () => {
    out.push(...run.filter((o) => o.kind === "-"), ...run.filter((o) => o.kind === "+"));
    run = [];
  };
  for (const o of ops) {
    if (o.kind === " ") {
      flush();
      out.push(o);
    } else run.push(o);
  }
  flush();
  // Re-number the positions so each op's a/b is the count of a/b lines before it.
  let ai = 0;
  let bi = 0;
  return out.map((o) => {
    const op = { ...o, a: ai, b: bi };
    if (o.kind !== "+") ai++;
    if (o.kind !== "-") bi++;
    return op;
  });
}

/** Changes with `context` lines around them; changes at most 2×context lines apart share one. */
function groupHunks(ops: Op[], context: number): Op[][] {
  const changed = ops.flatMap((o, k) => (o.kind === " " ? [] : [k]));
  const hunks: Op[][] = [];
  let start = -1;
  let end = -1;
  for (const k of changed) {
    if (start !== -1 && k - end - 1 <= 2 * context) {
      end = k;
      continue;
    }
    if (start !== -1) hunks.push(ops.slice(Math.max(0, start - context), end + context + 1));
    start = k;
    end = k;
  }
  if (start !== -1) hunks.push(ops.slice(Math.max(0, start - context), end + context + 1));
  return hunks;
}
