// The embedded engine's in-memory columns, against real SQLite catalog files: bit sets, the
// engine's answers (totals, pages in every sort, disjunctive facets) checked against a plain
// reference written here over the fixture grants, and the columns following the catalog (a sync
// or a reindex is seen whole from the next turn, never mixed with the old catalog within one).
import { expect } from 'chai';
import { rmSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { titleSortKey } from '../../src/grants/folding.js';
import {
  FACET_NAMES,
  STORED_FACET_NAMES,
  type FacetCount,
  type FacetName,
  type Facets,
  type GrantQuery,
  type SortKey,
} from '../../src/grants/query.js';
import type { Grant } from '../../src/grants/schema.js';
import { parseSearch, plainSearch, positiveWords, type ParsedSearch } from '../../src/grants/searchSyntax.js';
import {
  countAnd,
  countBits,
  emptyBits,
  fullBits,
  hasBit,
  popcount32,
  positionsOf,
  setBit,
} from '../../src/search/sqlite/index/bitset.js';
import {
  ascendingByNumber,
  CatalogColumns,
  compareCodePoints,
  shareColumns,
  readColumns,
} from '../../src/search/sqlite/index/columns.js';
import { countsByBits, countsByMasks } from '../../src/search/sqlite/collect/facets.js';
import { SqliteSearchEngine } from '../../src/search/sqlite/runtime/engine.js';
import { ftsMatchExpression } from '../../src/search/sqlite/query/fts5Expression.js';
import { BM25_WEIGHTS } from '../../src/search/sqlite/index/postings.js';
import { SqliteCatalogWriter } from '../../src/search/sqlite/storage/writer.js';
import { fixtureGrants, tempDir } from '../support/api.js';
import { reindexGrants } from '../support/catalog.js';
import { unfilteredQuery } from '../support/grantQuery.js';
import { Random } from '../../fixtures/generate.js';

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
const NOW = Date.parse('2026-06-15T12:00:00.000Z');

/** A search in the web syntax and its positive words, as the HTTP layer makes them. */
const text = (search: string): Pick<GrantQuery, 'search' | 'words'> => {
  const parsed = parseSearch(search);
  return { search: parsed, words: positiveWords(parsed) };
};

function query(overrides: Partial<GrantQuery>): GrantQuery {
  const base = unfilteredQuery(NOW);

  const q = { ...base, ...overrides };
  // Words alone are plain words; `text` gives a search in the web syntax.
  if (!('search' in overrides) && q.words.length > 0) q.search = plainSearch(q.words);
  q.offset = (q.page - 1) * q.limit;
  q.size = Math.min(q.limit, 10_000 - q.offset);
  return q;
}

// ---- The reference: GrantQuery's comments, written plainly over Grant objects. ----

const anyOf = <T>(wanted: readonly T[], has: readonly T[]) =>
  wanted.length === 0 || wanted.some((v) => has.includes(v));
const time = (iso: string | null) => (iso === null ? null : Date.parse(iso));
/**
 * The status at `now` as the GrantQuery comments say: CLOSED past the deadline, FORECASTED before opensAt, else OPEN.
 */
const statusOf = (g: Grant, now: number): string => {
  const d = time(g.deadline);
  const o = time(g.opensAt);
  return d !== null && d < now ? 'CLOSED' : o !== null && o > now ? 'FORECASTED' : 'OPEN';
};

type Filter = (g: Grant) => boolean;

/** Every condition of the query but the text, each with the facet it filters (if any). */
function referenceConditions(q: GrantQuery): { facet: FacetName | null; test: Filter }[] {
  const c: { facet: FacetName | null; test: Filter }[] = [
    { facet: 'funderType', test: (g) => anyOf(q.funderTypes, [g.funderType]) },
    { facet: 'fundingType', test: (g) => anyOf(q.fundingTypes, [g.fundingType]) },
    { facet: 'eligibleProvinces', test: (g) => anyOf(q.provinces, g.eligibleProvinces) },
    { facet: 'targetBeneficiaries', test: (g) => anyOf(q.beneficiaries, g.targetBeneficiaries) },
    { facet: 'currency', test: (g) => anyOf(q.currencies, [g.currency]) },
    {
      facet: 'applicationComplexity',
      test: (g) =>
        q.complexities.length === 0 ||
        (g.applicationComplexity !== null && q.complexities.includes(g.applicationComplexity)),
    },
    { facet: 'sdgAlignment', test: (g) => anyOf(q.sdgs, g.sdgAlignment) },
    { facet: 'isRecurring', test: (g) => q.isRecurring === null || g.isRecurring === q.isRecurring },
    { facet: 'status', test: (g) => anyOf(q.statuses, [statusOf(g, q.now)]) },
    {
      facet: null,
      test: (g) => {
        if (q.amountMin === null && q.amountMax === null) return true;
        if (g.amountMin === null && g.amountMax === null) return false;
        return (
          (q.amountMin === null || g.amountMax === null || g.amountMax >= q.amountMin) &&
          (q.amountMax === null || g.amountMin === null || g.amountMin <= q.amountMax)
        );
      },
    },
    {
      facet: null,
      test: (g) => {
        const d = time(g.deadline);
        if (q.open !== null && (statusOf(g, q.now) === 'OPEN') !== q.open) return false;
        if (q.deadlineFrom !== null && !(d !== null && d >= q.deadlineFrom)) return false;
        if (q.deadlineTo !== null && !(d !== null && d <= q.deadlineTo)) return false;
        return true;
      },
    },
    { facet: null, test: (g) => q.updatedSince === null || Date.parse(g.updatedAt) >= q.updatedSince },
  ];
  return c;
}

function facetValues(name: FacetName, g: Grant, now: number): string[] {
  if (name === 'status') return [statusOf(g, now)];
  const v = g[name];
  if (v === null) return [];
  if (Array.isArray(v)) return v;
  return [String(v)];
}

function referenceFacets(q: GrantQuery, grants: Grant[], textHit: Filter): Facets {
  const conditions = referenceConditions(q);
  const facets: Facets = {};
  for (const name of q.facets) {
    const counts = new Map<string, number>();
    for (const g of grants) {
      if (!textHit(g) || !conditions.every((c) => c.facet === name || c.test(g))) continue;
      for (const value of facetValues(name, g, q.now)) counts.set(value, (counts.get(value) ?? 0) + 1);
    }
    facets[name] = [...counts]
      .map(([value, count]): FacetCount => ({ value, count }))
      .sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : 1));
  }
  return facets;
}

