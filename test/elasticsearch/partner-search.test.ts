// The partner-search fields on a real Elasticsearch, against a reference written here (plain
// JavaScript over the fixture grants, independent of the translator): every new filter alone and
// combined and at its edges, every sort in both directions through every page, disjunctive facets;
// then a live alias on the mapping of the previous release (no title sort key) that keeps
// serving, and a reindex that moves it to the current mapping.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import type { FacetName, Facets, GrantQuery, SortKey } from '../../src/grants/query.js';
import { plainSearch } from '../../src/grants/searchSyntax.js';
import { parseGrantQuery } from '../../src/http/parameters/grantSearchParams.js';
import { titleSortKey } from '../../src/grants/folding.js';
import type { Grant } from '../../src/grants/schema.js';
import { ServiceUnavailableError } from '../../src/failures.js';
import { parseQueryString } from '../../src/http/parameters/queryParams.js';
import { createEsClient } from '../../src/search/elasticsearch/client.js';
import { ElasticsearchSearchEngine } from '../../src/search/elasticsearch/engine.js';
import { ElasticsearchCatalogWriter } from '../../src/search/elasticsearch/writer.js';
import { idKeysOf } from '../../src/search/elasticsearch/idKeys.js';
import { fixtureGrants, REPO_ROOT } from '../support/api.js';
import {
  ES_URL,
  describeWithElasticsearch,
  dropAlias,
  testClient,
  uniqueAlias,
  reindexAlias,
} from '../support/elasticsearch.js';

// ---------------------------------------------------------------------------------------------
// The reference: what the GrantQuery comments say, over the grants in memory.

const time = (iso: string | null): number | null => (iso === null ? null : Date.parse(iso));
/** Code point order (UTF-8 byte order), as keywords and SQLite's BINARY compare. */
const byCodePoint = (a: string, b: string): number => Buffer.compare(Buffer.from(a), Buffer.from(b));
/**
 * The status at `now` as the GrantQuery comments say: CLOSED past the deadline, FORECASTED before opensAt, else OPEN.
 */
function statusOf(g: Grant, now: number): string {
  const deadline = time(g.deadline);
  const opensAt = time(g.opensAt);
  if (deadline !== null && deadline < now) return 'CLOSED';
  return opensAt !== null && opensAt > now ? 'FORECASTED' : 'OPEN';
}
const anyOf = <T>(wanted: readonly T[], held: T | readonly T[] | null): boolean =>
  wanted.length === 0 || (Array.isArray(held) ? held.some((v) => wanted.includes(v)) : wanted.includes(held as T));

/** Each facet's own condition (the one its count leaves out). */
const OWN: Record<FacetName, (g: Grant, q: GrantQuery) => boolean> = {
  funderType: (g, q) => anyOf(q.funderTypes, g.funderType),
  fundingType: (g, q) => anyOf(q.fundingTypes, g.fundingType),
  eligibleProvinces: (g, q) => anyOf(q.provinces, g.eligibleProvinces),
  targetBeneficiaries: (g, q) => anyOf(q.beneficiaries, g.targetBeneficiaries),
  currency: (g, q) => anyOf(q.currencies, g.currency),
  applicationComplexity: (g, q) => anyOf(q.complexities, g.applicationComplexity),
  sdgAlignment: (g, q) => anyOf(q.sdgs, g.sdgAlignment),
  isRecurring: (g, q) => q.isRecurring === null || g.isRecurring === q.isRecurring,
  status: (g, q) => anyOf(q.statuses, statusOf(g, q.now)),
};

function otherConditions(g: Grant, q: GrantQuery): boolean {
  if (q.amountMin !== null || q.amountMax !== null) {
    if (g.amountMin === null && g.amountMax === null) return false;
    if (q.amountMin !== null && g.amountMax !== null && g.amountMax < q.amountMin) return false;
    if (q.amountMax !== null && g.amountMin !== null && g.amountMin > q.amountMax) return false;
  }
  const deadline = time(g.deadline);
  if (q.open !== null && (statusOf(g, q.now) === 'OPEN') !== q.open) return false;
  if (q.deadlineFrom !== null && (deadline === null || deadline < q.deadlineFrom)) return false;
  if (q.deadlineTo !== null && (deadline === null || deadline > q.deadlineTo)) return false;
  if (q.updatedSince !== null && (time(g.updatedAt) as number) < q.updatedSince) return false;
  return true;
}

