// What counting one facet costs each way (query/plan.ts VALUE_WORD_NS, MASK_COUNT_NS,
// WORD_PASS_NS): collect/facets.ts countsByBits (each value's bit set ANDed with the matches and
// counted) against countsByMasks (each match's value mask), for matches holding 0.1 % to all of
// the catalog. Each grant holds each value with a chance of 20 %. Not a test (a figure on a shared
// machine): `npm run build && node dist/test/bench/facetCount.js [--grants 1000000] [--facet eligibleProvinces]`.
import { parseArgs } from 'node:util';
import { Random } from '../../fixtures/generate.js';
import { FACET_VALUES, type StoredFacetName } from '../../src/grants/query.js';
import { countBits, emptyBits, popcount32, setBit, wordsFor, type Bits } from '../../src/search/sqlite/index/bitset.js';
import type { CatalogColumns } from '../../src/search/sqlite/index/columns.js';
import { countsByBits, countsByMasks } from '../../src/search/sqlite/collect/facets.js';
import { fastestMicros } from './fastest.js';

const { values: options } = parseArgs({
  options: { grants: { type: 'string', default: '1000000' }, facet: { type: 'string', default: 'eligibleProvinces' } },
});
const size = Number(options.grants);
const name = options.facet as StoredFacetName;
const values = FACET_VALUES[name].length;
const rng = new Random(3);
const masks = values <= 8 ? new Uint8Array(size) : values <= 16 ? new Uint16Array(size) : new Uint32Array(size);
const valueBits = FACET_VALUES[name].map(() => emptyBits(size));
for (let p = 0; p < size; p++) {
  let mask = 0;
  for (let i = 0; i < values; i++) {
    if (!rng.chance(0.2)) continue;
    mask |= 1 << i;
    setBit(valueBits[i], p);
  }
  masks[p] = mask;
}
// Only the two fields the counts read.
const columns = { size, valueBits: { [name]: valueBits }, valueMasks: { [name]: masks } } as unknown as CatalogColumns;
const words = wordsFor(size);

/**
 * The count by value bits as it was before the carry-save adders (bitset.ts countAnd): each word counted alone. The
 * yardstick.
 */
function countAndByWord(a: Bits, b: Bits): number {
  let count = 0;
  for (let i = 0; i < a.length; i++) {
    const word = a[i] & b[i];
    if (word !== 0) count += popcount32(word);
  }
  return count;
}
const countsByWord = (base: Bits) => Int32Array.from(valueBits, (bits) => countAndByWord(base, bits));

// Warm-up: both ways compiled before the first figure.
const warm = emptyBits(size);
for (let p = 0; p < size; p += 7) setBit(warm, p);
for (let run = 0; run < 20; run++) {
  countsByBits(columns, name, warm);
  countsByMasks(columns, name, warm);
  countsByWord(warm);
}

console.log(
  `${name} (${values} values), ${size.toLocaleString('en')} grants (${words.toLocaleString('en')} words); ` +
    `the fastest of 9`,
);
console.log(
  'matches | by bits µs (ns per value × word) | the same, each word counted alone | by masks µs (ns per match ' +
    'beyond the word pass) | word pass ns (0.1 % row)',
);
for (const share of [0.001, 0.01, 0.03, 0.1, 0.2, 0.3, 0.4, 0.7, 1]) {
  const base = emptyBits(size);
  for (let p = 0; p < size; p++) if (rng.chance(share)) setBit(base, p);
  const matches = countBits(base);
  const byBits = fastestMicros(() => countsByBits(columns, name, base), 9);
  const byMasks = fastestMicros(() => countsByMasks(columns, name, base), 9);
  const byWord = fastestMicros(() => countsByWord(base), 9);
  const pass = share === 0.001 ? ((byMasks * 1000) / words).toFixed(2) : '';
  // Beyond the word pass (taken as the 0.1 % row's, where the matches are too few to weigh).
  const perMatch = share === 0.001 ? '–' : ((byMasks * 1000 - 1.9 * words) / Math.max(1, matches)).toFixed(2);
  console.log(
    `${(share * 100).toString().padStart(5)} % | ${byBits.toFixed(0).padStart(6)} ` +
      `(${((byBits * 1000) / (values * words)).toFixed(2)}) | ${byWord.toFixed(0).padStart(6)} ` +
      `(${((byWord * 1000) / (values * words)).toFixed(2)}) | ${byMasks.toFixed(0).padStart(6)} (${perMatch}) ` +
      `| ${pass}`,
  );
}
