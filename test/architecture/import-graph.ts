import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, posix, relative, resolve } from "node:path";

/** One import between two files under src/, by their paths relative to src/. */
export interface Arrow {
  from: string;
  to: string;
}

/** Every .ts/.tsx file under `dir`, relative to `root`, with forward slashes. */
export function sourceFiles(root: string, dir = root): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...sourceFiles(root, path));
    else if (/\.tsx?$/.test(entry.name) && !entry.name.endsWith(".d.ts")) {
      found.push(relative(root, path).split("\\").join("/"));
    }
  }
  return found.sort();
}

/** Comments removed, strings kept: an import inside a comment is not an import. */
export function withoutComments(text: string): string {
  let out = "";
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    const next = text[i + 1];
    if (c === "/" && next === "/") {
      while (i < text.length && text[i] !== "\n") i++;
    } else if (c === "/" && next === "*") {
      const end = text.indexOf("*/", i + 2);
      i = end === -1 ? text.length : end + 2;
    } else if (c === '"' || c === "'" || c === "`") {
      const start = i++;
      while (i < text.length && text[i] !== c) i += text[i] === "\\" ? 2 : 1;
      out += text.slice(start, ++i);
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

// Static `import … from`, `import type … from`, `export … from`, bare `import "x"`, and
// `import("x")` / `await import("x")` with a literal specifier (type-only imports count too).
const SPECIFIERS = [
  /\b(?:import|export)\s+(?:type\s+)?[^;"'`]*?\bfrom\s*["']([^"']+)["']/g,
  /\bimport\s*["']([^"']+)["']/g,
  /\bimport\s*\(\s*["'`]([^"'`$]+)["'`]\s*[,)]/g,
];

/** The relative specifiers a source file imports. */
export function importSpecifiers(text: string): string[] {
  const code = withoutComments(text);
  const found = new Set<string>();
  for (const pattern of SPECIFIERS) {
    for (const match of code.matchAll(pattern)) {
      const specifier = match[1];
      if (specifier?.startsWith(".")) found.add(specifier);
    }
  }
  return [...found];
}

/** A `./x.js` specifier resolved to the .ts/.tsx file it names, relative to src/. */
function resolveSpecifier(from: string, specifier: string, files: Set<string>): string {
  const joined = posix.normalize(posix.join(posix.dirname(from), specifier));
  const stem = joined.replace(/\.(js|jsx|mjs)$/, "");
  for (const candidate of [`${stem}.ts`, `${stem}.tsx`, joined, `${stem}/index.ts`]) {
    if (files.has(candidate)) return candidate;
  }
  throw new Error(`${from} imports ${specifier}, which names no file under src/`);
}

/** Every file-to-file import under `srcDir`. */
export function importArrows(srcDir: string): { files: string[]; arrows: Arrow[] } {
  const root = resolve(srcDir);
  const files = sourceFiles(root);
  const known = new Set(files);
  const arrows: Arrow[] = [];
  for (const from of files) {
    const text = readFileSync(join(root, from), "utf8");
    for (const specifier of importSpecifiers(text)) {
      arrows.push({ from, to: resolveSpecifier(from, specifier, known) });
    }
  }
  return { files, arrows };
}

/** The layer folder of a file: its first path segment, or the file itself at the top of src/. */
export function folderOf(file: string): string {
  const slash = file.indexOf("/");
  return slash === -1 ? file : file.slice(0, slash);
}

/** Strongly connected components with more than one member (or a self-loop): the cycles. */
export function cycles(nodes: readonly string[], edges: readonly Arrow[]): string[][] {
  const out = new Map<string, string[]>();
  for (const node of nodes) out.set(node, []);
  for (const { from, to } of edges) out.get(from)?.push(to);
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  // Tarjan's algorithm, iterative so a deep graph cannot overflow the stack.
  for (const start of nodes) {
    if (index.has(start)) continue;
    const work: { node: string; next: number }[] = [{ node: start, next: 0 }];
    index.set(start, counter);
    low.set(start, counter++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const top = work[work.length - 1]!;
      const targets = out.get(top.node) ?? [];
      if (top.next < targets.length) {
        const target = targets[top.next++]!;
        if (!index.has(target)) {
          index.set(target, counter);
          low.set(target, counter++);
          stack.push(target);
          onStack.add(target);
          work.push({ node: target, next: 0 });
        } else if (onStack.has(target)) {
          low.set(top.node, Math.min(low.get(top.node)!, index.get(target)!));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(top.node)!));
      if (low.get(top.node) === index.get(top.node)) {
        const component: string[] = [];
        let member: string | undefined;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== top.node);
        const selfLoop = targets.includes(top.node);
        if (component.length > 1 || selfLoop) found.push(component.sort());
      }
    }
  }
  return found;
}

export const srcDirOf = (testFile: string): string => resolve(dirname(testFile), "../../src");

/** One shortest circle through `component`'s first member, as `a -> b -> a`. */
export function oneCircle(component: readonly string[], edges: readonly Arrow[]): string[] {
  const inside = new Set(component);
  const start = component[0]!;
  const cameFrom = new Map<string, string>();
  const queue = [start];
  for (let k = 0; k < queue.length; k++) {
    const node = queue[k]!;
    for (const { from, to } of edges) {
      if (from !== node || !inside.has(to)) continue;
      if (to === start) {
        const path = [start];
        for (let at: string | undefined = node; at !== start && at; at = cameFrom.get(at)) {
          path.splice(1, 0, at);
        }
        return [...path, start];
      }
      if (!cameFrom.has(to)) {
        cameFrom.set(to, node);
        queue.push(to);
      }
    }
  }
  return [start];
}
