import { expect } from 'chai';
import type { GrantQuery } from '../../src/grants/query.js';
import { parseSearch, plainSearch } from '../../src/grants/searchSyntax.js';
import { parseGrantQuery } from '../../src/http/parameters/grantSearchParams.js';
import { parseQueryString } from '../../src/http/parameters/queryParams.js';
import { ID_KEY_SORT } from '../../src/search/elasticsearch/idKeys.js';
import { translateToElasticsearch, TYPO_TEXT_SCALE } from '../../src/search/elasticsearch/translator.js';
import { withTypoAlternatives } from '../../src/grants/typos.js';
import { ftsMatchExpression } from '../../src/search/sqlite/query/fts5Expression.js';

const q = (qs: string): GrantQuery => parseGrantQuery(parseQueryString(qs));

describe('GrantQuery parsing', () => {
  it('applies the defaults, with the request time it is given as now', () => {
    expect(parseGrantQuery(parseQueryString(''), 1_800_000_000_000)).to.deep.equal({
      search: null,
      words: [],
      typos: 'off',
      matching: 'all',
      synonyms: true,
      funderTypes: [],
      fundingTypes: [],
      provinces: [],
      beneficiaries: [],
      currencies: [],
      complexities: [],
      sdgs: [],
      statuses: [],
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

  it('parses the search syntax into clauses of folded words; words are the words to find', () => {
    const parsed = q('search=%22Qu%C3%A9bec%22%20OR%20-fund*%20(NEAR%20%C5%93uvre%20q%CC%87');
    expect(parsed.search).to.deep.equal({
      clauses: [
        { must: [{ words: ['Quebec'], exact: true }], not: [] },
        { must: [{ words: ['NEAR'] }, { words: ['oeuvre'] }, { words: ['q'] }], not: [{ words: ['fund'] }] },
      ],
    });
    expect(parsed.words).to.deep.equal(['Quebec', 'NEAR', 'oeuvre', 'q']);
  });

  it('a blank search is no text condition; a search with nothing to find has no clause', () => {
    expect(q('search=%20%20').search).to.equal(null);
    expect(q('search=-loan%20%F0%9F%8C%B2').search).to.deep.equal({ clauses: [] });
    expect(q('search=-loan%20%F0%9F%8C%B2').sort.key).to.equal('deadline');
  });

  it('clamps limit and trims the last page to the 10,000-match window', () => {
    expect(q('limit=500').limit).to.equal(100);
    const last = q('page=334&limit=30');
    expect([last.offset, last.size]).to.deep.equal([9990, 10]);
  });
});

describe('SQLite FTS5 match expression', () => {
  // A term in either analysis: as written in the English columns, or its French terms (marked) in the French ones.
  const EN = '{title funder description title_fr description_fr labels}';
  const FR = '{title_french funder_french description_french title_fr_french description_fr_french labels_french}';
  const either = (english: string, french: string) => `(${EN} : ${english} OR ${FR} : ${french})`;

  it('never lets a word become FTS5 syntax', () => {
    expect(ftsMatchExpression(plainSearch(['NEAR', 'a"b', 'OR']))).to.equal(
      `${either('"NEAR"', '"near0"')} AND ${either('"a""b"', '"a""b0"')} AND ${either('"OR"', '"or0"')}`,
    );
  });

  it('writes phrases as one string, exclusions with NOT, clauses with OR; nothing to find is no expression', () => {
    const clean = either('"clean tech"', '"clean0 tech0"');
    const water = either('"water"', '"wat0"');
    const loan = either('"loan"', '"loan0"');
    const solar = either('"solar"', '"sola0"');
    expect(ftsMatchExpression(parseSearch('"clean tech" water -loan OR solar'))).to.equal(
      `((${clean} AND ${water}) NOT ${loan}) OR (${solar})`,
    );
    expect(ftsMatchExpression(parseSearch('export -loan -"tax credit"'))).to.equal(
      `(${either('"export"', '"export0"')}) NOT ${loan} NOT ${either('"tax credit"', '"tax0 credit0"')}`,
    );
    expect(ftsMatchExpression(parseSearch('-loan'))).to.equal(null);
  });
});

describe('translateToElasticsearch', () => {
  it('puts filters in bool.filter and sorts by deadline (missing last) then id (spelled as numbers)', () => {
    expect(
      translateToElasticsearch(
        q('fundingType=LOAN&eligibleProvinces=QUEBEC,ONTARIO&amountMin=10&amountMax=20&page=3&limit=5'),
      ),
    ).to.deep.equal({
      query: {
        bool: {
          must: [],
          filter: [
            { terms: { fundingType: ['LOAN'] } },
            { terms: { eligibleProvinces: ['QUEBEC', 'ONTARIO'] } },
            {
              bool: {
                should: [{ exists: { field: 'amountMin' } }, { exists: { field: 'amountMax' } }],
                minimum_should_match: 1,
              },
            },
            {
              bool: {
                should: [
                  { range: { amountMax: { gte: 10 } } },
                  { bool: { must_not: [{ exists: { field: 'amountMax' } }] } },
                ],
                minimum_should_match: 1,
              },
            },
            {
              bool: {
                should: [
                  { range: { amountMin: { lte: 20 } } },
                  { bool: { must_not: [{ exists: { field: 'amountMin' } }] } },
                ],
                minimum_should_match: 1,
              },
            },
          ],
        },
      },
      sort: [{ deadline: { order: 'asc', missing: '_last' } }, ...ID_KEY_SORT],
      from: 10,
      size: 5,
      track_total_hits: true,
    });
  });

  const ENGLISH_FIELDS = ['title^3', 'funder^2', 'description', 'titleFr^3', 'descriptionFr', 'labels^0.5'];
  const FRENCH_FIELDS = [
    'title.fr^3',
    'funder.fr^2',
    'description.fr',
    'titleFr.fr^3',
    'descriptionFr.fr',
    'labels.fr^0.5',
  ];
  /** A word: in some English-analysed field, or in some French-analysed one. */
  const word = (query: string) => ({
    bool: {
      should: [
        { multi_match: { query, fields: ENGLISH_FIELDS, type: 'cross_fields', operator: 'and' } },
        { multi_match: { query, fields: FRENCH_FIELDS, type: 'cross_fields', operator: 'and' } },
      ],
      minimum_should_match: 1,
    },
  });

  it('matches every word in either analysis across title^3, funder^2, description, the French fields and the labels, ranked by score then id', () => {
    const request = translateToElasticsearch(q('search=Montr%C3%A9al%20%22arts%22'));
    expect(request.query).to.deep.equal({ bool: { must: [word('Montreal'), word('arts')], filter: [] } });
    expect(request.sort).to.deep.equal(['_score', ...ID_KEY_SORT]);
  });

  it('translates the search syntax: phrases as phrase queries, exclusions as must_not, OR as a should of clauses', () => {
    const phrase = (query: string) => ({
      multi_match: { query, fields: [...ENGLISH_FIELDS, ...FRENCH_FIELDS], type: 'phrase' },
    });
    expect(translateToElasticsearch(q('search=export%20-loan%20-%22tax%20credit%22')).query).to.deep.equal({
      bool: { must: [word('export')], must_not: [word('loan'), phrase('tax credit')], filter: [] },
    });
    expect(translateToElasticsearch(q('search=%22clean%20tech%22%20OR%20water%20solar')).query).to.deep.equal({
      bool: {
        must: [
          {
            bool: {
              should: [{ bool: { must: [phrase('clean tech')] } }, { bool: { must: [word('water'), word('solar')] } }],
              minimum_should_match: 1,
            },
          },
        ],
        filter: [],
      },
    });
    expect(translateToElasticsearch(q('search=-loan')).query).to.deep.equal({
      bool: { must: [{ match_none: {} }], filter: [] },
    });
  });

  it('matches a term with alternatives by its word or any alternative, each in either analysis, ranked by typos', () => {
    const derived = withTypoAlternatives(
      parseSearch('brodband rural'),
      new Map([['brodband', [{ word: 'broadband', typos: 1, docs: 1 }]]]),
    );
    const request = translateToElasticsearch({ ...q('search=brodband%20rural&typos=auto'), search: derived });
    const anyOf = (...words: string[]) => ({ bool: { should: words.map(word), minimum_should_match: 1 } });
    expect(request.query).to.deep.equal({
      function_score: {
        query: { bool: { must: [anyOf('brodband', 'broadband'), word('rural')], filter: [], boost: TYPO_TEXT_SCALE } },
        functions: [{ weight: 1 }, { filter: anyOf('brodband'), weight: 1 }],
        score_mode: 'sum',
        boost_mode: 'sum',
      },
    });
  });
});
