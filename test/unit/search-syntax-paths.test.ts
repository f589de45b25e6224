// The search syntax means the same on every path of the embedded engine: a page (in-memory
// postings or FTS5), the export (FTS5 on its own snapshot) and the alert matcher's text batch
// (FTS5 over the grants' text alone) find the same grants, over the fixture catalog.
import { expect } from 'chai';
import { rmSync } from 'node:fs';
import path from 'node:path';
import type { Grant } from '../../src/grants/schema.js';
import { parseExportQuery, parseGrantQuery } from '../../src/http/parameters/grantSearchParams.js';
import { parseQueryString } from '../../src/http/parameters/queryParams.js';
import type { SqliteSearchEngine } from '../../src/search/sqlite/runtime/engine.js';
import { BatchTextMatcher } from '../../src/search/sqlite/query/batchTextMatcher.js';
import { fixtureGrants, tempDir } from '../support/api.js';
import { indexedEngine } from '../support/catalog.js';

const SEARCHES = [
  'energy',
  'clean technology',
  '"clean technology"',
  '"technology clean"',
  'energy -quebec',
  'business youth -loan -"tax credit"',
  'energy -U.S.',
  '"clean tech" OR water',
  'clean technology OR water -waterloo',
  'water -quebec OR "clean technology" -york',
  'quebec OR',
  'quebec or montreal',
  '(montreal OR sherbrooke) -program',
  'NEAR(clean energy)',
  '-housing',
  '🌲 *',
];

describe('search syntax: the same grants on every embedded path', function () {
  this.timeout(60_000);
  const dir = tempDir('grants-syntax-paths-');
  const file = path.join(dir, 'catalog.sqlite');
  const grants = fixtureGrants();
  let engine: SqliteSearchEngine;
  const matcher = new BatchTextMatcher();

  before(async () => {
    engine = await indexedEngine(file, grants);
  });
  after(async () => {
    await engine.close();
    matcher.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const idsOf = (jsons: string[]) => jsons.map((json) => (JSON.parse(json) as Grant).id).sort();

  for (const text of SEARCHES) {
    it(text, async () => {
      const params = `search=${encodeURIComponent(text)}`;
      const byTitle = await engine.searchJson(parseGrantQuery(parseQueryString(`${params}&sort=title&limit=100`)));
      const ranked = parseGrantQuery(parseQueryString(`${params}&limit=100`));
      const byRelevance = await engine.searchJson(ranked);
      const exported = await engine.exportJson(parseExportQuery(parseQueryString(params)).query);
      const exportedIds: string[] = [];
      for await (const batch of exported.batches) exportedIds.push(...idsOf(batch));
      const batch = matcher.batch(grants);
      const alerted = [...batch.matching(ranked.search)].sort();
      batch.close();
      expect(byTitle.total, 'fits on a page').to.be.at.most(100);
      const page = idsOf(byTitle.grantsJson);
      expect(idsOf(byRelevance.grantsJson), 'relevance page').to.deep.equal(page);
      expect(exportedIds.sort(), 'export').to.deep.equal(page);
      expect(alerted, 'alert matcher').to.deep.equal(page);
    });
  }

  it('the cases are not all empty', async () => {
    const total = async (text: string) =>
      (await engine.searchJson(parseGrantQuery(parseQueryString(`search=${encodeURIComponent(text)}&sort=title`))))
        .total;
    expect(await total('energy -quebec')).to.be.greaterThan(0);
    expect(await total('energy -quebec')).to.be.lessThan(await total('energy'));
    expect(await total('clean technology OR water -waterloo')).to.be.greaterThan(await total('clean technology'));
  });
});
