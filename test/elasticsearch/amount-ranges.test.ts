// The ranges on a grant's own amounts (GrantQuery.amountMinRange / amountMaxRange, which the
// CommonGrants search's minAwardAmountRange and maxAwardAmountRange ask for) on both engines,
// against a reference written here over the fixture grants: bounds inclusive, a null amount never
// matching, combined with the other conditions and with search words (the embedded engine then
// tests the words' few hits alone).
import { expect } from 'chai';
import { rmSync } from 'node:fs';
import path from 'node:path';
import type { AmountRange, GrantQuery } from '../../src/grants/query.js';
import type { Grant } from '../../src/grants/schema.js';
import { parseExportQuery } from '../../src/http/parameters/grantSearchParams.js';
import { parseQueryString } from '../../src/http/parameters/queryParams.js';
import type { SearchEngine } from '../../src/search/engine.js';
import { createEsClient } from '../../src/search/elasticsearch/client.js';
import { ElasticsearchSearchEngine } from '../../src/search/elasticsearch/engine.js';
import { SqliteSearchEngine } from '../../src/search/sqlite/runtime/engine.js';
import { SqliteCatalogWriter } from '../../src/search/sqlite/storage/writer.js';
import { fixtureGrants, tempDir } from '../support/api.js';
import { reindexGrants } from '../support/catalog.js';
import { ES_URL, describeWithElasticsearch, dropAlias, reindexAlias, uniqueAlias } from '../support/elasticsearch.js';

const grants = fixtureGrants();
const amounts = (key: 'amountMin' | 'amountMax'): number[] =>
  [...new Set(grants.map((g) => g[key]).filter((a): a is number => a !== null))].sort((a, b) => a - b);
const mins = amounts('amountMin');
const maxes = amounts('amountMax');
/** A value held by some grant, at a place of the sorted distinct values (a bound on it must include it). */
const at = (values: number[], share: number): number => values[Math.floor((values.length - 1) * share)];

interface Case {
  name: string;
  params: string;
  amountMinRange?: AmountRange;
  amountMaxRange?: AmountRange;
}

const CASES: Case[] = [
  {
    name: 'amountMin in a middle range, bounds on held values',
    params: '',
    amountMinRange: { min: at(mins, 0.25), max: at(mins, 0.75) },
  },
  { name: 'amountMin equal to one held value', params: '', amountMinRange: { min: at(mins, 0.5), max: at(mins, 0.5) } },
  { name: 'amountMax over everything (nulls still out)', params: '', amountMaxRange: { min: 0, max: 1e13 } },
  { name: 'amountMax in a narrow range', params: '', amountMaxRange: { min: at(maxes, 0.4), max: at(maxes, 0.6) } },
  {
    name: 'both ranges and a currency',
    params: 'currency=CAD',
    amountMinRange: { min: 0, max: at(mins, 0.5) },
    amountMaxRange: { min: at(maxes, 0.5), max: 1e13 },
  },
  {
    name: 'with the overlap filter of GET /grants',
    params: 'amountMin=20000&fundingType=GRANT,LOAN',
    amountMaxRange: { min: 0, max: at(maxes, 0.8) },
  },
  {
    name: 'with search words (the few hits tested alone)',
    params: 'search=energy',
    amountMinRange: { min: at(mins, 0.1), max: at(mins, 0.9) },
  },
  { name: 'a range holding nothing', params: '', amountMinRange: { min: 1e13, max: 1e13 } },
];

const inRange = (value: number | null, range: AmountRange | undefined): boolean =>
  range === undefined || (value !== null && value >= range.min && value <= range.max);

/** The query of a case: its GET /grants parameters, then the ranges (as the CommonGrants search builds it). */
const queryOf = (c: Case): GrantQuery => ({
  ...parseExportQuery(parseQueryString(c.params)).query,
  amountMinRange: c.amountMinRange ?? null,
  amountMaxRange: c.amountMaxRange ?? null,
});

/** The ids every match of a query, sorted. */
async function matchIds(engine: SearchEngine, query: GrantQuery): Promise<string[]> {
  const exported = await engine.exportJson(query);
  const ids: string[] = [];
  try {
    for await (const batch of exported.batches) for (const json of batch) ids.push((JSON.parse(json) as Grant).id);
  } finally {
    await exported.close();
  }
  return ids.sort();
}

function rangeCases(engineOf: () => SearchEngine): void {
  for (const c of CASES) {
    it(c.name, async () => {
      const engine = engineOf();
      const without = await matchIds(engine, { ...queryOf(c), amountMinRange: null, amountMaxRange: null });
      const byId = new Map(grants.map((g) => [g.id, g]));
      const expected = without.filter(
        (id) =>
          inRange(byId.get(id)!.amountMin, c.amountMinRange) && inRange(byId.get(id)!.amountMax, c.amountMaxRange),
      );
      const got = await matchIds(engine, queryOf(c));
      expect(got).to.deep.equal(expected);
      if (c.name !== 'a range holding nothing') expect(got.length, 'the case matches some grants').to.be.greaterThan(0);
      const page = await engine.searchJson({ ...queryOf(c), page: 1, limit: 5, offset: 0, size: 5 });
      expect(page.total).to.equal(expected.length);
    });
  }
}

describe('amount ranges on the embedded engine', function () {
  const dir = tempDir('grants-amount-ranges-');
  let engine: SqliteSearchEngine;
  before(async () => {
    const writer = SqliteCatalogWriter.open(path.join(dir, 'catalog.sqlite'));
    await reindexGrants(writer, grants);
    await writer.close();
    engine = SqliteSearchEngine.open(path.join(dir, 'catalog.sqlite'));
  });
  after(async () => {
    await engine?.close();
    rmSync(dir, { recursive: true, force: true });
  });
  rangeCases(() => engine);
});

describeWithElasticsearch('amount ranges on Elasticsearch', function () {
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
  rangeCases(() => engine);
});