const matches = (g: Grant, q: GrantQuery, except: FacetName | null = null): boolean =>
  otherConditions(g, q) && (Object.keys(OWN) as FacetName[]).every((f) => f === except || OWN[f](g, q));

function sortValue(g: Grant, key: Exclude<SortKey, 'relevance'>): string | number | null {
  switch (key) {
    case 'title':
      return titleSortKey(g.title);
    case 'amountMin':
    case 'amountMax':
      return g[key];
    default:
      return time(g[key]);
  }
}

function referenceOrder(grants: Grant[], q: GrantQuery): Grant[] {
  const key = q.sort.key as Exclude<SortKey, 'relevance'>;
  return [...grants].sort((a, b) => {
    const [x, y] = [sortValue(a, key), sortValue(b, key)];
    if (x !== y) {
      if (x === null) return 1; // nulls last, in both directions
      if (y === null) return -1;
      const c = typeof x === 'string' ? byCodePoint(x, y as string) : x - (y as number);
      if (c !== 0) return q.sort.descending ? -c : c;
    }
    return byCodePoint(a.id, b.id);
  });
}

function referenceFacets(grants: Grant[], q: GrantQuery): Facets {
  const facets: Facets = {};
  for (const facet of q.facets) {
    const counts = new Map<string, number>();
    for (const g of grants) {
      if (!matches(g, q, facet)) continue;
      const held = facet === 'status' ? statusOf(g, q.now) : g[facet];
      if (held === null) continue;
      for (const v of Array.isArray(held) ? held : [held]) counts.set(String(v), (counts.get(String(v)) ?? 0) + 1);
    }
    facets[facet] = [...counts]
      .map(([value, count]) => ({ value, count }))
      .sort((a, b) => b.count - a.count || byCodePoint(a.value, b.value));
  }
  return facets;
}

// ---------------------------------------------------------------------------------------------

const grants = fixtureGrants();
const byId = new Map(grants.map((g) => [g.id, g]));
const deadlines = grants
  .map((g) => g.deadline)
  .filter((d): d is string => d !== null)
  .sort();
/** A deadline several grants share, in the middle of the catalog: a bound and a "now" on it. */
const EDGE = deadlines[Math.floor(deadlines.length / 2)];
const EDGE_MS = Date.parse(EDGE);

const query = (over: Partial<GrantQuery>): GrantQuery => {
  // Words alone are plain words (their search made from them).
  const q = {
    ...parseGrantQuery(parseQueryString('')),
    now: EDGE_MS,
    ...(over.words !== undefined && !('search' in over) && { search: plainSearch(over.words) }),
    ...over,
  };
  return { ...q, offset: (q.page - 1) * q.limit, size: q.limit };
};

