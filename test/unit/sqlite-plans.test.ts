// The embedded engine picks one of two plans for a filter-only page (walk the order index, or find
// through the filter index and sort): both must give the same rows in the same order.
import { expect } from 'chai';
import { rmSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { parseGrantQuery } from '../../src/http/grantSearchParams.js';
import type { Grant } from '../../src/grants/schema.js';
import { parseQueryString } from '../../src/http/queryParams.js';
import { SqliteCatalogWriter } from '../../src/search/sqlite/writer.js';
import { translateToSqlite } from '../../src/search/sqlite/translator.js';
import { fixtureGrants, tempDir } from '../support/api.js';

const QUERIES = [
  '',
  'limit=100',
  'page=5&limit=100',
  'page=3',
  'funderType=FOUNDATION',
  'funderType=FOUNDATION,MUNICIPAL_GRANT&limit=50',
  'fundingType=LOAN&page=2&limit=5',
  'eligibleProvinces=YUKON,NUNAVUT',
  'eligibleProvinces=QUEBEC&fundingType=GRANT&limit=100',
  'amountMin=10000',
  'amountMax=5000&limit=100',
  'amountMin=1000&amountMax=20000&funderType=CORPORATE,FOUNDATION,FEDERAL_GRANT',
  'fundingType=EQUITY&eligibleProvinces=ALBERTA',
  'funderType=NON_PROFIT_ORGANIZATION&page=2&limit=7',
];

const TEXT_QUERIES = [
  'search=grant',
  'search=grant&page=2&limit=7',
  'search=grant&page=9&limit=13',
  'search=technology&limit=100',
  'search=clean%20technology&page=3&limit=3',
  'search=quebec',
  'search=quebec&page=4&limit=9',
  'search=tax%20credit&eligibleProvinces=ONTARIO,QUEBEC&limit=5&page=2',
  'search=program&funderType=FOUNDATION,CORPORATE&limit=11',
  'search=refundable%20tax%20credit%20research',
  'search=housing&amountMin=1000&page=2&limit=4',
  'search=zzzznothing',
];

describe('embedded engine: the two filter-only page plans agree', () => {
  const dir = tempDir('grants-plans-');
  const file = path.join(dir, 'catalog.sqlite');
  let db: Database.Database;

  before(async () => {
    const grants: Grant[] = fixtureGrants();
    const writer = SqliteCatalogWriter.open(file);
    await writer.reindex(
      (async function* () {
        yield* grants;
      })(),
    );
    await writer.close();
    db = new Database(file, { readonly: true });
  });

  after(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const qs of TEXT_QUERIES) {
    it(`"${qs}": ranked page equals the plain ORDER BY bm25, id`, () => {
      const query = parseGrantQuery(parseQueryString(qs));
      const { page, count } = translateToSqlite(query);
      const [text, ...rest] = count.params;
      const filters = count.sql.includes(' AND ') ? count.sql.slice(count.sql.indexOf(' AND ')) : '';
      const naive = `SELECT g.doc FROM grants_text JOIN grants g ON g.rowid = grants_text.rowid WHERE grants_text MATCH ?${filters} ORDER BY bm25(grants_text, 3, 2, 1), g.id LIMIT ? OFFSET ?`;
      const ids = (sql: string, params: unknown[]) => (db.prepare(sql).pluck().all(...params) as string[]).map((doc) => (JSON.parse(doc) as Grant).id);
      const expected = ids(naive, [text, ...rest, query.size, query.offset]);
      expect(ids(page.sql, page.params)).to.deep.equal(expected);
    });
  }

  it('ties in score exist in the fixtures (so the tie-break by id is exercised)', () => {
    const ties = db
      .prepare(
        `SELECT count(*) FROM (SELECT bm25(grants_text, 3, 2, 1) AS s FROM grants_text WHERE grants_text MATCH '"grant"' GROUP BY s HAVING count(*) > 1)`,
      )
      .pluck()
      .get() as number;
    expect(ties).to.be.greaterThan(0);
  });

  for (const qs of QUERIES) {
    it(`"${qs}": same ids in the same order, and the page walks the order index`, () => {
      const { page, sparsePage, count } = translateToSqlite(parseGrantQuery(parseQueryString(qs)));
      const ids = (sql: string, params: unknown[]) => (db.prepare(sql).pluck().all(...params) as string[]).map((doc) => (JSON.parse(doc) as Grant).id);
      const walked = ids(page.sql, page.params);
      expect(sparsePage).to.not.equal(undefined);
      expect(ids(sparsePage!.sql, sparsePage!.params)).to.deep.equal(walked);
      const total = (db.prepare(count.sql).get(...count.params) as { total: number }).total;
      const query = parseGrantQuery(parseQueryString(qs));
      expect(walked.length).to.equal(Math.max(0, Math.min(query.size, total - query.offset)));
      const plan = (db.prepare(`EXPLAIN QUERY PLAN ${page.sql}`).all(...page.params) as { detail: string }[]).map((r) => r.detail).join(' | ');
      expect(plan).to.match(/grants_order/);
      expect(plan).to.not.match(/TEMP B-TREE/);
    });
  }
});
