/**
 * A zero-filled Float64Array over shared memory: a worker thread (equity.csv's) reads it in place,
 * with no copy. For columns that live from the load or the simulation to the end of a run.
 */
export function sharedFloat64(length: number): Float64Array {
  return new Float64Array(new SharedArrayBuffer(length * Float64Array.BYTES_PER_ELEMENT));
}