describeWithElasticsearch('partner search on Elasticsearch', function () {
  this.timeout(120_000);
  const alias = uniqueAlias();
  const config = { url: ES_URL as string, index: alias, requestTimeoutMs: 30_000 };
  let engine: ElasticsearchSearchEngine;

  before(async () => {
    await reindexAlias(config, grants);
    engine = new ElasticsearchSearchEngine(createEsClient(config), alias);
  });

  after(async () => {
    await engine?.close();
    await dropAlias(alias);
  });

  /** Every page of the query: the ids in order, each page's total, and the first page's facets. */
  async function allPages(q: GrantQuery): Promise<{ ids: string[]; totals: number[]; facets: Facets | undefined }> {
    const ids: string[] = [];
    const totals: number[] = [];
    let facets: Facets | undefined;
    for (let page = 1; ; page++) {
      const result = await engine.searchJson(query({ ...q, page }));
      totals.push(result.total);
      if (page === 1) facets = result.facets;
      for (const text of result.grantsJson) {
        const grant = JSON.parse(text) as Grant;
        expect(text, 'served bytes').to.equal(JSON.stringify(byId.get(grant.id)));
        ids.push(grant.id);
      }
      if (result.grantsJson.length < q.limit) return { ids, totals, facets };
    }
  }

  async function expectReference(over: Partial<GrantQuery>): Promise<number> {
    const q = query({ limit: 100, ...over });
    const expected = referenceOrder(
      grants.filter((g) => matches(g, q)),
      q,
    );
    const got = await allPages(q);
    expect(got.ids).to.deep.equal(expected.map((g) => g.id));
    expect(new Set(got.totals)).to.deep.equal(new Set([expected.length]));
    if (q.facets.length > 0) expect(got.facets).to.deep.equal(referenceFacets(grants, q));
    else expect(got.facets).to.equal(undefined);
    return expected.length;
  }

  describe('filters (deadline order, every page)', () => {
    it('the fixtures hold what the edges need: null deadlines, a deadline several grants share, null isRecurring', () => {
      expect(grants.some((g) => g.deadline === null)).to.equal(true);
      expect(deadlines.filter((d) => d === EDGE).length).to.be.at.least(2);
      expect(grants.some((g) => g.isRecurring === null)).to.equal(true);
    });

    it('open=true at a "now" equal to a deadline keeps that deadline and the rolling grants; open=false keeps the rest', async () => {
      const open = await expectReference({ open: true });
      const closed = await expectReference({ open: false });
      expect(open + closed).to.equal(grants.length);
      // One millisecond later the grants due exactly at EDGE have closed.
      const later = await expectReference({ open: true, now: EDGE_MS + 1 });
      expect(open - later).to.equal(deadlines.filter((d) => d === EDGE).length);
    });

    it('status: each alone and together, its facet disjunctive, at a "now" equal to an opensAt and a millisecond before', async () => {
      const opening = grants
        .map((g) => g.opensAt)
        .filter((d): d is string => d !== null && Date.parse(d) > EDGE_MS)
        .sort();
      const at = Date.parse(opening[Math.floor(opening.length / 2)]);
      expect(opening.length, 'forecasted grants at EDGE').to.be.above(5);
      const forecasted = await expectReference({ statuses: ['FORECASTED'], facets: ['status'] });
      const open = await expectReference({ statuses: ['OPEN'], facets: ['status', 'eligibleProvinces'] });
      const closed = await expectReference({ statuses: ['CLOSED'] });
      expect([forecasted, open, closed].every((n) => n > 0)).to.equal(true);
      expect(forecasted + open + closed).to.equal(grants.length);
      expect(
        await expectReference({
          statuses: ['FORECASTED', 'CLOSED'],
          open: false,
          provinces: ['QUEBEC'],
          facets: ['status'],
        }),
      ).to.be.above(0);
      expect(await expectReference({ open: true, facets: ['status'] })).to.equal(open);
      const before = await expectReference({ statuses: ['FORECASTED'], now: at - 1 });
      const after = await expectReference({ statuses: ['FORECASTED'], now: at });
      expect(before - after).to.equal(opening.filter((d) => Date.parse(d) === at).length);
    });

    it('deadline bounds are inclusive to the millisecond and never match a null deadline', async () => {
      expect(await expectReference({ deadlineFrom: EDGE_MS, deadlineTo: EDGE_MS })).to.equal(
        deadlines.filter((d) => d === EDGE).length,
      );
      await expectReference({ deadlineFrom: EDGE_MS + 1 });
      await expectReference({ deadlineTo: EDGE_MS - 1 });
      expect(await expectReference({ deadlineFrom: 0 })).to.equal(deadlines.length);
    });

    it('updatedSince, and each list filter and isRecurring alone', async () => {
      const updated = grants.map((g) => Date.parse(g.updatedAt)).sort((a, b) => a - b);
      await expectReference({ updatedSince: updated[Math.floor(updated.length / 3)] });
      await expectReference({ beneficiaries: ['SMALL_BUSINESS'] });
      await expectReference({ beneficiaries: ['STUDENTS', 'RESEARCHERS'] });
      await expectReference({ currencies: ['USD'] });
      await expectReference({ complexities: ['LOW', 'HIGH'] });
      await expectReference({ sdgs: ['SDG_13'] });
      expect(await expectReference({ isRecurring: true })).to.be.above(0);
      expect(await expectReference({ isRecurring: false })).to.be.above(0);
    });

    it('combined with each other and with the filters of the specification', async () => {
      await expectReference({ open: true, beneficiaries: ['SMALL_BUSINESS'], provinces: ['ONTARIO'] });
      await expectReference({ open: false, currencies: ['CAD'], isRecurring: false, amountMin: 10_000 });
      await expectReference({
        deadlineFrom: EDGE_MS,
        complexities: ['MEDIUM'],
        sdgs: ['SDG_8', 'SDG_9'],
        funderTypes: ['FOUNDATION', 'FEDERAL_GRANT'],
      });
    });
  });

  describe('sorts (every page, nulls last both ways, ties by id)', () => {
    for (const key of ['deadline', 'opensAt', 'amountMin', 'amountMax', 'createdAt', 'updatedAt', 'title'] as const) {
      for (const descending of [false, true]) {
        it(`${descending ? '-' : ''}${key}`, async () => {
          await expectReference({ sort: { key, descending } });
          await expectReference({ sort: { key, descending }, fundingTypes: ['GRANT'], open: true, limit: 7 });
        });
      }
    }

    it('a text search in a field order returns its matches in that order', async () => {
      const q = query({ words: ['energy'], sort: { key: 'amountMax', descending: true }, limit: 100 });
      const { ids } = await allPages(q);
      expect(ids.length).to.be.above(1);
      const sorted = referenceOrder(
        ids.map((id) => byId.get(id) as Grant),
        q,
      ).map((g) => g.id);
      expect(ids).to.deep.equal(sorted);
    });
  });

  describe('disjunctive facets', () => {
    it('every facet without a filter of its own counts exactly the matches', async () => {
      await expectReference({
        facets: [
          'funderType',
          'fundingType',
          'eligibleProvinces',
          'targetBeneficiaries',
          'currency',
          'applicationComplexity',
          'sdgAlignment',
          'isRecurring',
        ],
      });
      await expectReference({
        open: true,
        amountMax: 50_000,
        facets: ['isRecurring', 'currency', 'applicationComplexity'],
      });
    });

    it('a faceted filter is left out of its own count only; hits and total keep it', async () => {
      const total = await expectReference({
        provinces: ['QUEBEC'],
        fundingTypes: ['GRANT', 'LOAN'],
        isRecurring: false,
        beneficiaries: ['SMALL_BUSINESS'],
        facets: ['eligibleProvinces', 'fundingType', 'isRecurring', 'funderType'],
      });
      expect(total).to.be.above(0);
    });

    it('facets do not depend on the page, and a text search is counted too', async () => {
      const q = {
        words: ['clean'],
        provinces: ['ONTARIO' as const],
        facets: ['eligibleProvinces', 'sdgAlignment'] as FacetName[],
      };
      const first = await engine.searchJson(query({ ...q, page: 1, limit: 5 }));
      const third = await engine.searchJson(query({ ...q, page: 3, limit: 5 }));
      expect(third.facets).to.deep.equal(first.facets);
      const provinces = first.facets?.eligibleProvinces ?? [];
      // Disjunctive: other provinces are counted although the hits are Ontario's only.
      expect(provinces.find((f) => f.value === 'ONTARIO')?.count).to.equal(first.total);
      expect(provinces.length).to.be.above(1);
    });

    it('a facet with no value in the matches is an empty list', async () => {
      const result = await engine.searchJson(
        query({ deadlineFrom: Date.parse('2999-01-01T00:00:00.000Z'), facets: ['currency'] }),
      );
      expect(result.total).to.equal(0);
      expect(result.facets).to.deep.equal({ currency: [] });
    });
  });
});

