// translateToElasticsearch on the partner-search fields: the exact DSL of every new filter, sort
// and facet (the GrantQuery is built here field by field, independently of the HTTP parsing).
import { labelText } from '../../src/grants/labels.js';
import { expect } from 'chai';
import type { GrantQuery } from '../../src/grants/query.js';
import { plainSearch } from '../../src/grants/searchSyntax.js';
import { parseGrantQuery } from '../../src/http/parameters/grantSearchParams.js';
import { parseQueryString } from '../../src/http/parameters/queryParams.js';
import { facetsOf } from '../../src/search/elasticsearch/facets.js';
import { ID_KEY_SORT, idKeysOf } from '../../src/search/elasticsearch/idKeys.js';
import { sortOf, translateToElasticsearch } from '../../src/search/elasticsearch/translator.js';
import { indexedDocument } from '../../src/search/elasticsearch/writer.js';
import { fixtureGrants } from '../support/api.js';

const NOW = Date.parse('2026-11-23T10:00:00.000Z');
const base = (): GrantQuery => ({ ...parseGrantQuery(parseQueryString('')), now: NOW });
/** Words alone are plain words (their search made from them). */
const query = (over: Partial<GrantQuery>): GrantQuery => ({
  ...base(),
  ...(over.words !== undefined && !('search' in over) && { search: plainSearch(over.words) }),
  ...over,
});

const either = (...should: unknown[]) => ({ bool: { should, minimum_should_match: 1 } });
const missing = (field: string) => ({ bool: { must_not: [{ exists: { field } }] } });
/** The statuses at NOW, written out: a grant with neither date (every grant of a catalog without opensAt) is OPEN. */
const FORECASTED = { range: { opensAt: { gt: NOW } } };
const CLOSED = { range: { deadline: { lt: NOW } } };
// Open: a deadline at or after now, or none; less the forecasted.
const OPEN = {
  bool: { filter: [either({ range: { deadline: { gte: NOW } } }, missing('deadline'))], must_not: [FORECASTED] },
};

describe('translateToElasticsearch: partner-search filters', () => {
  it('writes every list filter as terms and isRecurring as a term, in bool.filter', () => {
    const request = translateToElasticsearch(
      query({
        beneficiaries: ['SMALL_BUSINESS', 'STARTUPS'],
        currencies: ['USD'],
        complexities: ['LOW'],
        sdgs: ['SDG_7', 'SDG_13'],
        isRecurring: false,
      }),
    );
    expect(request.query).to.deep.equal({
      bool: {
        must: [],
        filter: [
          { terms: { targetBeneficiaries: ['SMALL_BUSINESS', 'STARTUPS'] } },
          { terms: { currency: ['USD'] } },
          { terms: { applicationComplexity: ['LOW'] } },
          { terms: { sdgAlignment: ['SDG_7', 'SDG_13'] } },
          { term: { isRecurring: false } },
        ],
      },
    });
    expect(request).to.not.have.any.keys('post_filter', 'aggs');
  });

  it('open=true is status OPEN: neither forecasted (opensAt after now) nor closed (deadline before now), to the millisecond', () => {
    expect(translateToElasticsearch(query({ open: true })).query).to.deep.equal({
      bool: { must: [], filter: [OPEN] },
    });
  });

  it('open=false is forecasted or closed (a null deadline never closes, a null opensAt never forecasts)', () => {
    expect(translateToElasticsearch(query({ open: false })).query).to.deep.equal({
      bool: { must: [], filter: [either(FORECASTED, CLOSED)] },
    });
  });

  it('status is a list filter of its own (union within), a facet counted by one filter per status', () => {
    const request = translateToElasticsearch(
      query({ statuses: ['FORECASTED', 'CLOSED'], funderTypes: ['FOUNDATION'], facets: ['status'] }),
    );
    expect(request.query).to.deep.equal({ bool: { must: [], filter: [{ terms: { funderType: ['FOUNDATION'] } }] } });
    expect(request.post_filter).to.deep.equal({ bool: { filter: [either(FORECASTED, CLOSED)] } });
    expect(request.aggs).to.deep.equal({
      status: {
        filter: { match_all: {} },
        aggs: { values: { filters: { keyed: false, filters: { FORECASTED, OPEN, CLOSED } } } },
      },
    });
  });

  it('deadline bounds are one inclusive range; updatedSince a lower bound on updatedAt', () => {
    const from = Date.parse('2026-12-01T00:00:00.000Z');
    const to = Date.parse('2026-12-31T23:59:59.999Z');
    expect(
      translateToElasticsearch(query({ deadlineFrom: from, deadlineTo: to, updatedSince: from })).query,
    ).to.deep.equal({
      bool: {
        must: [],
        filter: [{ range: { deadline: { gte: from, lte: to } } }, { range: { updatedAt: { gte: from } } }],
      },
    });
    expect(translateToElasticsearch(query({ deadlineTo: to })).query).to.deep.equal({
      bool: { must: [], filter: [{ range: { deadline: { lte: to } } }] },
    });
  });
});

