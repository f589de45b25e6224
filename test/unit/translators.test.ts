import { expect } from 'chai';
import type { GrantQuery } from '../../src/grants/query.js';
import { parseGrantQuery } from '../../src/http/grantSearchParams.js';
import { parseQueryString } from '../../src/http/queryParams.js';
import { translateToElasticsearch } from '../../src/search/elasticsearch/translator.js';
import { ftsMatchExpression, preferSparsePage, translateToSqlite } from '../../src/search/sqlite/translator.js';

const q = (qs: string): GrantQuery => parseGrantQuery(parseQueryString(qs));

describe('GrantQuery parsing', () => {
  it('applies the defaults, with the request time it is given as now', () => {
    expect(parseGrantQuery(parseQueryString(''), 1_800_000_000_000)).to.deep.equal({
      words: [],
      funderTypes: [],
      fundingTypes: [],
      provinces: [],
      beneficiaries: [],
      currencies: [],
      complexities: [],
      sdgs: [],
      isRecurring: null,
      amountMin: null,
      amountMax: null,
      open: null,
      now: 1_800_000_000_000,
      deadlineFrom: null,
      deadlineTo: null,
      updatedSince: null,
      sort: { key: 'deadline', descending: false },
      facets: [],
      fields: null,
      page: 1,
      limit: 20,
      offset: 0,
      size: 20,
    });
  });

  it('merges every array encoding, dropping repeats', () => {
    const query = q('eligibleProvinces=ONTARIO,QUEBEC&eligibleProvinces[]=YUKON&eligibleProvinces=ONTARIO');
    expect(query.provinces).to.deep.equal(['ONTARIO', 'QUEBEC', 'YUKON']);
  });

  it('splits search text into folded words, dropping syntax', () => {
    expect(q('search=%22Qu%C3%A9bec%22%20OR%20-fund*%20(NEAR%20%C5%93uvre%20q%CC%87').words).to.deep.equal(['Quebec', 'OR', 'fund', 'NEAR', 'oeuvre', 'q']);
  });

  it('clamps limit and trims the last page to the 10,000-match window', () => {
    expect(q('limit=500').limit).to.equal(100);
    const last = q('page=334&limit=30');
    expect([last.offset, last.size]).to.deep.equal([9990, 10]);
  });
});

