// What one comparison of "sort the matches by rank" costs in walk steps (query/plan.ts SORT_STEP):
// the two ways collect/sortOrderWalk.ts finds a page along a sort order, timed apart on the deadline order
// of a generated catalog, for several match counts and page sizes. Not a test (a figure on a
// shared machine): `npm run build && node dist/test/bench/sortStep.js [--grants 100000]`.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { generateGrants, Random } from '../../fixtures/generate.js';
import { emptyBits, hasBit, positionsOf, setBit, type Bits } from '../../src/search/sqlite/index/bitset.js';
import { readColumns } from '../../src/search/sqlite/index/columns.js';
import { catalogPath, openCatalogReadOnly } from '../../src/search/sqlite/storage/catalogFile.js';
import { SqliteCatalogWriter } from '../../src/search/sqlite/storage/writer.js';
import { fastestMicros } from './fastest.js';

const { values } = parseArgs({ options: { grants: { type: 'string', default: '100000' } } });
const grants = Number(values.grants);

const dir = mkdtempSync(path.join(os.tmpdir(), 'grants-sort-step-'));
try {
  const file = catalogPath(dir);
  const writer = SqliteCatalogWriter.open(file);
  await writer.reindex(
    (async function* () {
      yield* generateGrants(grants, 7);
    })(),
  );
  await writer.close();
  const db = openCatalogReadOnly(file);
  const { positions, rank } = readColumns(db).orders['deadline:false'];
  db.close();
  const size = positions.length;

  // The two ways, as pageAlongOrder writes them (from the start of the order, no skip).
  const walk = (matches: Bits, count: number): number[] => {
    const page: number[] = [];
    for (let i = 0; i < size && page.length < count; i++) if (hasBit(matches, positions[i])) page.push(positions[i]);
    return page;
  };
  const sort = (matches: Bits, count: number): number[] =>
    Array.from(positionsOf(matches))
      .sort((a, b) => rank[a] - rank[b])
      .slice(0, count);

  const rng = new Random(11);
  // Warm-up: both ways compiled before the first figure.
  const warm = emptyBits(size);
  for (let p = 0; p < size; p += 97) setBit(warm, p);
  for (let run = 0; run < 50; run++) {
    walk(warm, 101);
    sort(warm, 101);
  }
  console.log('matches  page  walk µs  sort µs  walk steps  comparisons  steps per comparison');
  for (const total of [100, 300, 1000, 3000, 10000, 30000].filter((n) => n <= size)) {
    const matches = emptyBits(size);
    for (const p of rng.sample(
      Array.from({ length: size }, (_, i) => i),
      total,
    ))
      setBit(matches, p);
    for (const page of [21, 101, 1001].filter((n) => n <= total)) {
      const walked = fastestMicros(() => walk(matches, page), 15);
      const sorted = fastestMicros(() => sort(matches, page), 15);
      const steps = (page * size) / total;
      const comparisons = total * (Math.log2(total) + 1);
      const perComparison = sorted / comparisons / (walked / steps);
      console.log(
        [
          total,
          page,
          walked.toFixed(1),
          sorted.toFixed(1),
          Math.round(steps),
          Math.round(comparisons),
          perComparison.toFixed(1),
        ].join('  '),
      );
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
