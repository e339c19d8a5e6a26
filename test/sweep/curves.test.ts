import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  appendCurves,
  CurveReader,
  curveRecord,
  truncatePartialCurve,
} from "../../src/sweep/curves.js";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "agenticbt-curves-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const read = (file: string, index: number) => {
  const e = new CurveReader(file).read(index);
  return e === null ? null : [...e];
};

describe("curves.f64", () => {
  it("reads back each combination's equity, the last record of an index winning", () => {
    const file = path.join(dir, "a.f64");
    // A view into a longer column (a run's window) is written as the view alone.
    const column = Float64Array.of(99, 1, 2.5, 3, 99);
    appendCurves(file, [curveRecord(3, column.subarray(1, 4)), curveRecord(0, Float64Array.of())]);
    appendCurves(file, [
      curveRecord(7, Float64Array.of(10_000, 9_999.75)),
      curveRecord(3, Float64Array.of(4, 5, 6)),
    ]);
    expect(read(file, 0)).toEqual([]);
    expect(read(file, 3)).toEqual([4, 5, 6]);
    expect(read(file, 7)).toEqual([10_000, 9_999.75]);
    expect(read(file, 5)).toBeNull();
    expect(read(path.join(dir, "absent.f64"), 1)).toBeNull();
    appendCurves(file, [curveRecord(9, column.subarray(1, 4))]);
    expect(read(file, 9)).toEqual([1, 2.5, 3]);
  });

  it("cuts a record torn by a kill, so the next append starts clean", () => {
    const file = path.join(dir, "b.f64");
    appendCurves(file, [curveRecord(1, Float64Array.of(1, 2))]);
    const whole = fs.statSync(file).size;
    const torn = Buffer.concat(curveRecord(2, Float64Array.of(7, 8, 9)));
    fs.appendFileSync(file, torn.subarray(0, torn.byteLength - 5));
    truncatePartialCurve(file);
    expect(fs.statSync(file).size).toBe(whole);
    appendCurves(file, [curveRecord(2, Float64Array.of(7, 8, 9))]);
    expect(read(file, 2)).toEqual([7, 8, 9]);
    expect(read(file, 1)).toEqual([1, 2]);
  });
});