function sortValue(g: Grant, key: Exclude<SortKey, 'relevance'>): number | string | null {
  if (key === 'title') return titleSortKey(g.title);
  if (key === 'amountMin' || key === 'amountMax') return g[key];
  return time(g[key]);
}

function referenceOrder(key: Exclude<SortKey, 'relevance'>, descending: boolean) {
  return (a: Grant, b: Grant): number => {
    const x = sortValue(a, key);
    const y = sortValue(b, key);
    if (x === null || y === null) {
      if (x !== y) return x === null ? 1 : -1;
    } else if (x !== y) {
      const c = typeof x === 'string' ? compareCodePoints(x, y as string) : x - (y as number);
      return descending ? -c : c;
    }
    return a.id < b.id ? -1 : 1;
  };
}

describe('unit: SQLite engine columns', () => {
  describe('bit sets', () => {
    it('count, intersect and list positions, with no bit past the size', () => {
      expect(popcount32(0xffffffff)).to.equal(32);
      expect(popcount32(0x80000001)).to.equal(2);
      const all = fullBits(70);
      expect(all.length).to.equal(3);
      expect(countBits(all)).to.equal(70);
      const some = emptyBits(70);
      for (const p of [0, 31, 32, 63, 69]) setBit(some, p);
      expect(Array.from(positionsOf(some))).to.deep.equal([0, 31, 32, 63, 69]);
      const odd = emptyBits(70);
      for (let p = 1; p < 70; p += 2) setBit(odd, p);
      expect(countAnd(some, odd)).to.equal(3);
      expect(countBits(fullBits(64))).to.equal(64);
      expect(countBits(fullBits(0))).to.equal(0);
    });

    it('counts |a ∧ b| eight words at a time as a bit-by-bit count does, any length, any density', () => {
      const rng = new Random(11);
      const byBit = (a: Uint32Array, b: Uint32Array, size: number) => {
        let n = 0;
        for (let p = 0; p < size; p++) if (hasBit(a, p) && hasBit(b, p)) n++;
        return n;
      };
      for (const size of [0, 1, 31, 32, 33, 255, 256, 257, 511, 1000, 4099]) {
        for (const [shareA, shareB] of [
          [0, 0.5],
          [0.5, 0.5],
          [1, 1],
          [0.97, 0.99],
          [0.02, 1],
          [1, 0.3],
        ]) {
          const a = emptyBits(size);
          const b = emptyBits(size);
          for (let p = 0; p < size; p++) {
            if (rng.chance(shareA)) setBit(a, p);
            if (rng.chance(shareB)) setBit(b, p);
          }
          expect(countAnd(a, b), `size ${size}, shares ${shareA} and ${shareB}`).to.equal(byBit(a, b, size));
        }
      }
      expect(countAnd(fullBits(4099), fullBits(4099))).to.equal(4099);
    });

    it('compares strings by code point, as UTF-8 bytes do', () => {
      const astral = '\u{1F600}';
      const high = '\uFF21';
      expect(astral < high).to.equal(true); // UTF-16 order, which is not the contract
      expect(compareCodePoints(astral, high)).to.be.greaterThan(0);
      expect(Math.sign(compareCodePoints('abc', 'abd'))).to.equal(-1);
      expect(compareCodePoints('ab', 'abc')).to.be.lessThan(0);
      expect(Buffer.compare(Buffer.from(astral), Buffer.from(high))).to.equal(1);
    });

    it('orders numbers by a radix sort as a comparison sort does: ascending, ties by position, NaN left out, −0 equal to 0', () => {
      let seed = 17;
      const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
      const pool = [
        0,
        -0,
        1,
        -1,
        0.5,
        -0.5,
        1e-300,
        -1e-300,
        1e300,
        -1e300,
        Infinity,
        -Infinity,
        Number.NaN,
        1_700_000_000_000,
        1_700_000_000_001,
        Number.MAX_VALUE,
        -Number.MAX_VALUE,
        5e-324,
      ];
      for (const size of [0, 1, 2, 100, 5000]) {
        const values = Float64Array.from({ length: size }, () =>
          next() < 0.5 ? pool[Math.floor(next() * pool.length)] : (next() - 0.5) * 10 ** Math.floor(next() * 20),
        );
        const expected = Array.from({ length: size }, (_, i) => i)
          .filter((p) => !Number.isNaN(values[p]))
          // Compared with < rather than by subtraction (Infinity − Infinity is NaN): equal values are ties, by
          // position.
          .sort((a, b) => (values[a] === values[b] ? a - b : values[a] < values[b] ? -1 : 1));
        expect(Array.from(ascendingByNumber(values)), `size ${size}`).to.deep.equal(expected);
      }
    });
  });

  describe('facet counts by value bit sets and by value masks', () => {
    it('agree for every facet, from an empty set of matches to all of them', () => {
      const dir = tempDir('grants-columns-counts-');
      const file = path.join(dir, 'catalog.sqlite');
      const writer = SqliteCatalogWriter.open(file);
      return reindexGrants(writer, fixtureGrants())
        .then(() => writer.close())
        .then(() => {
          const db = new Database(file, { readonly: true });
          try {
            const columns = CatalogColumns.load(db);
            let seed = 5;
            const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
            let counted = 0;
            for (const share of [0, 0.001, 0.05, 0.5, 1]) {
              const base = emptyBits(columns.size);
              for (let p = 0; p < columns.size; p++) if (next() < share) setBit(base, p);
              for (const name of STORED_FACET_NAMES) {
                const byBits = Array.from(countsByBits(columns, name, base));
                expect(Array.from(countsByMasks(columns, name, base)), `${name} at ${share}, by masks`).to.deep.equal(
                  byBits,
                );
                counted += byBits.reduce((a, b) => a + b, 0);
              }
            }
            expect(counted).to.be.greaterThan(columns.size);
          } finally {
            db.close();
            rmSync(dir, { recursive: true, force: true });
          }
        });
    });
  });

  describe('shared memory', () => {
    it('copies every array of the columns into SharedArrayBuffers, values unchanged', () => {
      const dir = tempDir('grants-columns-shared-');
      const file = path.join(dir, 'catalog.sqlite');
      const writer = SqliteCatalogWriter.open(file);
      return reindexGrants(writer, fixtureGrants().slice(0, 300))
        .then(() => writer.close())
        .then(() => {
          const db = new Database(file, { readonly: true });
          try {
            const data = readColumns(db);
            const copy = shareColumns(data);
            const arrays = (d: typeof data) => [
              d.rowids,
              d.positionByRowid,
              ...Object.values(d.numbers),
              ...Object.values(d.valueBits).flat(),
              ...Object.values(d.orders).flatMap((o) => [o.positions, o.rank]),
            ];
            expect(arrays(copy).length).to.equal(arrays(data).length).and.to.be.greaterThan(30);
            arrays(copy).forEach((array, i) => {
              expect(array.buffer).to.be.instanceOf(SharedArrayBuffer);
              expect(Array.from(array)).to.deep.equal(Array.from(arrays(data)[i]));
            });
            expect(Object.keys(copy.orders).sort()).to.deep.equal(
              ['amountMax', 'amountMin', 'createdAt', 'deadline', 'opensAt', 'title', 'updatedAt'].flatMap((k) => [
                `${k}:false`,
                `${k}:true`,
              ]),
            );
          } finally {
            db.close();
            rmSync(dir, { recursive: true, force: true });
          }
        });
    });
  });

  describe('answers equal the reference over the fixture grants', () => {
    const dir = tempDir('sqlite-columns-');
    const file = path.join(dir, 'catalog.sqlite');
    const grants = fixtureGrants();
    let engine: SqliteSearchEngine;
    let db: Database.Database;

    before(async () => {
      const writer = SqliteCatalogWriter.open(file);
      await reindexGrants(writer, grants);
      await writer.close();
      engine = SqliteSearchEngine.open(file);
      db = new Database(file, { readonly: true });
    });
    after(async () => {
      await engine.close();
      db.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('the fixtures hold what the cases need: null deadlines, amounts, complexities and isRecurring, and ties', () => {
      expect(grants.some((g) => g.deadline === null)).to.equal(true);
      expect(grants.some((g) => g.amountMin === null)).to.equal(true);
      expect(grants.some((g) => g.amountMax === null)).to.equal(true);
      expect(grants.some((g) => g.applicationComplexity === null)).to.equal(true);
      expect(grants.some((g) => g.isRecurring === null)).to.equal(true);
      const deadlines = grants.map((g) => g.deadline).filter((d) => d !== null);
      expect(new Set(deadlines).size).to.be.lessThan(deadlines.length);
      // Every status at NOW and at the opensAt the cases use.
      expect(new Set(grants.map((g) => statusOf(g, NOW)))).to.deep.equal(new Set(['FORECASTED', 'OPEN', 'CLOSED']));
      expect(grants.filter((g) => g.opensAt !== null && Date.parse(g.opensAt) === someOpensAt)).to.not.be.empty;
    });

    /** Ids the text matches, by SQLite's own FTS5 (the reference's text hits), best first by bm25 then id. */
    const ftsIds = (search: ParsedSearch): string[] =>
      db
        .prepare(
          `SELECT g.id FROM grants_text JOIN grants g ON g.rowid = grants_text.rowid WHERE grants_text ` +
            `MATCH ? ORDER BY bm25(grants_text, ${BM25_WEIGHTS.join(', ')}), g.id`,
        )
        .pluck()
        .all(ftsMatchExpression(search)!) as string[];

    function expected(q: GrantQuery): { total: number; ids: string[]; facets?: Facets } {
      const textIds = q.search === null ? null : q.search.clauses.length === 0 ? [] : ftsIds(q.search);
      const textSet = textIds === null ? null : new Set(textIds);
      const textHit: Filter = (g) => textSet === null || textSet.has(g.id);
      const conditions = referenceConditions(q);
      const matching = grants.filter((g) => textHit(g) && conditions.every((c) => c.test(g)));
      let ordered: Grant[];
      if (q.sort.key === 'relevance') {
        const rank = new Map(textIds!.map((id, i) => [id, i]));
        ordered = matching.sort((a, b) => rank.get(a.id)! - rank.get(b.id)!);
      } else {
        ordered = matching.sort(referenceOrder(q.sort.key, q.sort.descending));
      }
      const ids = ordered.slice(q.offset, q.offset + q.size).map((g) => g.id);
      return q.facets.length > 0
        ? { total: matching.length, ids, facets: referenceFacets(q, grants, textHit) }
        : { total: matching.length, ids };
    }

    const deadlines = grants
      .map((g) => g.deadline)
      .filter((d): d is string => d !== null)
      .sort();
    const someDeadline = Date.parse(deadlines[Math.floor(deadlines.length / 3)]);
    const laterDeadline = Date.parse(deadlines[Math.floor((2 * deadlines.length) / 3)]);
    const someUpdate = Date.parse(grants.map((g) => g.updatedAt).sort()[Math.floor(grants.length / 2)]);
    const opensAts = grants
      .map((g) => g.opensAt)
      .filter((d): d is string => d !== null && Date.parse(d) > NOW)
      .sort();
    const someOpensAt = Date.parse(opensAts[Math.floor(opensAts.length / 2)]);

    const cases: [string, Partial<GrantQuery>][] = [
      ['no condition', {}],
      ['open=true at an injected time', { open: true }],
      ['open=false', { open: false, limit: 100 }],
      ['open=true with now equal to a deadline (≥ keeps it)', { open: true, now: someDeadline, limit: 100, page: 2 }],
      ['status FORECASTED', { statuses: ['FORECASTED'], limit: 100 }],
      [
        'status OPEN or CLOSED, the status facet disjunctive',
        { statuses: ['OPEN', 'CLOSED'], facets: ['status', 'fundingType'], limit: 100 },
      ],
      [
        'open=true with now equal to an opensAt (opened then), the status facet counted with open',
        { open: true, now: someOpensAt, facets: ['status'], limit: 100 },
      ],
      [
        'a millisecond before an opensAt the grant is forecasted',
        { statuses: ['FORECASTED'], now: someOpensAt - 1, facets: ['status'], limit: 100 },
      ],
      ['open=false is forecasted or closed', { open: false, facets: ['status'], limit: 100, page: 2 }],
      [
        'status and every other filter, sorted by opensAt',
        {
          statuses: ['FORECASTED'],
          provinces: ['ONTARIO', 'QUEBEC'],
          sort: { key: 'opensAt', descending: false },
          facets: ['status', 'eligibleProvinces'],
        },
      ],
      [
        'text, relevance, a status filter on few hits',
        {
          words: ['grant'],
          statuses: ['FORECASTED', 'CLOSED'],
          sort: { key: 'relevance', descending: false },
          limit: 100,
          facets: ['status'],
        },
      ],
      [
        'deadline bounds equal to deadlines (inclusive)',
        { deadlineFrom: someDeadline, deadlineTo: laterDeadline, limit: 100 },
      ],
      ['deadlineFrom alone', { deadlineFrom: laterDeadline, sort: { key: 'deadline', descending: true } }],
      ['updatedSince', { updatedSince: someUpdate, sort: { key: 'updatedAt', descending: false } }],
      ['beneficiaries OR within', { beneficiaries: ['SMALL_BUSINESS', 'STARTUPS'] }],
      ['currency', { currencies: ['USD'], limit: 100 }],
      ['complexity', { complexities: ['LOW', 'HIGH'], sort: { key: 'amountMax', descending: true } }],
      ['sdgs', { sdgs: ['SDG_13', 'SDG_7'], sort: { key: 'createdAt', descending: true } }],
      ['isRecurring=true', { isRecurring: true, limit: 100 }],
      ['isRecurring=false', { isRecurring: false }],
      ['amount range', { amountMin: 1000, amountMax: 20000, sort: { key: 'amountMin', descending: false } }],
      [
        'every filter at once',
        {
          open: true,
          provinces: ['ONTARIO', 'QUEBEC'],
          beneficiaries: ['SMALL_BUSINESS'],
          fundingTypes: ['GRANT', 'LOAN'],
          facets: [...FACET_NAMES],
        },
      ],
      ['every facet, no filter', { facets: [...FACET_NAMES] }],
      [
        'facets with their own filters (disjunctive)',
        {
          provinces: ['QUEBEC'],
          funderTypes: ['FOUNDATION'],
          isRecurring: true,
          facets: ['eligibleProvinces', 'funderType', 'isRecurring', 'currency'],
        },
      ],
      [
        'facets on a page past the end',
        { sdgs: ['SDG_1'], page: 400, facets: ['sdgAlignment', 'applicationComplexity'] },
      ],
      ['text, relevance', { words: ['grant'], sort: { key: 'relevance', descending: false }, limit: 50 }],
      [
        'text, relevance, page 3 with filters',
        {
          words: ['program'],
          provinces: ['ONTARIO'],
          sort: { key: 'relevance', descending: false },
          page: 3,
          limit: 7,
        },
      ],
      [
        'text, deadline descending',
        { words: ['tax', 'credit'], sort: { key: 'deadline', descending: true }, limit: 100 },
      ],
      [
        'text, title, with facets',
        { words: ['quebec'], sort: { key: 'title', descending: false }, facets: ['fundingType', 'eligibleProvinces'] },
      ],
      [
        'text, relevance, facets with their own filters (hits outside a filter still counted)',
        {
          words: ['grant'],
          provinces: ['QUEBEC'],
          fundingTypes: ['GRANT'],
          beneficiaries: ['STUDENTS'],
          sort: { key: 'relevance', descending: false },
          facets: ['eligibleProvinces', 'fundingType', 'currency'],
        },
      ],
      [
        'text, relevance, selective filters',
        {
          words: ['business'],
          fundingTypes: ['LOAN', 'EQUITY'],
          sort: { key: 'relevance', descending: false },
          limit: 100,
        },
      ],
      ['text, no hit', { words: ['zzzznothing'], sort: { key: 'relevance', descending: false }, facets: ['currency'] }],
      // The web syntax: exclusions of single words answered from the postings, the rest by FTS5.
      [
        'syntax: an exclusion, relevance',
        { ...text('grant -quebec'), sort: { key: 'relevance', descending: false }, limit: 100 },
      ],
      [
        'syntax: exclusions, relevance, filters and facets',
        {
          ...text('program -ontario -tax'),
          provinces: ['QUEBEC', 'ONTARIO'],
          sort: { key: 'relevance', descending: false },
          facets: ['eligibleProvinces'],
        },
      ],
      ['syntax: an exclusion, deadline', { ...text('business -loan'), limit: 100 }],
      [
        'syntax: a phrase, relevance',
        { ...text('"tax credit"'), sort: { key: 'relevance', descending: false }, limit: 100 },
      ],
      [
        'syntax: OR, relevance, facets',
        {
          ...text('quebec OR "tax credit" -program'),
          sort: { key: 'relevance', descending: false },
          limit: 100,
          facets: ['fundingType'],
        },
      ],
      ['syntax: OR, title', { ...text('export OR research'), sort: { key: 'title', descending: false }, limit: 100 }],
      ['syntax: only an exclusion matches nothing', { ...text('-grant'), facets: ['currency'] }],
      ['syntax: only symbols match nothing', { ...text('🌲 *') }],
      ['nothing matches', { deadlineFrom: Date.parse('2999-01-01T00:00:00.000Z') }],
    ];
    for (const key of ['deadline', 'opensAt', 'amountMin', 'amountMax', 'createdAt', 'updatedAt', 'title'] as const) {
      for (const descending of [false, true]) {
        cases.push([
          `sort ${descending ? '-' : ''}${key}, a deep page`,
          { sort: { key, descending }, page: 5, limit: 100 },
        ]);
        cases.push([
          `sort ${descending ? '-' : ''}${key}, few matches (sorted, not walked)`,
          { sort: { key, descending }, currencies: ['USD'], funderTypes: ['CORPORATE'], limit: 100 },
        ]);
      }
    }

    for (const [name, overrides] of cases) {
      it(name, async () => {
        const q = query(overrides);
        const result = await engine.searchJson(q);
        const actual = {
          total: result.total,
          ids: result.grantsJson.map((json) => (JSON.parse(json) as Grant).id),
          ...(result.facets === undefined ? {} : { facets: result.facets }),
        };
        const want = expected(q);
        expect(actual).to.deep.equal(want);
        if (!name.includes('nothing') && name !== 'text, no hit' && !name.includes('past the end'))
          expect(actual.ids).to.not.be.empty;
      });
    }

    it('the filter options list the values present', async () => {
      const options = await engine.filterOptions();
      expect(options.targetBeneficiaries).to.deep.equal(
        [...new Set(grants.flatMap((g) => g.targetBeneficiaries))].sort(),
      );
      expect(options.currencies).to.deep.equal([...new Set(grants.map((g) => g.currency))].sort());
    });
  });

  describe('following the catalog', () => {
    let dir: string;
    let file: string;
    const grants = fixtureGrants();
    const source = (items: Grant[]) =>
      (async function* () {
        yield* items;
      })();

    beforeEach(async () => {
      dir = tempDir('sqlite-columns-swap-');
      file = path.join(dir, 'catalog.sqlite');
      const writer = SqliteCatalogWriter.open(file);
      await writer.reindex(source(grants));
      await writer.close();
    });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    it('a sync is seen from the next turn: total, page and facets from one catalog, never a mix', async () => {
      const engine = SqliteSearchEngine.open(file);
      const writer = SqliteCatalogWriter.open(file);
      try {
        await nextTurn();
        const q = query({ currencies: ['USD'], facets: ['currency'], limit: 100 });
        const before = await engine.searchJson(q);
        const usd = grants.filter((g) => g.currency === 'USD');
        const cad = grants.filter((g) => g.currency === 'CAD');
        expect(before.total).to.equal(usd.length);
        // Turn two CAD grants into USD (one of them first in deadline order) and drop one USD grant.
        const changed = [cad[0], cad[1]].map((g) => ({
          ...g,
          currency: 'USD' as const,
          deadline: '2000-01-01T00:00:00.000Z',
          updatedAt: '2026-11-01T00:00:00.000Z',
        }));
        const kept = grants.filter((g) => g.id !== usd[0].id && g.id !== cad[0].id && g.id !== cad[1].id);
        // The read of this turn opens the snapshot; the sync commits on its own connection meanwhile.
        const sameTurn = engine.searchJson(q);
        const counts = await writer.sync(
          (async function* () {
            for (const grant of [...changed, ...kept]) yield { grant };
          })(),
          { prune: true },
        );
        expect(counts).to.include({ updated: 2, deleted: 1 });
        const old = await sameTurn;
        expect(old.total).to.equal(before.total);
        expect(old.grantsJson).to.deep.equal(before.grantsJson);
        // Still the same turn, after the commit: still the old catalog, whole.
        const during = await engine.searchJson(q);
        expect(during.total).to.equal(before.total);
        expect(during.facets).to.deep.equal(before.facets);
        expect(during.grantsJson).to.deep.equal(before.grantsJson);
        await nextTurn();
        const after = await engine.searchJson(q);
        expect(after.total).to.equal(usd.length + 1);
        expect(after.facets).to.deep.equal({
          currency: [
            { value: 'CAD', count: cad.length - 2 },
            { value: 'USD', count: usd.length + 1 },
          ].sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : 1)),
        });
        const ids = after.grantsJson.map((json) => (JSON.parse(json) as Grant).id);
        expect(ids.slice(0, 2)).to.deep.equal([changed[0].id, changed[1].id].sort());
        expect(ids).to.not.include(usd[0].id);
        expect(after.grantsJson.every((json) => (JSON.parse(json) as Grant).currency === 'USD')).to.equal(true);
      } finally {
        await writer.close();
        await engine.close();
      }
    });

    it('a reindex swaps the whole catalog: within a turn the old one, from the next the new one alone', async () => {
      const engine = SqliteSearchEngine.open(file);
      const writer = SqliteCatalogWriter.open(file);
      try {
        await nextTurn();
        const q = query({ facets: ['funderType'], limit: 100 });
        const first = await engine.searchJson(q);
        expect(first.total).to.equal(grants.length);
        const smaller = grants.filter((g) => g.funderType === 'FOUNDATION');
        const turnRead = engine.searchJson(q); // opens this turn's snapshot
        await writer.reindex(source(smaller));
        const during = await engine.searchJson(q);
        expect((await turnRead).total).to.equal(grants.length);
        expect(during.total).to.equal(grants.length);
        expect(during.facets).to.deep.equal(first.facets);
        await nextTurn();
        const after = await engine.searchJson(q);
        expect(after.total).to.equal(smaller.length);
        expect(after.facets).to.deep.equal({ funderType: [{ value: 'FOUNDATION', count: smaller.length }] });
        const expectedIds = [...smaller]
          .sort(referenceOrder('deadline', false))
          .slice(0, 100)
          .map((g) => g.id);
        expect(after.grantsJson.map((json) => (JSON.parse(json) as Grant).id)).to.deep.equal(expectedIds);
      } finally {
        await writer.close();
        await engine.close();
      }
    });

    it('a catalog changed by another writer without a build id is still followed (data_version)', async () => {
      const engine = SqliteSearchEngine.open(file);
      const other = new Database(file);
      try {
        await nextTurn();
        const q = query({ limit: 100 });
        expect((await engine.searchJson(q)).total).to.equal(grants.length);
        other.exec("DELETE FROM catalog_meta WHERE key = 'catalog_build'");
        await nextTurn();
        expect((await engine.searchJson(q)).total).to.equal(grants.length);
        const victim = other.prepare('SELECT rowid FROM grants ORDER BY id LIMIT 1').pluck().get() as number;
        other.prepare('DELETE FROM grants_text WHERE rowid = ?').run(victim);
        other.prepare('DELETE FROM grants WHERE rowid = ?').run(victim);
        await nextTurn();
        expect((await engine.searchJson(q)).total).to.equal(grants.length - 1);
      } finally {
        other.close();
        await engine.close();
      }
    });

    it('a row deleted behind an unchanged build id is never served as a hole: the columns are read again', async () => {
      const engine = SqliteSearchEngine.open(file);
      const other = new Database(file);
      try {
        await nextTurn();
        const q = query({ limit: 100, sort: { key: 'title', descending: false } });
        const before = await engine.searchJson(q);
        const victimId = (JSON.parse(before.grantsJson[0]) as Grant).id;
        const victim = other.prepare('SELECT rowid FROM grants WHERE id = ?').pluck().get(victimId) as number;
        other.prepare('DELETE FROM grants_text WHERE rowid = ?').run(victim);
        other.prepare('DELETE FROM grants WHERE rowid = ?').run(victim);
        await nextTurn();
        const after = await engine.searchJson(q);
        expect(after.grantsJson.every((doc) => typeof doc === 'string')).to.equal(true);
        expect(after.grantsJson.map((doc) => (JSON.parse(doc) as Grant).id)).to.not.include(victimId);
        expect(after.total).to.equal(before.total - 1);
      } finally {
        other.close();
        await engine.close();
      }
    });
  });
});
