// GET /external/v1/grants, the partner-search parameters (src/http/parameters/grantSearchParams.ts):
// what each valid value does on the bundled catalog (a filter returns exactly the grants that have
// the value, a sort the documented order), the validation of each (every problem listed in
// details), the defaults they leave alone, and the envelope of `fields` and `facets`. Both
// engines' counts and orders on crafted catalogs are the search contract suite's
// (test/elasticsearch/search-contract.test.ts).
import { expect } from 'chai';
import type { Grant } from '../../src/grants/schema.js';
import { titleSortKey } from '../../src/grants/folding.js';
import { fixtureGrants, startTestApi, type TestApi, type TestResponse } from '../support/api.js';
import { expectValidation } from '../support/assertions.js';
import type { CheckOptions } from '../support/checkedFetch.js';
import { GRANTS_PATH as G } from '../support/catalog.js';

const GRANT_FIELDS = [
  'id',
  'title',
  'description',
  'funder',
  'funderType',
  'fundingType',
  'amountMin',
  'amountMax',
  'currency',
  'opensAt',
  'deadline',
  'applicationUrl',
  'eligibleProvinces',
  'targetBeneficiaries',
  'sdgAlignment',
  'applicationComplexity',
  'isRecurring',
  'createdAt',
  'updatedAt',
  'titleFr',
  'descriptionFr',
  'source',
  'status',
];

const ok = (res: TestResponse): TestResponse => {
  expect(res.status, res.text).to.equal(200);
  return res;
};

