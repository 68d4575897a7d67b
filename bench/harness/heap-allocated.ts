import type { GCProfilerResult } from 'node:v8';

/**
 * Bytes allocated between two readings of the used heap, with a GCProfiler's
 * record of the collections in between: what grew up to each collection, then
 * from what it left, to the end (what a collection freed is not subtracted).
 */
export function bytesAllocated(startUsed: number, endUsed: number, profile: GCProfilerResult | undefined): number {
  let allocated = 0;
  let last = startUsed;
  for (const s of profile?.statistics ?? []) {
    allocated += s.beforeGC.heapStatistics.usedHeapSize - last;
    last = s.afterGC.heapStatistics.usedHeapSize;
  }
  return allocated + endUsed - last;
}
