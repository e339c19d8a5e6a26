import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  appendCurves,
  curveRecord,
  eachCurve,
  readCurve,
  truncatePartialCurve,
} from "../../src/sweep/curves.js";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "agenticbt-curves-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe("curves.f64", () => {
  it("reads back each combination's equity, the last record of an index winning", () => {
    const file = path.join(dir, "a.f64");
    appendCurves(file, [
      curveRecord(3, Float64Array.of(1, 2.5, 3)),
      curveRecord(0, Float64Array.of()),
    ]);
    appendCurves(file, [
      curveRecord(7, Float64Array.of(10_000, 9_999.75)),
      curveRecord(3, Float64Array.of(4, 5, 6)),
    ]);
    const seen: [number, number[]][] = [];
    eachCurve(file, (i, e) => seen.push([i, [...e]]));
    expect(seen.sort((a, b) => a[0] - b[0])).toEqual([
      [0, []],
      [3, [4, 5, 6]],
      [7, [10_000, 9_999.75]],
    ]);
    expect([...(readCurve(file, 7) ?? [])]).toEqual([10_000, 9_999.75]);
    expect(readCurve(file, 5)).toBeNull();
    expect(readCurve(path.join(dir, "absent.f64"), 1)).toBeNull();
  });

  it("cuts a record torn by a kill, so the next append starts clean", () => {
    const file = path.join(dir, "b.f64");
    appendCurves(file, [curveRecord(1, Float64Array.of(1, 2))]);
    const whole = fs.statSync(file).size;
    const torn = curveRecord(2, Float64Array.of(7, 8, 9));
    fs.appendFileSync(file, torn.subarray(0, torn.byteLength - 5));
    truncatePartialCurve(file);
    expect(fs.statSync(file).size).toBe(whole);
    appendCurves(file, [curveRecord(2, Float64Array.of(7, 8, 9))]);
    expect([...(readCurve(file, 2) ?? [])]).toEqual([7, 8, 9]);
    expect([...(readCurve(file, 1) ?? [])]).toEqual([1, 2]);
  });
});