/** An earlier release's mapping: the current one less the fields that release did not have. */
interface EarlierMapping {
  release: string;
  /** Fields of the current mapping it lacks. */
  lacks: string[];
  /** Its index sort (null: none). */
  sort: unknown;
}

const ID_KEYS = ['idKey0', 'idKey1', 'idKey2', 'idKey3', 'idKey4', 'idKey5', 'idRest'];
const EARLIER_MAPPINGS: EarlierMapping[] = [
  { release: 'before the title sort key', lacks: ['labels', 'titleSort', ...ID_KEYS], sort: null },
  {
    release: 'before the id keys',
    lacks: ['labels', ...ID_KEYS],
    sort: { field: ['deadline', 'id'], order: ['asc', 'asc'], missing: ['_last', '_last'] },
  },
];

for (const earlier of EARLIER_MAPPINGS) {
  describeWithElasticsearch(`a live alias on the mapping of the release ${earlier.release}`, function () {
    this.timeout(120_000);
    const alias = uniqueAlias();
    const config = { url: ES_URL as string, index: alias, requestTimeoutMs: 30_000 };
    const client = testClient();
    const oldIndex = `${alias}-20250101t000000000-0000`;
    const hasTitleSort = !earlier.lacks.includes('titleSort');
    let engine: ElasticsearchSearchEngine;

    before(async () => {
      const current = JSON.parse(readFileSync(`${REPO_ROOT}/mappings/elasticsearch-grants.json`, 'utf8')) as {
        settings: Record<string, unknown>;
        mappings: { _source?: unknown; properties: Record<string, unknown> };
      };
      const properties = Object.fromEntries(
        Object.entries(current.mappings.properties).filter(([field]) => !earlier.lacks.includes(field)),
      );
      for (const field of earlier.lacks)
        expect(current.mappings.properties[field], `the current mapping has ${field}`).to.not.equal(undefined);
      const { sort, ...settings } = current.settings as { sort?: unknown };
      void sort;
      await client.indices.create({
        index: oldIndex,
        settings: { ...settings, number_of_replicas: 0, ...(earlier.sort !== null && { sort: earlier.sort }) },
        mappings: { dynamic: 'strict', ...(hasTitleSort && { _source: { excludes: ['titleSort'] } }), properties },
      } as never);
      await client.bulk({
        refresh: true,
        operations: grants.flatMap((g) => [
          { create: { _index: oldIndex, _id: g.id } },
          hasTitleSort ? { ...g, titleSort: titleSortKey(g.title) } : g,
        ]),
      });
      await client.indices.updateAliases({ actions: [{ add: { index: oldIndex, alias } }] });
      engine = new ElasticsearchSearchEngine(createEsClient(config), alias);
    });

    after(async () => {
      await engine?.close();
      await client.close();
      await dropAlias(alias);
    });

    it('serves searches without the new features, and with the new filters, sorts and facets, in order (ties by id)', async () => {
      const plain = await engine.searchJson(query({ limit: 10 }));
      expect(plain.total).to.equal(grants.length);
      expect(plain.grantsJson.map((t) => JSON.parse(t).id)).to.deep.equal(
        referenceOrder(grants, query({}))
          .slice(0, 10)
          .map((g) => g.id),
      );
      expect(plain.grantsJson[0]).to.equal(JSON.stringify(byId.get(JSON.parse(plain.grantsJson[0]).id)));
      for (const q of [
        query({
          open: true,
          provinces: ['ONTARIO'],
          sort: { key: 'amountMax', descending: true },
          facets: ['eligibleProvinces'],
          limit: 600,
        }),
        // A deep page of a field order with many ties (null amounts), past the first segment's worth.
        query({ sort: { key: 'amountMin', descending: false }, limit: 50, page: 3 }),
      ]) {
        const result = await engine.searchJson(q);
        const expected = referenceOrder(
          grants.filter((g) => matches(g, q)),
          q,
        ).slice((q.page - 1) * q.limit, q.page * q.limit);
        expect(result.grantsJson.map((t) => JSON.parse(t).id)).to.deep.equal(expected.map((g) => g.id));
        if (q.facets.length > 0) expect(result.facets).to.deep.equal(referenceFacets(grants, q));
      }
    });

    if (hasTitleSort) {
      it('a title sort works', async () => {
        const q = query({ sort: { key: 'title', descending: true }, limit: 50 });
        const result = await engine.searchJson(q);
        expect(result.grantsJson.map((t) => JSON.parse(t).id)).to.deep.equal(
          referenceOrder(grants, q)
            .slice(0, 50)
            .map((g) => g.id),
        );
      });
    } else {
      it('a title sort is a 503 (ServiceUnavailableError) that names the reindex, not a wrong order', async () => {
        let thrown: unknown;
        try {
          await engine.searchJson(query({ sort: { key: 'title', descending: false } }));
        } catch (error) {
          thrown = error;
        }
        expect(thrown).to.be.instanceOf(ServiceUnavailableError);
        expect((thrown as Error).message).to.match(/reindex/);
      });
    }

    it(`sync writes into it without the fields it lacks (its strict mapping has none of ${earlier.lacks.join(', ')})`, async () => {
      const writer = ElasticsearchCatalogWriter.open(config, {}, { keep: 1, replicas: 0 });
      try {
        const changed = { ...grants[0], title: 'Renamed for the sync', updatedAt: '2026-11-01T00:00:00.000Z' };
        const counts = await writer.sync(
          (async function* () {
            yield { grant: changed };
          })(),
          { prune: false },
        );
        expect(counts).to.deep.equal({ added: 0, updated: 1, unchanged: 0, deleted: 0 });
        expect(await engine.getByIdJson(changed.id)).to.equal(JSON.stringify(changed));
      } finally {
        await writer.close();
      }
    });

    it('a reindex moves the alias to an index of the current mapping, where the title sort works', async () => {
      await reindexAlias(config, grants);
      const live = Object.keys(await client.indices.getAlias({ name: alias }));
      expect(live).to.have.length(1);
      expect(live[0]).to.not.equal(oldIndex);
      const mapping = (await client.indices.getMapping({ index: live[0] }))[live[0]].mappings;
      expect(mapping.properties?.titleSort).to.deep.equal({ type: 'keyword' });
      expect(mapping.properties?.idKey0).to.deep.equal({ type: 'long', index: false });
      expect(mapping._source).to.deep.equal({ excludes: ['labels', 'titleSort', ...ID_KEYS] });
      const q = query({ sort: { key: 'title', descending: true }, limit: 50 });
      const result = await engine.searchJson(q);
      expect(result.grantsJson.map((t) => JSON.parse(t).id)).to.deep.equal(
        referenceOrder(grants, q)
          .slice(0, 50)
          .map((g) => g.id),
      );
      // The computed fields stay out of the served document.
      for (const text of result.grantsJson) expect(text).to.equal(JSON.stringify(byId.get(JSON.parse(text).id)));
    });
  });
}

