// The alerts' text matcher (the embedded engine's FTS5 rules on a batch of changed grants) finds,
// over the whole fixture catalog, exactly the grants GET /grants finds: every recorded search case
// of fixtures/queries made of a search alone, whose ids both engines answer (the contract suite),
// among them the French and label cases.
import { expect } from 'chai';
import { parseSearch } from '../../src/grants/searchSyntax.js';
import { BatchTextMatcher } from '../../src/search/sqlite/query/batchTextMatcher.js';
import { loadCases } from '../../scripts/replay.js';
import { fixtureGrants } from '../support/api.js';

describe("batch text matcher (the alerts'): the searches of GET /grants", () => {
  const matcher = new BatchTextMatcher();
  after(() => matcher.close());
  const grants = fixtureGrants();
  const cases = loadCases().filter(
    (c) =>
      /^\/grants\?search=[^&]*&limit=100$/.test(c.request) &&
      c.expect.status === 200 &&
      c.expect.total !== null &&
      c.expect.total <= 100,
  );

  it('covers the French and label cases', () => {
    const names = cases.map((c) => c.name);
    for (const name of [
      'text-label-indigenous-finds-grants-for-indigenous-communities',
      'text-label-small-business-loan',
      'text-french-technologie-finds-technologies',
      'text-french-elision-typographic-apostrophe',
      'text-french-phrase-across-an-elision',
    ]) {
      expect(names).to.include(name);
    }
  });

  it("matches each case's grants, no more, no fewer", () => {
    const batch = matcher.batch(grants);
    try {
      for (const c of cases) {
        const text = new URLSearchParams(c.request.slice(c.request.indexOf('?') + 1)).get('search')!;
        const found = [...batch.matching(parseSearch(text))].sort();
        expect(found, c.name).to.deep.equal([...(c.expect.ids ?? [])].sort());
      }
    } finally {
      batch.close();
    }
  });
});
