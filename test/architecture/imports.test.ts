import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import {
  type Arrow,
  cycles,
  folderOf,
  importArrows,
  importSpecifiers,
  oneCircle,
} from "./import-graph.js";

/**
 * The layers of src/, bottom first: a folder may import its own layer and those below it, never
 * one above. Peers share a layer; the cycle check keeps their arrows one way.
 */
const LAYERS: readonly (readonly string[])[] = [
  ["util", "errors", "config", "version.ts"],
  ["engine"],
  ["metrics", "data", "indicators"],
  ["strategy"],
  ["memory"],
  ["agent"],
  ["rundir"],
  ["report"],
  ["runner"],
  ["sweep"],
  ["queue"],
  ["ui"],
  ["cli"],
  ["index.ts", "cli.ts"],
];

const RANK = new Map(LAYERS.flatMap((layer, rank) => layer.map((f) => [f, rank] as const)));
const SRC = fileURLToPath(new URL("../../src", import.meta.url));
const show = (a: Arrow) => `${a.from} -> ${a.to}`;

describe("the import graph of src/", () => {
  const { files, arrows } = importArrows(SRC);
  const folders = [...new Set(files.map(folderOf))].sort();
  const between = arrows.filter((a) => folderOf(a.from) !== folderOf(a.to));

  it("reads every kind of import, type-only and dynamic ones too", () => {
    const text = [
      'import { a } from "./a.js";',
      'import type { B } from "../b.js";',
      'export { c } from "./c.js";',
      'export type * from "./d.js";',
      'import "./e.js";',
      'const f = await import("./f.js");',
      "import {\n  g,\n  type G,\n} from './g.js';",
      '// import { no } from "./comment.js";',
      '/* import("./block.js") */',
      'import fs from "node:fs";',
    ].join("\n");
    expect(importSpecifiers(text).sort()).toEqual(
      ["../b.js", "./a.js", "./c.js", "./d.js", "./e.js", "./f.js", "./g.js"].sort(),
    );
  });

  it("places every folder of src/ in a layer", () => {
    // A parser that found nothing would pass every check below.
    expect(files.length).toBeGreaterThan(200);
    expect(arrows.length).toBeGreaterThan(files.length);
    expect(folders.filter((f) => !RANK.has(f))).toEqual([]);
  });

  it("has no import from a lower layer to a higher one", () => {
    const up = between.filter((a) => RANK.get(folderOf(a.to))! > RANK.get(folderOf(a.from))!);
    expect(up.map(show), "imports that run up the layers").toEqual([]);
  });

  it("has no cycle between folders", () => {
    const folderArrows = between.map((a) => ({ from: folderOf(a.from), to: folderOf(a.to) }));
    const found = cycles(folders, folderArrows).map((c) => {
      const circle = oneCircle(c, folderArrows);
      // One file arrow for each step, so the message says which import to move.
      const steps = circle.slice(1).map((to, k) => {
        const from = circle[k]!;
        const arrow = between.find((a) => folderOf(a.from) === from && folderOf(a.to) === to);
        return arrow ? show(arrow) : `${from} -> ${to}`;
      });
      return `${circle.join(" -> ")} (${steps.join("; ")})`;
    });
    expect(found, "folders that import each other").toEqual([]);
  });

  it("has no cycle between files", () => {
    const found = cycles(files, arrows).map(
      (c) => `${oneCircle(c, arrows).join(" -> ")} (${c.length} files in the circle)`,
    );
    expect(found, "files that import each other, directly or around a circle").toEqual([]);
  });

  it("finds the cycles and back arrows it is meant to find", () => {
    const planted: Arrow[] = [
      { from: "a/x.ts", to: "b/y.ts" },
      { from: "b/y.ts", to: "b/z.ts" },
      { from: "b/z.ts", to: "a/x.ts" },
      { from: "c/w.ts", to: "c/w.ts" },
    ];
    const nodes = ["a/x.ts", "b/y.ts", "b/z.ts", "c/w.ts"];
    expect(cycles(nodes, planted)).toEqual([["a/x.ts", "b/y.ts", "b/z.ts"], ["c/w.ts"]]);
    expect(cycles(nodes, planted.slice(0, 2))).toEqual([]);
    expect(oneCircle(["a/x.ts", "b/y.ts", "b/z.ts"], planted)).toEqual([
      "a/x.ts",
      "b/y.ts",
      "b/z.ts",
      "a/x.ts",
    ]);
  });
});
