// GET /external/v1/grants, the partner-search parameters: the validation of each
// (every problem listed in details), the defaults they leave alone, and the envelope of `fields`
// and `facets`. What the engines count and order is the search contract suite's
// (test/elasticsearch/search-contract.test.ts).
import { expect } from 'chai';
import { startTestApi, type TestApi, type TestResponse } from '../support/api.js';
import { expectValidation } from '../support/assertions.js';
import type { CheckOptions } from '../support/checkedFetch.js';
import { GRANTS_PATH as G } from '../support/catalog.js';

const GRANT_FIELDS = [
  'id', 'title', 'description', 'funder', 'funderType', 'fundingType', 'amountMin', 'amountMax', 'currency', 'opensAt', 'deadline',
  'applicationUrl', 'eligibleProvinces', 'targetBeneficiaries', 'sdgAlignment', 'applicationComplexity', 'isRecurring',
  'createdAt', 'updatedAt', 'titleFr', 'descriptionFr', 'source', 'status',
];

const ok = (res: TestResponse): TestResponse => {
  expect(res.status, res.text).to.equal(200);
  return res;
};

describe('GET /grants: partner-search parameters', function () {
  let api: TestApi;
  const get = (query: string, check: CheckOptions = {}) => api.request(`${G}?${query}`, check);

  before(async function () {
    api = await startTestApi({}, { clock: () => new Date('2026-06-15T12:00:00.000Z') });
  });
  after(async function () {
    await api.stop();
  });

  describe('valid values are accepted', function () {
    for (const q of [
      'open=true',
      'open=false',
      'isRecurring=true',
      'isRecurring=false',
      'deadlineFrom=2026-01-01',
      'deadlineTo=2026-12-31T23:59:59Z',
      'deadlineFrom=2026-02-28T00:00:00.5Z&deadlineTo=2026-02-28',
      'deadlineFrom=2026-03-01&deadlineTo=2026-03-01',
      'deadlineFrom=2024-02-29',
      'updatedSince=2025-06-01T08:30:00.000Z',
      'updatedSince=2025-06-01',
      'targetBeneficiaries=SMALL_BUSINESS,STARTUPS',
      'sdgAlignment=SDG_1,SDG_17',
      'sort=-deadline',
      'sort=title',
      'sort=-updatedAt',
      'sort=relevance&search=grant',
      'facets=eligibleProvinces,isRecurring',
      'fields=title,deadline',
      'fields=',
      'facets=',
    ]) {
      it(q, async function () {
        ok(await get(q));
      });
    }
    // Lists in the other forms the server accepts (bracketed, repeated).
    for (const q of ['currency[]=USD', 'applicationComplexity=LOW&applicationComplexity=HIGH']) {
      it(q, async function () {
        ok(await get(q, { tolerantLists: true }));
      });
    }
  });

  describe('each bad value is a 400 naming its parameter', function () {
    const bad: [string, string, string][] = [
      ['open=TRUE', 'open', 'true or false'],
      ['open=1', 'open', 'true or false'],
      ['open=', 'open', 'true or false'],
      ['open=yes', 'open', 'true or false'],
      ['isRecurring=False', 'isRecurring', 'true or false'],
      ['deadlineFrom=2026-02-30', 'deadlineFrom', 'calendar'],
      ['deadlineFrom=2026-13-01', 'deadlineFrom', 'calendar'],
      ['deadlineFrom=2025-02-29', 'deadlineFrom', 'calendar'],
      ['deadlineFrom=0099-01-01', 'deadlineFrom', 'calendar'],
      ['deadlineTo=2026-01-01T24:00:00Z', 'deadlineTo', 'calendar'],
      ['deadlineTo=2026-01-01T10:00:00%2B02:00', 'deadlineTo', 'YYYY-MM-DD'],
      ['deadlineTo=2026-01-01T10:00:00', 'deadlineTo', 'YYYY-MM-DD'],
      ['deadlineTo=2026-01-01T10:00Z', 'deadlineTo', 'YYYY-MM-DD'],
      ['deadlineTo=2026-1-1', 'deadlineTo', 'YYYY-MM-DD'],
      ['deadlineTo=01/02/2026', 'deadlineTo', 'YYYY-MM-DD'],
      ['updatedSince=1767225600000', 'updatedSince', 'YYYY-MM-DD'],
      ['updatedSince=2026-01-01T00:00:00.0000Z', 'updatedSince', 'YYYY-MM-DD'],
      ['updatedSince=', 'updatedSince', 'YYYY-MM-DD'],
      ['targetBeneficiaries=small_business', 'targetBeneficiaries', 'SMALL_BUSINESS'],
      ['currency=EUR', 'currency', 'CAD, USD'],
      ['applicationComplexity=VERY_HIGH', 'applicationComplexity', 'LOW'],
      ['sdgAlignment=SDG_18', 'sdgAlignment', 'SDG_17'],
      ['sdgAlignment=SDG_0', 'sdgAlignment', 'SDG_1'],
      ['sort=deadline,title', 'sort', '-deadline'],
      ['sort=DEADLINE', 'sort', 'deadline'],
      ['sort=-relevance', 'sort', 'relevance'],
      ['sort=+deadline', 'sort', 'deadline'],
      ['sort=', 'sort', 'deadline'],
      ['sort=relevance', 'sort', 'search'],
      ['sort=relevance&search=%2A%2A', 'sort', 'search'],
      ['facets=title', 'facets', 'eligibleProvinces'],
      ['facets=deadline', 'facets', 'isRecurring'],
      ['fields=name', 'fields', 'applicationUrl'],
      ['fields=Title', 'fields', 'title'],
      ['deadlineFrom=2026-06-02&deadlineTo=2026-06-01', 'deadlineFrom', 'deadlineTo'],
      ['deadlineFrom=2026-06-01T00:00:00.001Z&deadlineTo=2026-06-01T00:00:00Z', 'deadlineFrom', 'deadlineTo'],
    ];
    for (const [q, name, words] of bad) {
      it(`${q} → 400 naming ${name}`, async function () {
        const [detail] = expectValidation(await get(q, { invalidRequest: true }), [name]);
        expect(detail.message).to.contain(words);
      });
    }
  });

  it('an unknown field is a 400 listing every allowed field', async function () {
    const [detail] = expectValidation(await get('fields=id,budget', { invalidRequest: true }), ['fields']);
    for (const field of GRANT_FIELDS) expect(detail.message).to.contain(field);
    expect(detail.message).to.contain('"budget"');
  });

  it('a scalar new parameter given twice or bracketed is a 400', async function () {
    expectValidation(await get('open=true&open=true', { invalidRequest: true }), ['open']);
    expectValidation(await get('sort[]=title', { invalidRequest: true }), ['sort']);
    expectValidation(await get('deadlineFrom=2026-01-01&deadlineFrom=2026-01-02', { invalidRequest: true }), ['deadlineFrom']);
  });

  it('a date range that is one day (From and To the same date) is allowed: From is its first, To its last millisecond', async function () {
    ok(await get('deadlineFrom=2026-06-01&deadlineTo=2026-06-01'));
    ok(await get('deadlineFrom=2026-06-01T23:59:59.999Z&deadlineTo=2026-06-01'));
    expectValidation(await get('deadlineFrom=2026-06-02T00:00:00Z&deadlineTo=2026-06-01', { invalidRequest: true }), ['deadlineFrom']);
  });

  it('every problem of the new parameters is listed together with the old ones', async function () {
    const res = await get('open=maybe&sort=relevance&fields=x&facets=y&deadlineFrom=2026-02-30&currency=EUR&limit=-1&foo=1', { invalidRequest: true });
    expectValidation(res, ['open', 'sort', 'fields', 'facets', 'deadlineFrom', 'currency', 'limit', 'foo']);
    expect(res.body.error.message).to.contain('8');
  });

  describe('without the new parameters the answer is what it was', function () {
    it('every field of every grant, no facets key, pagination then meta', async function () {
      const res = ok(await get('limit=3'));
      expect(Object.keys(res.body)).to.deep.equal(['success', 'data', 'pagination', 'meta']);
      for (const grant of res.body.data) expect(Object.keys(grant)).to.deep.equal(GRANT_FIELDS);
    });

    it('the default order is deadline ascending, and sort=deadline gives the same answer', async function () {
      const plain = ok(await get('limit=50&page=2'));
      const sorted = ok(await get('limit=50&page=2&sort=deadline'));
      expect(sorted.body.data).to.deep.equal(plain.body.data);
      expect(sorted.body.pagination).to.deep.equal(plain.body.pagination);
    });

    it('with search words the default order is relevance, and sort=relevance gives the same answer', async function () {
      const plain = ok(await get('search=energy&limit=30'));
      const sorted = ok(await get('search=energy&limit=30&sort=relevance'));
      expect(sorted.body.data.map((g: { id: string }) => g.id)).to.deep.equal(plain.body.data.map((g: { id: string }) => g.id));
    });
  });

  describe('fields', function () {
    it('returns id and the fields asked, in the canonical order, whatever order they were asked in', async function () {
      const res = ok(await get('fields=deadline,title&limit=5'));
      expect(res.body.data).to.have.length(5);
      for (const grant of res.body.data) expect(Object.keys(grant)).to.deep.equal(['id', 'title', 'deadline']);
      const full = ok(await get('limit=5'));
      expect(res.body.data).to.deep.equal(full.body.data.map((g: Record<string, unknown>) => ({ id: g.id, title: g.title, deadline: g.deadline })));
    });

    it('keeps null values and empty lists of the fields asked', async function () {
      const res = ok(await get('fields=isRecurring,amountMax,targetBeneficiaries&limit=100'));
      const keys = ['id', 'amountMax', 'targetBeneficiaries', 'isRecurring'];
      for (const grant of res.body.data) expect(Object.keys(grant)).to.deep.equal(keys);
      expect(res.body.data.some((g: { isRecurring: unknown }) => g.isRecurring === null)).to.equal(true);
    });

    it('id asked alone, or asked twice in every encoding, is one id', async function () {
      const res = ok(await get('fields=id&fields[]=id,id&limit=2', { tolerantLists: true }));
      for (const grant of res.body.data) expect(Object.keys(grant)).to.deep.equal(['id']);
    });

    it('every field asked is the whole grant', async function () {
      const res = ok(await get(`fields=${[...GRANT_FIELDS].reverse().join(',')}&limit=3`));
      const full = ok(await get('limit=3'));
      expect(res.text.slice(0, res.text.indexOf('"meta"'))).to.equal(full.text.slice(0, full.text.indexOf('"meta"')));
    });

    it('does not change totals or pagination', async function () {
      const res = ok(await get('fields=title&limit=7&page=3'));
      const full = ok(await get('limit=7&page=3'));
      expect(res.body.pagination).to.deep.equal(full.body.pagination);
      expect(res.body.data.map((g: { id: string }) => g.id)).to.deep.equal(full.body.data.map((g: { id: string }) => g.id));
    });
  });

  describe('facets (shape; the counts are the contract suite\'s)', function () {
    it('a facets object between pagination and meta, with the facets in the order asked', async function () {
      const res = ok(await get('facets=isRecurring,eligibleProvinces,currency&limit=1'));
      expect(Object.keys(res.body)).to.deep.equal(['success', 'data', 'pagination', 'facets', 'meta']);
      expect(Object.keys(res.body.facets)).to.deep.equal(['isRecurring', 'eligibleProvinces', 'currency']);
    });

    it('each facet lists values with counts above zero, by count descending then value; booleans as strings', async function () {
      const res = ok(await get('facets=funderType,isRecurring,sdgAlignment'));
      for (const [name, counts] of Object.entries(res.body.facets as Record<string, { value: string; count: number }[]>)) {
        expect(counts, name).to.not.be.empty;
        for (const c of counts) {
          expect(Object.keys(c), name).to.deep.equal(['value', 'count']);
          expect(c.value, name).to.be.a('string');
          expect(c.count, name).to.be.a('number').above(0);
        }
        const sorted = [...counts].sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0));
        expect(counts, name).to.deep.equal(sorted);
      }
      expect(res.body.facets.isRecurring.map((c: { value: string }) => c.value).sort()).to.deep.equal(['false', 'true']);
      // funderType is single-valued and never null: without a filter of its own its counts add up to the total.
      const sum = res.body.facets.funderType.reduce((n: number, c: { count: number }) => n + c.count, 0);
      expect(sum).to.equal(res.body.pagination.total);
    });

    it('paging does not change facets', async function () {
      const a = ok(await get('facets=fundingType&limit=1&page=1'));
      const b = ok(await get('facets=fundingType&limit=100&page=3'));
      expect(b.body.facets).to.deep.equal(a.body.facets);
    });
  });
});