describe('GET /grants: partner-search parameters', function () {
  let api: TestApi;
  const get = (query: string, check: CheckOptions = {}) => api.request(`${G}?${query}`, check);
  /** Every grant the query finds, page after page of 100. */
  const everyPage = async (query: string, check: CheckOptions = {}): Promise<Grant[]> => {
    const grants: Grant[] = [];
    for (let page = 1; ; page += 1) {
      const res = ok(await get(`${query}&limit=100&page=${page}`, check));
      grants.push(...res.body.data);
      if (page >= res.body.pagination.totalPages) return grants;
    }
  };

  before(async function () {
    api = await startTestApi({}, { clock: () => new Date('2026-06-15T12:00:00.000Z') });
  });
  after(async function () {
    await api.stop();
  });

  describe('each valid value does what it says, on the bundled catalog', function () {
    // Every case asks for every page (limit=100) and compares the whole answer with what the
    // bundled fixture grants say it must be: a filter keeps exactly the grants that have the value
    // (and some, not all, of the catalog), a sort gives the documented order.
    const catalog = fixtureGrants();
    const NOW = Date.parse('2026-06-15T12:00:00.000Z');
    const at = (text: string): number => Date.parse(text);
    const deadlineOf = (g: Grant): number | null => (g.deadline === null ? null : at(g.deadline));
    const filters: [string, (g: Grant) => boolean, CheckOptions?][] = [
      // Open: opened (no opensAt, or reached) and not closed (no deadline, or not passed).
      [
        'open=true',
        (g) => (g.opensAt === null || at(g.opensAt) <= NOW) && (g.deadline === null || deadlineOf(g)! >= NOW),
      ],
      [
        'open=false',
        (g) => (g.opensAt !== null && at(g.opensAt) > NOW) || (g.deadline !== null && deadlineOf(g)! < NOW),
      ],
      ['status=FORECASTED', (g) => g.opensAt !== null && at(g.opensAt) > NOW],
      ['status=OPEN,CLOSED', (g) => g.opensAt === null || at(g.opensAt) <= NOW],
      ['isRecurring=true', (g) => g.isRecurring === true],
      ['isRecurring=false', (g) => g.isRecurring === false],
      ['deadlineFrom=2026-01-01', (g) => g.deadline !== null && deadlineOf(g)! >= at('2026-01-01T00:00:00.000Z')],
      [
        'deadlineTo=2026-12-31T23:59:59Z',
        (g) => g.deadline !== null && deadlineOf(g)! <= at('2026-12-31T23:59:59.000Z'),
      ],
      // A date as To is that day's last millisecond; a date-time as From is that instant, inclusive.
      [
        'deadlineFrom=2026-03-04T23:59:59Z&deadlineTo=2026-03-11',
        (g) =>
          g.deadline !== null &&
          deadlineOf(g)! >= at('2026-03-04T23:59:59.000Z') &&
          deadlineOf(g)! <= at('2026-03-11T23:59:59.999Z'),
      ],
      ['deadlineFrom=2024-02-29', (g) => g.deadline !== null && deadlineOf(g)! >= at('2024-02-29T00:00:00.000Z')],
      ['updatedSince=2025-06-01T08:30:00.000Z', (g) => at(g.updatedAt) >= at('2025-06-01T08:30:00.000Z')],
      ['updatedSince=2025-06-01', (g) => at(g.updatedAt) >= at('2025-06-01T00:00:00.000Z')],
      [
        'targetBeneficiaries=SMALL_BUSINESS,STARTUPS',
        (g) => g.targetBeneficiaries.some((b) => b === 'SMALL_BUSINESS' || b === 'STARTUPS'),
      ],
      ['sdgAlignment=SDG_1,SDG_17', (g) => g.sdgAlignment.some((sdg) => sdg === 'SDG_1' || sdg === 'SDG_17')],
      // Lists in the other forms the server accepts (bracketed, repeated).
      ['currency[]=USD', (g) => g.currency === 'USD', { tolerantLists: true }],
      [
        'applicationComplexity=LOW&applicationComplexity=HIGH',
        (g) => g.applicationComplexity === 'LOW' || g.applicationComplexity === 'HIGH',
        { tolerantLists: true },
      ],
    ];
    for (const [q, has, check] of filters) {
      it(`${q} returns exactly the grants that have it`, async function () {
        const expected = catalog
          .filter(has)
          .map((g) => g.id)
          .sort();
        expect(expected.length, 'the value selects some of the catalog, not none or all').to.be.within(
          1,
          catalog.length - 1,
        );
        const served = await everyPage(q, check);
        expect(served.map((g) => g.id).sort()).to.deep.equal(expected);
      });
    }

    /** The documented order: by the key (nulls last in both directions), ties by id ascending. */
    const orderBy =
      (key: (g: Grant) => string | number | null, descending: boolean) =>
      (a: Grant, b: Grant): number => {
        const [ka, kb] = [key(a), key(b)];
        if (ka !== kb) {
          if (ka === null) return 1;
          if (kb === null) return -1;
          return (ka < kb ? -1 : 1) * (descending ? -1 : 1);
        }
        return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
      };
    const codePoints = (text: string): string =>
      [...text].map((c) => c.codePointAt(0)!.toString(16).padStart(6, '0')).join('');
    const sorts: [string, (a: Grant, b: Grant) => number][] = [
      ['sort=-deadline', orderBy(deadlineOf, true)],
      ['sort=title', orderBy((g) => codePoints(titleSortKey(g.title)), false)],
      ['sort=-updatedAt', orderBy((g) => at(g.updatedAt), true)],
    ];
    for (const [q, order] of sorts) {
      it(`${q} gives every grant in that order (nulls last, ties by id)`, async function () {
        const served = await everyPage(q);
        expect(served.map((g) => g.id)).to.deep.equal([...catalog].sort(order).map((g) => g.id));
      });
    }

    it('sort=relevance&search=grant is the default order of a search: the same grants as by deadline, in another order', async function () {
      const ids = (grants: Grant[]) => grants.map((g) => g.id);
      const relevance = ids(await everyPage('sort=relevance&search=grant'));
      const plain = ids(await everyPage('search=grant'));
      const byDeadline = ids(await everyPage('sort=deadline&search=grant'));
      expect(relevance.length).to.be.above(1);
      expect(relevance).to.deep.equal(plain);
      expect(relevance).to.not.deep.equal(byDeadline);
      expect([...relevance].sort()).to.deep.equal([...byDeadline].sort());
    });

    it("facets=eligibleProvinces,isRecurring counts the catalog's grants per value", async function () {
      const res = ok(await get('facets=eligibleProvinces,isRecurring&limit=1'));
      const counts = (values: (g: Grant) => string[]) => {
        const tally = new Map<string, number>();
        for (const g of catalog) for (const v of values(g)) tally.set(v, (tally.get(v) ?? 0) + 1);
        return Object.fromEntries([...tally].map(([value, count]) => [value, count]));
      };
      const asObject = (list: { value: string; count: number }[]) =>
        Object.fromEntries(list.map(({ value, count }) => [value, count]));
      expect(asObject(res.body.facets.eligibleProvinces)).to.deep.equal(counts((g) => g.eligibleProvinces));
      expect(asObject(res.body.facets.isRecurring)).to.deep.equal(
        counts((g) => (g.isRecurring === null ? [] : [String(g.isRecurring)])),
      );
    });

    it('fields=title,deadline gives id, title and deadline of the same grants', async function () {
      const res = ok(await get('fields=title,deadline&limit=10'));
      const full = ok(await get('limit=10'));
      expect(res.body.data).to.have.length(10);
      expect(res.body.data).to.deep.equal(
        full.body.data.map((g: Grant) => ({ id: g.id, title: g.title, deadline: g.deadline })),
      );
    });

    for (const q of ['fields=', 'facets=']) {
      it(`${q} (an empty list) is no condition: the answer without it`, async function () {
        const res = ok(await get(`${q}&limit=10`));
        const plain = ok(await get('limit=10'));
        expect(res.body.data).to.have.length(10);
        expect(res.body.data).to.deep.equal(plain.body.data);
        expect(res.body.pagination).to.deep.equal(plain.body.pagination);
        expect(res.body).to.not.have.property('facets');
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
    expectValidation(await get('deadlineFrom=2026-01-01&deadlineFrom=2026-01-02', { invalidRequest: true }), [
      'deadlineFrom',
    ]);
  });

  it('a date range that is one day (From and To the same date) is allowed: From is its first, To its last millisecond', async function () {
    const dueThatDay = fixtureGrants()
      .filter((g) => g.deadline?.startsWith('2026-03-04'))
      .map((g) => g.id);
    expect(dueThatDay, 'the bundled catalog has grants due on 2026-03-04').to.not.be.empty;
    expect((await everyPage('deadlineFrom=2026-03-04&deadlineTo=2026-03-04')).map((g) => g.id).sort()).to.deep.equal(
      dueThatDay.sort(),
    );
    expect(await everyPage('deadlineFrom=2026-03-04T23:59:59.999Z&deadlineTo=2026-03-04')).to.deep.equal([]);
    expect(await everyPage('deadlineFrom=2026-03-03&deadlineTo=2026-03-03')).to.deep.equal([]);
    expectValidation(await get('deadlineFrom=2026-06-02T00:00:00Z&deadlineTo=2026-06-01', { invalidRequest: true }), [
      'deadlineFrom',
    ]);
  });

  it('every problem of the new parameters is listed together with the old ones', async function () {
    const res = await get(
      'open=maybe&sort=relevance&fields=x&facets=y&deadlineFrom=2026-02-30&currency=EUR&limit=-1&foo=1',
      { invalidRequest: true },
    );
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
      expect(sorted.body.data.map((g: { id: string }) => g.id)).to.deep.equal(
        plain.body.data.map((g: { id: string }) => g.id),
      );
    });
  });

  describe('fields', function () {
    it('returns id and the fields asked, in the canonical order, whatever order they were asked in', async function () {
      const res = ok(await get('fields=deadline,title&limit=5'));
      expect(res.body.data).to.have.length(5);
      for (const grant of res.body.data) expect(Object.keys(grant)).to.deep.equal(['id', 'title', 'deadline']);
      const full = ok(await get('limit=5'));
      expect(res.body.data).to.deep.equal(
        full.body.data.map((g: Record<string, unknown>) => ({ id: g.id, title: g.title, deadline: g.deadline })),
      );
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
      expect(res.body.data.map((g: { id: string }) => g.id)).to.deep.equal(
        full.body.data.map((g: { id: string }) => g.id),
      );
    });
  });

  describe("facets (shape; the counts are the contract suite's)", function () {
    it('a facets object between pagination and meta, with the facets in the order asked', async function () {
      const res = ok(await get('facets=isRecurring,eligibleProvinces,currency&limit=1'));
      expect(Object.keys(res.body)).to.deep.equal(['success', 'data', 'pagination', 'facets', 'meta']);
      expect(Object.keys(res.body.facets)).to.deep.equal(['isRecurring', 'eligibleProvinces', 'currency']);
    });

    it('each facet lists values with counts above zero, by count descending then value; booleans as strings', async function () {
      const res = ok(await get('facets=funderType,isRecurring,sdgAlignment'));
      for (const [name, counts] of Object.entries(
        res.body.facets as Record<string, { value: string; count: number }[]>,
      )) {
        expect(counts, name).to.not.be.empty;
        for (const c of counts) {
          expect(Object.keys(c), name).to.deep.equal(['value', 'count']);
          expect(c.value, name).to.be.a('string');
          expect(c.count, name).to.be.a('number').above(0);
        }
        const sorted = [...counts].sort(
          (a, b) => b.count - a.count || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0),
        );
        expect(counts, name).to.deep.equal(sorted);
      }
      expect(res.body.facets.isRecurring.map((c: { value: string }) => c.value).sort()).to.deep.equal([
        'false',
        'true',
      ]);
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