describe('translateToElasticsearch: sorts', () => {
  const pageSort = (key: GrantQuery['sort']['key'], descending: boolean) =>
    translateToElasticsearch(query({ sort: { key, descending } })).sort;
  const exactSort = (key: GrantQuery['sort']['key'], descending: boolean) =>
    sortOf(query({ sort: { key, descending } }));

  it('every field sort puts missing values last in both directions and breaks ties by id ascending (spelled as numbers on a page)', () => {
    for (const [key, field] of [
      ['deadline', 'deadline'],
      ['amountMin', 'amountMin'],
      ['amountMax', 'amountMax'],
      ['createdAt', 'createdAt'],
      ['updatedAt', 'updatedAt'],
      ['title', 'titleSort'],
    ] as const) {
      expect(pageSort(key, false), key).to.deep.equal([
        { [field]: { order: 'asc', missing: '_last' } },
        ...ID_KEY_SORT,
      ]);
      expect(pageSort(key, true), `-${key}`).to.deep.equal([
        { [field]: { order: 'desc', missing: '_last' } },
        ...ID_KEY_SORT,
      ]);
      expect(exactSort(key, false), key).to.deep.equal([
        { [field]: { order: 'asc', missing: '_last' } },
        { id: 'asc' },
      ]);
      expect(exactSort(key, true), `-${key}`).to.deep.equal([
        { [field]: { order: 'desc', missing: '_last' } },
        { id: 'asc' },
      ]);
    }
  });

  it('opensAt sorts as the other dates, and on an index without it as if every value were missing', () => {
    expect(pageSort('opensAt', false)).to.deep.equal([
      { opensAt: { order: 'asc', missing: '_last', unmapped_type: 'date' } },
      ...ID_KEY_SORT,
    ]);
    expect(exactSort('opensAt', true)).to.deep.equal([
      { opensAt: { order: 'desc', missing: '_last', unmapped_type: 'date' } },
      { id: 'asc' },
    ]);
  });

  it('the id keys: six longs then the rest keyword, ascending, absent first, valid on an index without them', () => {
    expect(ID_KEY_SORT).to.deep.equal([
      ...[0, 1, 2, 3, 4, 5].map((k) => ({ [`idKey${k}`]: { order: 'asc', missing: '_first', unmapped_type: 'long' } })),
      { idRest: { order: 'asc', missing: '_first', unmapped_type: 'keyword' } },
    ]);
  });

  it('relevance is the score, then id', () => {
    const q = query({ words: ['clean'], sort: { key: 'relevance', descending: false } });
    expect(translateToElasticsearch(q).sort).to.deep.equal(['_score', ...ID_KEY_SORT]);
    expect(sortOf(q)).to.deep.equal(['_score', { id: 'asc' }]);
  });

  it('a text search sorted by a field keeps its text condition', () => {
    const request = translateToElasticsearch(query({ words: ['clean'], sort: { key: 'amountMax', descending: true } }));
    expect((request.query.bool as { must: unknown[] }).must).to.have.length(1);
    expect(request.sort).to.deep.equal([{ amountMax: { order: 'desc', missing: '_last' } }, ...ID_KEY_SORT]);
  });
});

