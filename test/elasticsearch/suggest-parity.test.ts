// GET /grants/suggest on both engines alike, through the HTTP API, over the fixture grants: for
// prefixes short and long, with typos, accents, words before the last one, every kind and the
// filters of GET /grants, the same completions with the same counts in the same order. The
// embedded engine's own suite (the answers against a model of the fixtures):
// test/http/grants-suggest.test.ts.
import { expect } from 'chai';
import { MAX_COUNT_BATCH } from '../../src/grants/suggest.js';
import { parseQueryString } from '../../src/http/parameters/queryParams.js';
import { parseSuggestQuery } from '../../src/http/parameters/suggestParams.js';
import { IndexSuggest } from '../../src/search/elasticsearch/suggest.js';
import { suggestionsFrom } from '../../src/search/suggestSearch.js';
import { type TestApi } from '../support/api.js';
import { GRANTS_PATH as G } from '../support/catalog.js';
import { describeWithElasticsearch, testClient } from '../support/elasticsearch.js';
import { bothEngines } from '../support/parity.js';

const TEXTS = [
  'a',
  'e',
  'q',
  'agri',
  'Agri',
  'agricultre',
  'énerg',
  'ENERGY ef',
  'clean ener',
  'rural brod',
  'innovaton',
  'entreprene',
  'Québec',
  'montr',
  'femmes entr',
  'zzzz',
  '-loan ener',
  'small busi',
];
const MORE = [
  '',
  '&limit=20',
  '&type=titles&limit=20',
  '&type=funders&limit=20',
  '&type=words&limit=20',
  '&eligibleProvinces=ONTARIO&limit=10',
  '&open=true&fundingType=GRANT,LOAN&limit=10',
  '&amountMin=10000&amountMax=50000&status=OPEN,FORECASTED&limit=10',
  '&funderType=FOUNDATION&deadlineFrom=2026-01-01&limit=10',
];

describeWithElasticsearch('GET /grants/suggest: both engines alike', function () {
  this.timeout(120_000);
  const engines = bothEngines();

  const suggest = async (api: TestApi, text: string, more: string) => {
    const res = await api.request(`${G}/suggest?q=${encodeURIComponent(text)}${more}`);
    expect(res.status, res.text).to.equal(200);
    return res.body.data as { text: string; type: string; count: number }[];
  };

  for (const more of MORE) {
    it(`the same completions, counts and order${more === '' ? '' : ` with ${more.slice(1)}`}`, async () => {
      let answered = 0;
      for (const text of TEXTS) {
        const embedded = await suggest(engines.sqlite(), text, more);
        expect(await suggest(engines.es(), text, more), `${text}${more}`).to.deep.equal(embedded);
        if (embedded.length > 0) answered++;
      }
      // Most texts complete something (the comparison is not of empty lists).
      expect(answered).to.be.above(TEXTS.length / 3);
    });
  }

  it('the same words read in rounds of candidates as by one aggregation over the grants', async () => {
    const client = testClient();
    // Words in rounds only, whatever the grants; words by one aggregation only.
    const rounds = new IndexSuggest(client, engines.alias, { grants: 0, lastRound: MAX_COUNT_BATCH });
    const scans = new IndexSuggest(client, engines.alias, { grants: Infinity, lastRound: 0 });
    let compared = 0;
    try {
      for (const more of MORE)
        for (const text of TEXTS) {
          const request = parseSuggestQuery(parseQueryString(`q=${encodeURIComponent(text)}${more}`));
          if (request === null) continue;
          const served = await suggest(engines.es(), text, more);
          const label = `${text}${more}`;
          expect(await suggestionsFrom(request, rounds.source(request.query)), label).to.deep.equal(served);
          expect(await suggestionsFrom(request, scans.source(request.query)), label).to.deep.equal(served);
          if (served.some(({ type }) => type === 'word')) compared++;
        }
    } finally {
      await client.close();
    }
    expect(compared).to.be.above(TEXTS.length);
  });
});