describeWithElasticsearch('a live alias on the mapping of the release before grants had opensAt', function () {
  this.timeout(120_000);
  const alias = uniqueAlias();
  const config = { url: ES_URL as string, index: alias, requestTimeoutMs: 30_000 };
  const client = testClient();
  const oldIndex = `${alias}-20250101t000000000-0000`;
  // The grants as that release stored them: no opensAt at all.
  const stored = grants.map(({ opensAt: _opensAt, ...rest }) => rest);
  let engine: ElasticsearchSearchEngine;

  before(async () => {
    const current = JSON.parse(readFileSync(`${REPO_ROOT}/mappings/elasticsearch-grants.json`, 'utf8')) as {
      settings: Record<string, unknown>;
      mappings: { properties: Record<string, unknown> };
    };
    const { opensAt: _opensAt, ...properties } = current.mappings.properties;
    await client.indices.create({
      index: oldIndex,
      settings: { ...current.settings, number_of_replicas: 0 },
      mappings: { ...current.mappings, properties },
    } as never);
    const indexed = await client.bulk({
      refresh: true,
      operations: stored.flatMap((g) => [
        { create: { _index: oldIndex, _id: g.id } },
        { ...g, titleSort: titleSortKey(g.title), ...idKeysOf(g.id) },
      ]),
    });
    expect(indexed.errors, 'the old documents indexed').to.equal(false);
    await client.indices.updateAliases({ actions: [{ add: { index: oldIndex, alias } }] });
    engine = new ElasticsearchSearchEngine(createEsClient(config), alias);
  });

  after(async () => {
    await engine?.close();
    await client.close();
    await dropAlias(alias);
  });

  it('answers as before: no grant forecasted, open=true as the deadline alone says, sort=opensAt all last (by id)', async () => {
    const asBefore = stored.map((g) => ({ ...g, opensAt: null }) as Grant);
    expect((await engine.searchJson(query({ statuses: ['FORECASTED'], facets: ['status'] }))).total).to.equal(0);
    const open = await engine.searchJson(query({ open: true, limit: 100 }));
    const expected = referenceOrder(
      asBefore.filter((g) => matches(g, query({ open: true }))),
      query({}),
    ).slice(0, 100);
    expect(open.grantsJson.map((t) => JSON.parse(t).id)).to.deep.equal(expected.map((g) => g.id));
    const byOpening = await engine.searchJson(query({ sort: { key: 'opensAt', descending: false }, limit: 20 }));
    expect(byOpening.grantsJson.map((t) => JSON.parse(t).id)).to.deep.equal(
      stored
        .map((g) => g.id)
        .sort(byCodePoint)
        .slice(0, 20),
    );
  });

  it("a sync adds opensAt to its mapping and keeps the grant's opensAt: the grant is forecasted", async () => {
    const writer = ElasticsearchCatalogWriter.open(config, {}, { keep: 1, replicas: 0 });
    const changed: Grant = {
      ...grants[0],
      opensAt: '2099-01-01T05:00:00.000Z',
      deadline: '2099-06-30T23:59:59.000Z',
      updatedAt: '2026-11-01T00:00:00.000Z',
    };
    try {
      const counts = await writer.sync(
        (async function* () {
          yield { grant: changed };
        })(),
        { prune: false },
      );
      expect(counts).to.deep.equal({ added: 0, updated: 1, unchanged: 0, deleted: 0 });
    } finally {
      await writer.close();
    }
    const mapping = (await client.indices.getMapping({ index: oldIndex }))[oldIndex].mappings;
    expect(mapping.properties?.opensAt).to.deep.equal({ type: 'date' });
    expect(await engine.getByIdJson(changed.id)).to.equal(JSON.stringify(changed));
    const forecasted = await engine.searchJson(query({ statuses: ['FORECASTED'] }));
    expect(forecasted.grantsJson.map((t) => JSON.parse(t).id)).to.deep.equal([changed.id]);
  });
});

