// The range conditions kept per catalog build (src/search/sqlite/query/ranges.ts): every set a
// RangeSets gives, whether built from the column's order, found in its cache under bounds that name
// the same grants, or tested on a search's few hits, holds the grants a plain check of every
// grant's value, written here, finds. Over the fixture grants in a real SQLite catalog, with bounds drawn from the
// values themselves (ties, the values' neighbours, infinities) so every edge of the order is crossed.
import { expect } from 'chai';
import { rmSync } from 'node:fs';
import { Random } from '../../fixtures/generate.js';
import { countBits, positionsOf, type Bits } from '../../src/search/sqlite/index/bitset.js';
import { CatalogColumns, type NumericKey } from '../../src/search/sqlite/index/columns.js';
import { RangeSets, testOverlap, testRange } from '../../src/search/sqlite/query/ranges.js';
import { catalogPath, openCatalogReadOnly } from '../../src/search/sqlite/storage/catalogFile.js';
import { SqliteCatalogWriter } from '../../src/search/sqlite/storage/writer.js';
import { fixtureGrants, tempDir } from '../support/api.js';
import { reindexGrants } from '../support/catalog.js';

const KEYS: readonly NumericKey[] = ['deadline', 'amountMin', 'amountMax', 'createdAt', 'updatedAt'];

describe('embedded engine: range conditions kept per build', () => {
  let dir: string;
  let columns: CatalogColumns;

  before(async () => {
    dir = tempDir('grants-ranges-');
    const file = catalogPath(dir);
    const writer = SqliteCatalogWriter.open(file);
    await reindexGrants(writer, fixtureGrants());
    await writer.close();
    const db = openCatalogReadOnly(file);
    columns = CatalogColumns.load(db);
    db.close();
  });

  after(() => rmSync(dir, { recursive: true, force: true }));

  /** A bound: one of the column's values, just beside one, or an infinity. */
  function bound(rng: Random, values: Float64Array): number {
    const roll = rng.float();
    if (roll < 0.1) return Number.NEGATIVE_INFINITY;
    if (roll < 0.2) return Number.POSITIVE_INFINITY;
    let value = values[rng.int(values.length)];
    while (value !== value) value = values[rng.int(values.length)];
    return roll < 0.6 ? value : roll < 0.8 ? value - 1 : value + 1;
  }

  const same = (actual: Bits, expected: number[], label: string) =>
    expect(Array.from(positionsOf(actual)), label).to.deep.equal(expected);

  /** The reference: the positions whose value lies in [low, high], and with `nulls` those with none. */
  const inside = (values: Float64Array, low: number, high: number, nulls: boolean): number[] =>
    Array.from(values.keys()).filter((p) => (Number.isNaN(values[p]) ? nulls : values[p] >= low && values[p] <= high));

  /**
   * The reference: the positions whose amounts overlap [low, high] (a null bound open on its side; no amounts, no
   * match).
   */
  const overlapping = (low: number, high: number): number[] => {
    const { amountMin: mins, amountMax: maxes } = columns.numbers;
    return Array.from(mins.keys()).filter((p) => {
      const noMin = Number.isNaN(mins[p]);
      const noMax = Number.isNaN(maxes[p]);
      return !(noMin && noMax) && (noMax || maxes[p] >= low) && (noMin || mins[p] <= high);
    });
  };

  it('gives the tested set for every range of every column, built, then from the cache, then under other bounds naming the same grants', () => {
    const rng = new Random(5);
    const sets = new RangeSets(columns);
    let nonEmpty = 0;
    for (const key of KEYS) {
      const values = columns.numbers[key];
      for (let i = 0; i < 150; i++) {
        let low = bound(rng, values);
        let high = bound(rng, values);
        if (low > high) [low, high] = [high, low];
        const nulls = rng.chance(0.5);
        const expected = inside(values, low, high, nulls);
        if (expected.length > 0) nonEmpty++;
        const label = `${key} [${low}, ${high}] nulls ${nulls}`;
        same(sets.within(key, low, high, nulls, null), expected, `${label}, built`);
        same(sets.within(key, low, high, nulls, null), expected, `${label}, kept`);
        // A bound moved by less than the gap to the next value names the same grants: the kept set.
        const nudged = Number.isFinite(low) ? low - 0.25 : low;
        same(sets.within(key, nudged, high, nulls, null), inside(values, nudged, high, nulls), `${label}, low nudged`);
        // A search's few hits, tested alone.
        const candidates = Int32Array.from(values.keys()).filter(() => rng.chance(0.1));
        same(
          testRange(values, low, high, nulls, candidates),
          expected.filter((p) => candidates.includes(p)),
          `${label}, on hits`,
        );
      }
    }
    expect(nonEmpty, 'ranges holding grants').to.be.greaterThan(300);
  });

  it("gives the tested set for amount overlaps, built and kept, and for a search's few hits", () => {
    const rng = new Random(9);
    const sets = new RangeSets(columns);
    const { amountMin, amountMax } = columns.numbers;
    for (let i = 0; i < 300; i++) {
      let low = bound(rng, rng.chance(0.5) ? amountMin : amountMax);
      let high = bound(rng, rng.chance(0.5) ? amountMin : amountMax);
      if (low > high) [low, high] = [high, low];
      const expected = overlapping(low, high);
      same(sets.overlapping(low, high, null), expected, `overlap [${low}, ${high}], built`);
      same(sets.overlapping(low, high, null), expected, `overlap [${low}, ${high}], kept`);
      const candidates = Int32Array.from({ length: columns.size }, (_, p) => p).filter(() => rng.chance(0.1));
      const onHits = expected.filter((p) => candidates.includes(p));
      same(
        testOverlap(amountMin, amountMax, low, high, candidates),
        onHits,
        `overlap [${low}, ${high}], tested on hits`,
      );
      // With hits, a kept set may answer (a superset of the hits' share, which every use ANDs with the hits).
      const answered = sets.overlapping(low, high, candidates);
      expect(
        Array.from(positionsOf(answered)).filter((p) => candidates.includes(p)),
        `overlap [${low}, ${high}] on hits`,
      ).to.deep.equal(onHits);
    }
  });

  it('tests a range not kept yet on the hits alone, and keeps nothing for it', () => {
    const sets = new RangeSets(columns);
    const values = columns.numbers.deadline;
    const candidates = Int32Array.of(0, 3, 7, 100, 250);
    const fromHits = sets.within('deadline', Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY, true, candidates);
    expect(Array.from(positionsOf(fromHits))).to.deep.equal([0, 3, 7, 100, 250]);
    // Not kept: the whole catalog's set is built on the next ask without hits.
    same(
      sets.within('deadline', Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY, true, null),
      inside(values, Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY, true),
      'all',
    );
    expect(countBits(sets.within('deadline', Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY, true, null))).to.equal(
      columns.size,
    );
  });
});
