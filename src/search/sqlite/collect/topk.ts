// Top-k by relevance: the best offset + size hits by (bm25 score, position) among the matches,
// kept in a bounded heap for short pages or, for deep ones, found by selecting the score of the
// last one needed (query/plan.ts chooses); then only those are sorted, never every hit. Pure.
import { hasBit, type Bits } from '../index/bitset.js';
import { keepInHeap } from '../query/plan.js';
import type { ScoredHits } from '../query/textHits.js';

/**
 * The value that would stand at index `k` if `values` were sorted ascending (quickselect, Hoare's
 * partition: linear on average). Reorders `values`.
 */
export function selectKth(values: Float64Array, k: number): number {
  let low = 0;
  let high = values.length - 1;
  while (low < high) {
    const pivot = values[(low + high) >>> 1];
    let i = low;
    let j = high;
    while (i <= j) {
      while (values[i] < pivot) i++;
      while (values[j] > pivot) j--;
      if (i <= j) {
        const swap = values[i];
        values[i] = values[j];
        values[j] = swap;
        i++;
        j--;
      }
    }
    if (k <= j) high = j;
    else if (k >= i) low = i;
    else return values[k];
  }
  return values[k];
}

/** The best `keep` hits among those in `matches`, in a bounded max-heap (worst at the root): for short pages. */
function heapBest(hits: ScoredHits, matches: Bits, keep: number): Int32Array {
  const { scores, positions } = hits;
  const heap = new Int32Array(Math.min(keep, positions.length)); // indexes into hits
  let length = 0;
  const worse = (a: number, b: number) =>
    scores[a] > scores[b] || (scores[a] === scores[b] && positions[a] > positions[b]);
  for (let h = 0; h < positions.length; h++) {
    if (!hasBit(matches, positions[h])) continue;
    if (length < keep) {
      // Sift up from the end, moving the hole instead of swapping.
      let i = length++;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (!worse(h, heap[parent])) break;
        heap[i] = heap[parent];
        i = parent;
      }
      heap[i] = h;
    } else if (worse(heap[0], h)) {
      // Sift down from the root.
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        if (left >= length) break;
        const right = left + 1;
        const child = right < length && worse(heap[right], heap[left]) ? right : left;
        if (!worse(heap[child], h)) break;
        heap[i] = heap[child];
        i = child;
      }
      heap[i] = h;
    }
  }
  return heap.subarray(0, length);
}

/** The best `keep` hits among those in `matches`, by selecting the score of the last one: for deep pages. */
function selectedBest(hits: ScoredHits, matches: Bits, keep: number): Int32Array {
  const { scores, positions } = hits;
  const found = new Int32Array(positions.length); // indexes into hits
  let count = 0;
  for (let h = 0; h < positions.length; h++) if (hasBit(matches, positions[h])) found[count++] = h;
  if (count <= keep) return found.subarray(0, count);
  const values = new Float64Array(count);
  for (let i = 0; i < count; i++) values[i] = scores[found[i]];
  const last = selectKth(values, keep - 1);
  // Every hit scored better than the last one needed, then the ties at its score with the lowest positions.
  const picked = new Int32Array(keep);
  const ties: number[] = [];
  let n = 0;
  for (let i = 0; i < count; i++) {
    const h = found[i];
    if (scores[h] < last) picked[n++] = h;
    else if (scores[h] === last) ties.push(h);
  }
  ties.sort((a, b) => positions[a] - positions[b]);
  for (let t = 0; n < keep; t++) picked[n++] = ties[t];
  return picked;
}

/**
 * The `size` best hits after `offset` by (score, position), among those in `matches`: along the
 * hits' ranking when they carry one; else the best offset + size of them kept in a bounded heap
 * for short pages or, for deep pages, the score of the last one needed selected in linear time,
 * then only those sorted, never every hit.
 */
export function relevancePage(hits: ScoredHits, matches: Bits, offset: number, size: number): number[] {
  const { scores, positions, order } = hits;
  const keep = offset + size;
  if (size <= 0) return [];
  if (order !== undefined) {
    const best: number[] = [];
    for (let i = 0; i < order.length && best.length < keep; i++)
      if (hasBit(matches, positions[order[i]])) best.push(positions[order[i]]);
    return best.slice(offset);
  }
  const best = keepInHeap(keep) ? heapBest(hits, matches, keep) : selectedBest(hits, matches, keep);
  return Array.from(best)
    .sort((a, b) => scores[a] - scores[b] || positions[a] - positions[b])
    .slice(offset, keep)
    .map((h) => positions[h]);
}