describeWithElasticsearch('ties between ids that share long prefixes', function () {
  this.timeout(120_000);
  const alias = uniqueAlias();
  const config = { url: ES_URL as string, index: alias, requestTimeoutMs: 30_000 };
  // Ids of 20 to 60 characters sharing up to 50: the id keys spell the first 42, the rest keyword
  // breaks the remaining ties (an id of exactly 42 characters has none and comes first).
  const stems = [
    'ca-on-2026-municipal-grant-program-00000',
    'ca-on-2026-municipal-grant-program-00000-stream-',
    'ca-on-2026-municipal-',
    'Z',
    'a',
  ];
  const tails = ['', '0', '1', '10', '1.a', '1:a', '1-a', '1_a', 'A', 'z', '00', '000000000000'];
  const deadlines = ['2026-03-31T23:59:59.000Z', '2026-06-30T23:59:59.000Z', null];
  const tied: Grant[] = [];
  for (const stem of stems) {
    for (const tail of tails) {
      const template = grants[tied.length % grants.length];
      tied.push({
        ...template,
        id: `${stem}${tail}`.slice(0, 128),
        // Everything a search scores on is the same, so relevance ties too.
        title: 'Community solar energy fund',
        description: 'Support for community solar energy projects.',
        funder: 'Placeholder Body',
        deadline: deadlines[tied.length % deadlines.length],
        amountMin: tied.length % 4 === 0 ? null : 5000,
      });
    }
  }
  let engine: ElasticsearchSearchEngine;

  before(async () => {
    expect(new Set(tied.map((g) => g.id)).size).to.equal(tied.length);
    expect(tied.some((g) => g.id.length === 42) && tied.some((g) => g.id.length > 42)).to.equal(true);
    await reindexAlias(config, tied);
    engine = new ElasticsearchSearchEngine(createEsClient(config), alias);
  });

  after(async () => {
    await engine?.close();
    await dropAlias(alias);
  });

  async function pages(over: Partial<GrantQuery>): Promise<string[]> {
    const ids: string[] = [];
    for (let page = 1; ; page++) {
      const result = await engine.searchJson(query({ limit: 7, ...over, page }));
      ids.push(...result.grantsJson.map((t) => JSON.parse(t).id as string));
      if (result.grantsJson.length < 7) return ids;
    }
  }

  for (const [key, descending] of [
    ['deadline', false],
    ['deadline', true],
    ['amountMin', false],
    ['title', false],
  ] as const) {
    it(`${descending ? '-' : ''}${key}: every page in order, ties by id`, async () => {
      const q = query({ sort: { key, descending } });
      expect(await pages({ sort: { key, descending } })).to.deep.equal(referenceOrder(tied, q).map((g) => g.id));
    });
  }

  it('relevance: equal scores in id order on every page', async () => {
    const ids = await pages({ words: ['solar'], sort: { key: 'relevance', descending: false } });
    expect(ids).to.deep.equal(tied.map((g) => g.id).sort(byCodePoint));
  });
});
