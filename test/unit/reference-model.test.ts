// The reference model of fixtures/queries/record.ts checked against itself and against plain facts
// of the fixture catalog: its answers must hang together (facets add up, disjunctive counts,
// sorts are permutations, nulls last both ways, bounds inclusive) before they judge the engines.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import {
  DEFAULT_CATALOG,
  readCatalog,
  referenceDate,
  referenceModel,
  referenceTitleKey,
  type Expectation,
} from '../../fixtures/queries/record.js';

const model = referenceModel(readCatalog(DEFAULT_CATALOG));
const raw = readFileSync(DEFAULT_CATALOG, 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '')
  .map((l) => JSON.parse(l) as Record<string, any>);
const byId = new Map(raw.map((g) => [g.id as string, g]));

const answer = (request: string, now?: string): Expectation => {
  const e = model.expectationOf({
    name: 'probe',
    request,
    compare: request.includes('search=') && !request.includes('sort=') ? 'set' : 'ordered',
    now,
  });
  return e;
};
const all = (request: string, now?: string): string[] => {
  const first = answer(`${request}&limit=100`, now);
  const ids = [...first.ids];
  for (let page = 2; page <= (first.totalPages ?? 1); page += 1)
    ids.push(...answer(`${request}&limit=100&page=${page}`, now).ids);
  return ids;
};

describe('reference model (fixtures/queries/record.ts)', () => {
  it('reads dates as the two forms only, real calendar days, From/To at the day edges', () => {
    expect(referenceDate('2026-02-28', false)).to.equal(Date.parse('2026-02-28T00:00:00.000Z'));
    expect(referenceDate('2026-02-28', true)).to.equal(Date.parse('2026-02-28T23:59:59.999Z'));
    expect(referenceDate('2024-02-29', false)).to.equal(Date.parse('2024-02-29T00:00:00.000Z'));
    expect(referenceDate('2026-06-01T10:20:30.4Z', false)).to.equal(Date.parse('2026-06-01T10:20:30.400Z'));
    for (const bad of [
      '2026-02-29',
      '2026-02-30',
      '2026-13-01',
      '2026-00-10',
      '2026-06-01T24:00:00Z',
      '2026-06-01T10:00:00+02:00',
      '2026-06-01T10:00:00',
      '2026-6-1',
      '0099-01-01',
      '',
    ]) {
      expect(referenceDate(bad, false), bad).to.equal(null);
    }
  });

  it('sorts are permutations of the matches, nulls last in both directions, ties by id', () => {
    const every = all('/grants?').sort();
    for (const field of ['deadline', 'amountMin', 'amountMax', 'createdAt', 'updatedAt', 'title']) {
      for (const sign of ['', '-']) {
        const order = all(`/grants?sort=${sign}${field}`);
        expect([...order].sort(), `${sign}${field}`).to.deep.equal(every);
        const key = (id: string) =>
          field === 'title'
            ? referenceTitleKey(byId.get(id)!.title)
            : byId.get(id)![field] === null
              ? null
              : field === 'amountMin' || field === 'amountMax'
                ? byId.get(id)![field]
                : Date.parse(byId.get(id)![field]);
        const keys = order.map(key);
        const firstNull = keys.indexOf(null);
        if (firstNull !== -1)
          expect(
            keys.slice(firstNull).every((k) => k === null),
            `${sign}${field} nulls last`,
          ).to.equal(true);
        for (let i = 1; i < order.length; i += 1) {
          const [a, b] = [keys[i - 1], keys[i]];
          if (a === null || b === null) continue;
          if (a === b) expect(order[i - 1] < order[i], `${sign}${field} tie by id`).to.equal(true);
          else expect(sign === '' ? a < b : a > b, `${sign}${field} at ${i}`).to.equal(true);
        }
      }
    }
  });

  it('the default order is sort=deadline', () => {
    expect(all('/grants?')).to.deep.equal(all('/grants?sort=deadline'));
  });

  it('open=true and open=false split the catalog at now; a deadline equal to now is open', () => {
    const now = '2026-11-30T23:59:59.000Z';
    const open = all('/grants?open=true', now);
    const closed = all('/grants?open=false', now);
    expect(open.length + closed.length).to.equal(raw.length);
    expect(closed.some((id) => byId.get(id)!.deadline === now)).to.equal(false);
    expect(open.filter((id) => byId.get(id)!.deadline === now)).to.have.length(
      raw.filter((g) => g.deadline === now).length,
    );
    expect(closed.every((id) => byId.get(id)!.deadline !== null)).to.equal(true);
  });

  it('refuses a case that depends on the clock without pinning it, and a pinned clock nothing reads', () => {
    expect(() => answer('/grants?open=true')).to.throw(/now/);
    expect(() => answer('/grants?limit=1', '2026-11-23T00:00:00.000Z')).to.throw(/now/);
  });

  it('a single-valued, never-null facet adds up to the total; a list facet counts each value once a grant', () => {
    const e = answer('/grants?funderType=FOUNDATION&facets=fundingType,eligibleProvinces&limit=1');
    expect(e.facets!.fundingType.reduce((n, f) => n + f.count, 0)).to.equal(e.total);
    const ontario = raw.filter((g) => g.funderType === 'FOUNDATION' && g.eligibleProvinces.includes('ONTARIO')).length;
    expect(e.facets!.eligibleProvinces.find((f) => f.value === 'ONTARIO')!.count).to.equal(ontario);
  });

  it('a facet with its own filter is counted without it (disjunctive), and its filtered values count what the filter matches', () => {
    const filtered = answer(
      '/grants?eligibleProvinces=QUEBEC&funderType=CORPORATE&facets=eligibleProvinces,funderType&limit=1',
    );
    const unfilteredProvinces = answer('/grants?funderType=CORPORATE&facets=eligibleProvinces&limit=1').facets!
      .eligibleProvinces;
    expect(filtered.facets!.eligibleProvinces).to.deep.equal(unfilteredProvinces);
    expect(filtered.facets!.eligibleProvinces.find((f) => f.value === 'QUEBEC')!.count).to.equal(filtered.total);
    const funderWithoutOwn = answer('/grants?eligibleProvinces=QUEBEC&facets=funderType&limit=1').facets!.funderType;
    expect(filtered.facets!.funderType).to.deep.equal(funderWithoutOwn);
  });

  it('facets are sorted by count descending then value, booleans as strings, and never count nulls', () => {
    const e = answer('/grants?facets=isRecurring,applicationComplexity&limit=1');
    for (const counts of Object.values(e.facets!)) {
      for (let i = 1; i < counts.length; i += 1) {
        const [a, b] = [counts[i - 1], counts[i]];
        expect(a.count > b.count || (a.count === b.count && a.value < b.value)).to.equal(true);
      }
    }
    expect(e.facets!.isRecurring.map((f) => f.value).sort()).to.deep.equal(['false', 'true']);
    expect(e.facets!.isRecurring.reduce((n, f) => n + f.count, 0)).to.equal(
      raw.filter((g) => g.isRecurring !== null).length,
    );
  });

  it('fields: id first, then the asked fields in the wire order', () => {
    expect(answer('/grants?fields=updatedAt,title,id,title').fields).to.deep.equal(['id', 'title', 'updatedAt']);
  });
});
