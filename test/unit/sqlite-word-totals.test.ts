// The embedded engine's counts of single words (SqliteSearchEngine.wordTotals, what GET
// /grants/:id/similar weighs terms by) on a real catalog file: the word dictionary's count of a
// word never exceeds what a search of the word matches, so a count past the cut may be taken from
// it; under the cut every count is the search's total.
import { expect } from 'chai';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { generateGrants } from '../../fixtures/generate.js';
import type { Grant } from '../../src/grants/schema.js';
import { mostDocs, sourceTerms } from '../../src/grants/similarity.js';
import { wordCount } from '../../src/search/similarSearch.js';
import type { SqliteSearchEngine } from '../../src/search/sqlite/runtime/engine.js';
import { fixtureGrants, tempDir } from '../support/api.js';
import { indexedEngine } from '../support/catalog.js';
import { unfilteredQuery } from '../support/grantQuery.js';

describe('embedded engine: the word counts of similar grants (wordTotals)', function () {
  const dir = tempDir('sqlite-word-totals-');
  const file = path.join(dir, 'catalog.sqlite');
  // The fixtures (English and French text) and long descriptions, whose common words most grants hold.
  const grants: Grant[] = [...fixtureGrants(), ...generateGrants(400, 'word-totals', 'realistic')];
  let engine: SqliteSearchEngine;
  const query = { ...unfilteredQuery(Date.parse('2026-06-15T12:00:00Z')), typos: 'off', matching: 'all' } as const;
  /** Every term the similar grants of the catalog's grants would count. */
  const counts = [...new Set(grants.flatMap((g) => sourceTerms(g).map((t) => t.word)))].map((word) =>
    wordCount({ ...query, synonyms: false }, word),
  );

  before(async () => {
    engine = await indexedEngine(file, grants);
  });
  after(async () => {
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const searched = async () => Promise.all(counts.map(async ({ query }) => (await engine.searchJson(query)).total));

  it("a word's count in the dictionary is at most its search's total", async function () {
    expect(counts.length).to.be.greaterThan(900);
    const exact = await searched();
    // With a cut below every count, every word answers its dictionary count.
    const held = await engine.wordTotals(counts, -1);
    const over = counts.filter((_, i) => held[i] > exact[i]).map(({ word }) => word);
    expect(over, 'words held as written by more grants than their search finds').to.deep.equal([]);
    // The dictionary knows most of them (a word it lacks counts 0: searched whatever the cut).
    expect(held.filter((n) => n > 0).length).to.be.greaterThan(counts.length * 0.9);
  });

  it('every count under the cut is the search total; past it, any number past the cut', async function () {
    const exact = await searched();
    const cut = mostDocs(grants.length);
    const totals = await engine.wordTotals(counts, cut);
    counts.forEach(({ word }, i) => {
      if (exact[i] <= cut) expect(totals[i], word).to.equal(exact[i]);
      else expect(totals[i], word).to.be.greaterThan(cut);
    });
    // The common words past the cut by the dictionary alone answer its count, unsearched.
    const held = await engine.wordTotals(counts, -1);
    const common = counts.map((_, i) => i).filter((i) => held[i] > cut);
    expect(common.length).to.be.greaterThan(10);
    expect(common.map((i) => totals[i])).to.deep.equal(common.map((i) => held[i]));
  });
});