describe('translateToElasticsearch: disjunctive facets', () => {
  const terms = (field: string, size: number) => ({
    terms: { field, size, order: [{ _count: 'desc' }, { _key: 'asc' }] },
  });

  it('facets without filters of their own: counted over exactly the matches, terms sized to the enumerations', () => {
    const request = translateToElasticsearch(
      query({ funderTypes: ['FOUNDATION'], open: true, facets: ['eligibleProvinces', 'isRecurring', 'sdgAlignment'] }),
    );
    expect(request.query).to.deep.equal({
      bool: { must: [], filter: [{ terms: { funderType: ['FOUNDATION'] } }, OPEN] },
    });
    expect(request).to.not.have.property('post_filter');
    expect(request.aggs).to.deep.equal({
      eligibleProvinces: { filter: { match_all: {} }, aggs: { values: terms('eligibleProvinces', 13) } },
      isRecurring: { filter: { match_all: {} }, aggs: { values: terms('isRecurring', 2) } },
      sdgAlignment: { filter: { match_all: {} }, aggs: { values: terms('sdgAlignment', 17) } },
    });
  });

  it("a faceted filter moves to post_filter and every other facet's count keeps it", () => {
    const request = translateToElasticsearch(
      query({
        provinces: ['QUEBEC'],
        fundingTypes: ['LOAN', 'GRANT'],
        isRecurring: true,
        currencies: ['CAD'],
        amountMin: 100,
        facets: ['eligibleProvinces', 'fundingType', 'funderType', 'isRecurring'],
      }),
    );
    const provinces = { terms: { eligibleProvinces: ['QUEBEC'] } };
    const funding = { terms: { fundingType: ['LOAN', 'GRANT'] } };
    const recurring = { term: { isRecurring: true } };
    // currency is filtered but not faceted: it stays in the query with the amounts.
    expect(request.query).to.deep.equal({
      bool: {
        must: [],
        filter: [
          { terms: { currency: ['CAD'] } },
          either({ exists: { field: 'amountMin' } }, { exists: { field: 'amountMax' } }),
          either({ range: { amountMax: { gte: 100 } } }, missing('amountMax')),
        ],
      },
    });
    expect(request.post_filter).to.deep.equal({ bool: { filter: [funding, provinces, recurring] } });
    expect(request.aggs).to.deep.equal({
      eligibleProvinces: {
        filter: { bool: { filter: [funding, recurring] } },
        aggs: { values: terms('eligibleProvinces', 13) },
      },
      fundingType: { filter: { bool: { filter: [provinces, recurring] } }, aggs: { values: terms('fundingType', 6) } },
      funderType: {
        filter: { bool: { filter: [funding, provinces, recurring] } },
        aggs: { values: terms('funderType', 6) },
      },
      isRecurring: { filter: { bool: { filter: [funding, provinces] } }, aggs: { values: terms('isRecurring', 2) } },
    });
  });

  it('reads buckets back in the order asked, booleans as "true"/"false", an absent facet as []', () => {
    const facets = facetsOf(['isRecurring', 'currency', 'eligibleProvinces'], {
      isRecurring: {
        values: {
          buckets: [
            { key: 0, key_as_string: 'false', doc_count: 9 },
            { key: 1, key_as_string: 'true', doc_count: 4 },
          ],
        },
      },
      currency: { values: { buckets: [{ key: 'CAD', doc_count: 12 }] } },
    });
    expect(Object.keys(facets)).to.deep.equal(['isRecurring', 'currency', 'eligibleProvinces']);
    expect(facets).to.deep.equal({
      isRecurring: [
        { value: 'false', count: 9 },
        { value: 'true', count: 4 },
      ],
      currency: [{ value: 'CAD', count: 12 }],
      eligibleProvinces: [],
    });
  });
});

describe('indexed document', () => {
  it('is the grant plus its labels (labelText), its title sort key (titleSortKey) and its id keys, the grant fields untouched', () => {
    const grant = { ...fixtureGrants()[0], title: 'Œuvres d’ÉTÉ — Straße' };
    const doc = indexedDocument(grant);
    expect(doc.titleSort).to.equal('oeuvres d’ete — strasse');
    expect(doc.labels).to.equal(labelText(grant));
    const { labels, titleSort, idKey0, idKey1, idKey2, idKey3, idKey4, idKey5, ...rest } = doc;
    expect({ idKey0, idKey1, idKey2, idKey3, idKey4, idKey5 }).to.deep.equal(idKeysOf(grant.id));
    void titleSort;
    void labels;
    expect(JSON.stringify(rest)).to.equal(JSON.stringify(grant));
  });

  it('keeps at most 8,000 code points of the key (Lucene refuses longer terms)', () => {
    const grant = { ...fixtureGrants()[0], title: '\u{FDFA}'.repeat(500) };
    const key = indexedDocument(grant).titleSort;
    expect(Array.from(key)).to.have.length(8000);
    expect(Buffer.byteLength(key)).to.be.below(32_766);
  });
});
