// What building a range condition costs each way: testing every grant's value (the branch-free loop
// below, the yardstick) against setting
// the bits of a slice of the column's ascending order (orderSlice), for ranges holding 1 % to 95 %
// of the catalog. Values are deadlines spread over three years at whole days (or, with --unique,
// to the millisecond), 5 % null. Not a test (a figure on a shared machine):
// `npm run build && node dist/test/bench/rangeBuild.js [--grants 1000000] [--unique]`.
import { parseArgs } from 'node:util';
import { Random } from '../../fixtures/generate.js';
import { ascendingByNumber } from '../../src/search/sqlite/index/columns.js';
import { emptyBits, type Bits } from '../../src/search/sqlite/index/bitset.js';
import { orderSlice } from '../../src/search/sqlite/query/ranges.js';
import { fastestMicros } from './fastest.js';

/** Positions whose value lies in [low, high]: one word built per 32 positions, branch-free (the yardstick). */
function testEveryValue(values: Float64Array, low: number, high: number): Bits {
  const size = values.length;
  const bits = emptyBits(size);
  for (let w = 0, p = 0; p < size; w++) {
    let word = 0;
    for (let b = 0, end = Math.min(size, p + 32); p < end; p++, b++)
      word |= (+(values[p] >= low) & +(values[p] <= high)) << b;
    bits[w] = word;
  }
  return bits;
}

const { values: options } = parseArgs({
  options: { grants: { type: 'string', default: '1000000' }, unique: { type: 'boolean', default: false } },
});
const size = Number(options.grants);
const rng = new Random(11);
const DAY = 86_400_000;
const start = Date.UTC(2025, 0, 1);
// --unique: every value different (times to the millisecond, as updatedAt), so an order's places are in random position
// order.
const values = Float64Array.from({ length: size }, () =>
  rng.chance(0.05) ? Number.NaN : start + (options.unique ? rng.int(3 * 365 * DAY) : rng.int(3 * 365) * DAY),
);
const present = ascendingByNumber(values);
// The ascending order with the nulls last, as columns.ts builds it.
const positions = new Int32Array(size);
positions.set(present);
for (let p = 0, next = present.length; p < size; p++) if (values[p] !== values[p]) positions[next++] = p;

console.log(`${size.toLocaleString('en')} values; µs to build one range set, the fastest of 15`);
console.log('share held | by testing every value | from the order | order / testing');
for (const share of [0.01, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 0.95]) {
  const count = Math.round(present.length * share);
  const from = Math.floor((present.length - count) / 2);
  const to = from + count;
  const low = values[positions[from]];
  const high = values[positions[to - 1]];
  // The same set both ways: the range [low, high] holds whole days, so the slice is widened to them.
  let a = from;
  while (a > 0 && values[positions[a - 1]] === low) a--;
  let b = to;
  while (b < present.length && values[positions[b]] === high) b++;
  const tested = fastestMicros(() => testEveryValue(values, low, high), 15);
  const sliced = fastestMicros(() => orderSlice(positions, a, b, size), 15);
  console.log(
    `${(((b - a) / size) * 100).toFixed(1).padStart(9)} % | ${tested.toFixed(0).padStart(22)} | ` +
      `${sliced.toFixed(0).padStart(14)} | ${(sliced / tested).toFixed(2)}`,
  );
}
