// Relaxed matching's plan (src/grants/relaxation.ts): which terms may be given up, the order
// `last` and `frequency` give them up in, the steps down to one, and the bound on their number.
import { expect } from 'chai';
import { relaxableTerms, relaxationPlan, MAX_RELAXATION_STEPS } from '../../src/grants/relaxation.js';
import { parseSearch, type ParsedSearch } from '../../src/grants/searchSyntax.js';

/** A search as text again, for readable expectations: words, quoted phrases, -exclusions, OR. */
const text = (search: ParsedSearch): string =>
  search.clauses
    .map((c) =>
      [
        ...c.must.map((t) => (t.words.length > 1 || t.exact ? `"${t.words.join(' ')}"` : t.words[0])),
        ...c.not.map((t) => `-${t.words.join(' ')}`),
      ].join(' '),
    )
    .join(' OR ');

describe('relaxed matching: the plan', () => {
  it('all gives up nothing; one word has nothing to give up', () => {
    expect(relaxationPlan(parseSearch('a b c'), 'all')).to.equal(null);
    expect(relaxationPlan(parseSearch('a'), 'last')).to.equal(null);
    expect(relaxationPlan(parseSearch('a "b c"'), 'last')).to.equal(null);
  });

  it('last: from the end, down to the first word', () => {
    const plan = relaxationPlan(parseSearch('a b c'), 'last')!;
    expect(plan.levels.map(text)).to.deep.equal(['a b c', 'a b']);
    expect(text(plan.search)).to.equal('a');
    expect(plan.givenUp.map((t) => t.words[0])).to.deep.equal(['c', 'b']);
  });

  it('frequency: the most common first, the later first on ties, a word no grant holds before any', () => {
    const search = parseSearch('a b c d');
    expect(text(relaxationPlan(search, 'frequency', [[5, 9, 1, 3]])!.search)).to.equal('c');
    expect(relaxationPlan(search, 'frequency', [[5, 9, 1, 3]])!.levels.map(text)).to.deep.equal([
      'a b c d',
      'a c d',
      'c d',
    ]);
    expect(text(relaxationPlan(search, 'frequency', [[2, 2, 2, 2]])!.search)).to.equal('a');
    expect(relaxationPlan(search, 'frequency', [[5, 0, 1, 3]])!.levels.map(text)).to.deep.equal([
      'a b c d',
      'a c d',
      'c d',
    ]);
    expect(text(relaxationPlan(search, 'frequency', [[5, 0, 1, 3]])!.search)).to.equal('c');
  });

  it('phrases, quoted words and exclusions are never given up', () => {
    const search = parseSearch('a "b c" "d" e -f');
    expect(relaxableTerms(search).map((terms) => terms.map((t) => t.words.join(' ')))).to.deep.equal([['a', 'e']]);
    const plan = relaxationPlan(search, 'last')!;
    expect(text(plan.search)).to.equal('a "b c" "d" -f');
  });

  it('each OR clause relaxes on its own', () => {
    const plan = relaxationPlan(parseSearch('a b c OR d e'), 'last')!;
    expect(plan.levels.map(text)).to.deep.equal(['a b c OR d e', 'a b OR d']);
    expect(text(plan.search)).to.equal('a OR d');
  });

  it(`at most ${MAX_RELAXATION_STEPS} steps: the extra words go in the first`, () => {
    const words = Array.from({ length: 14 }, (_, i) => `w${i}`);
    const plan = relaxationPlan(parseSearch(words.join(' ')), 'last')!;
    expect(plan.levels).to.have.length(MAX_RELAXATION_STEPS);
    expect(text(plan.levels[1])).to.equal(words.slice(0, 9).join(' '));
    expect(text(plan.search)).to.equal('w0');
  });
});