describe('translateToSqlite', () => {
  it('writes a filter-only query ordered by deadline, nulls last, then id', () => {
    const { page, sparsePage, count } = translateToSqlite(q('funderType=FOUNDATION,CORPORATE&eligibleProvinces=ONTARIO&amountMin=1000&page=2&limit=10'));
    // Walking the order index: "+" keeps the planner off the filter index for this plan.
    expect(page.sql).to.equal(
      'SELECT g.doc FROM grants g WHERE +g.funder_type IN (?, ?) AND (g.provinces & ?) != 0 AND (g.amount_min IS NOT NULL OR g.amount_max IS NOT NULL) AND (g.amount_max IS NULL OR g.amount_max >= ?) ORDER BY g.deadline IS NULL, g.deadline, g.id LIMIT ? OFFSET ?',
    );
    expect(page.params).to.deep.equal(['FOUNDATION', 'CORPORATE', 1 << 8, 1000, 10, 10]);
    // Few matches: found through the filter index, sorted in the same order (nulls last, then id).
    expect(sparsePage?.sql).to.equal(
      "SELECT g.doc FROM (SELECT g.rowid AS hit, g.deadline AS deadline, g.id AS id FROM grants g WHERE g.funder_type IN (?, ?) AND (g.provinces & ?) != 0 AND (g.amount_min IS NOT NULL OR g.amount_max IS NOT NULL) AND (g.amount_max IS NULL OR g.amount_max >= ?) ORDER BY coalesce(g.deadline, '~'), g.id LIMIT ? OFFSET ?) AS found JOIN grants g ON g.rowid = found.hit ORDER BY coalesce(found.deadline, '~'), found.id",
    );
    expect(sparsePage?.params).to.deep.equal(page.params);
    expect(count.sql).to.equal(
      'SELECT count(*) AS total FROM grants g WHERE g.funder_type IN (?, ?) AND (g.provinces & ?) != 0 AND (g.amount_min IS NOT NULL OR g.amount_max IS NOT NULL) AND (g.amount_max IS NULL OR g.amount_max >= ?)',
    );
    expect(count.params).to.deep.equal(['FOUNDATION', 'CORPORATE', 1 << 8, 1000]);
  });

  it('writes a text query ranked by weighted bm25 then id, with the words quoted', () => {
    const { page, count, sparsePage } = translateToSqlite(q('search=clean%20tech&amountMax=5000'));
    expect(page.sql).to.equal(
      'WITH scored AS MATERIALIZED (SELECT grants_text.rowid AS hit, bm25(grants_text, 3, 2, 1) AS score FROM grants_text JOIN grants g ON g.rowid = grants_text.rowid WHERE grants_text MATCH ? AND (g.amount_min IS NOT NULL OR g.amount_max IS NOT NULL) AND (g.amount_min IS NULL OR g.amount_min <= ?)),' +
        ' ranked AS (SELECT scored.hit AS hit, scored.score AS score, k.id AS id FROM scored JOIN grants k ON k.rowid = scored.hit WHERE scored.score <= coalesce((SELECT score FROM scored ORDER BY score LIMIT 1 OFFSET ?), 1e999) ORDER BY scored.score, k.id LIMIT ? OFFSET ?)' +
        ' SELECT g.doc FROM ranked JOIN grants g ON g.rowid = ranked.hit ORDER BY ranked.score, ranked.id',
    );
    expect(page.params).to.deep.equal(['"clean" "tech"', 5000, 19, 20, 0]);
    expect(count.sql).to.equal(
      'SELECT count(*) AS total FROM grants_text JOIN grants g ON g.rowid = grants_text.rowid WHERE grants_text MATCH ? AND (g.amount_min IS NOT NULL OR g.amount_max IS NOT NULL) AND (g.amount_min IS NULL OR g.amount_min <= ?)',
    );
    expect(sparsePage).to.equal(undefined);
  });

  it('counts text matches without a join when there is no filter', () => {
    const { count } = translateToSqlite(q('search=clean'));
    expect(count).to.deep.equal({ sql: 'SELECT count(*) AS total FROM grants_text WHERE grants_text MATCH ?', params: ['"clean"'] });
  });

  it('prefers the sorted filter-index page only when matches are few for the page asked', () => {
    expect(preferSparsePage(0, 1_000_000, 0, 20)).to.equal(false);
    expect(preferSparsePage(50, 1_000_000, 0, 20)).to.equal(true);
    expect(preferSparsePage(5000, 1_000_000, 0, 20)).to.equal(false);
    expect(preferSparsePage(5000, 10_000, 0, 20)).to.equal(false);
  });

  it('never lets a word become FTS5 syntax', () => {
    expect(ftsMatchExpression(['NEAR', 'a"b', 'OR'])).to.equal('"NEAR" "a""b" "OR"');
  });
});

describe('translateToElasticsearch', () => {
  it('puts filters in bool.filter and sorts by deadline (missing last) then id', () => {
    expect(translateToElasticsearch(q('fundingType=LOAN&eligibleProvinces=QUEBEC,ONTARIO&amountMin=10&amountMax=20&page=3&limit=5'))).to.deep.equal({
      query: {
        bool: {
          must: [],
          filter: [
            { terms: { fundingType: ['LOAN'] } },
            { terms: { eligibleProvinces: ['QUEBEC', 'ONTARIO'] } },
            { bool: { should: [{ exists: { field: 'amountMin' } }, { exists: { field: 'amountMax' } }], minimum_should_match: 1 } },
            {
              bool: {
                should: [{ range: { amountMax: { gte: 10 } } }, { bool: { must_not: [{ exists: { field: 'amountMax' } }] } }],
                minimum_should_match: 1,
              },
            },
            {
              bool: {
                should: [{ range: { amountMin: { lte: 20 } } }, { bool: { must_not: [{ exists: { field: 'amountMin' } }] } }],
                minimum_should_match: 1,
              },
            },
          ],
        },
      },
      sort: [{ deadline: { order: 'asc', missing: '_last' } }, { id: 'asc' }],
      from: 10,
      size: 5,
      track_total_hits: true,
    });
  });

  it('matches every word across title^3, funder^2 and description, ranked by score then id', () => {
    const request = translateToElasticsearch(q('search=Montr%C3%A9al%20%22arts%22'));
    expect(request.query).to.deep.equal({
      bool: {
        must: [{ multi_match: { query: 'Montreal arts', fields: ['title^3', 'funder^2', 'description'], type: 'cross_fields', operator: 'and' } }],
        filter: [],
      },
    });
    expect(request.sort).to.deep.equal(['_score', { id: 'asc' }]);
  });
});
