// A word highlighted is a word the search found, and a grant that matches shows one: over the bundled
// fixtures and the real-program corpus, for searches of single words (English and French), of
// phrases and with synonyms, the grants the embedded engine's own FTS5 matcher finds are exactly
// those in which the highlighter marks a word, in a text field or in the grant's labels (a
// searchable field that is never highlighted).
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import {
  highlightGrant,
  HIGHLIGHT_FIELDS,
  searchWordFinder,
  type HighlightSpec,
} from '../../src/grants/highlighting.js';
import { labelText } from '../../src/grants/labels.js';
import type { Grant } from '../../src/grants/schema.js';
import { parseSearch, searchWords } from '../../src/grants/searchSyntax.js';
import { parseSynonyms, withSynonyms } from '../../src/grants/synonyms.js';
import { repoPath } from '../../src/repoRoot.js';
import { BatchTextMatcher } from '../../src/search/sqlite/query/batchTextMatcher.js';
import { corpusFile, loadCorpus } from '../relevance/judgments.js';

const SPEC: HighlightSpec = { fields: HIGHLIGHT_FIELDS, preTag: '\u0001', postTag: '\u0002', crop: new Map() };

/** Every `step`-th item, from a fixed start: a deterministic sample. */
const sample = <T>(items: readonly T[], count: number): T[] => {
  const step = Math.max(1, Math.floor(items.length / count));
  return items.filter((_, i) => i % step === 3 % step).slice(0, count);
};

/** The searches: words of the texts (English and French fields), two-word phrases, and words the synonym list names. */
function searchesOf(grants: readonly Grant[], count: number): string[] {
  const words = new Set<string>();
  const french = new Set<string>();
  const phrases: string[] = [];
  for (const g of grants) {
    for (const word of searchWords(`${g.title} ${g.description ?? ''}`)) words.add(word.toLowerCase());
    for (const word of searchWords(`${g.titleFr ?? ''} ${g.descriptionFr ?? ''}`)) french.add(word.toLowerCase());
    const title = searchWords(g.title);
    if (title.length >= 2) phrases.push(`"${title[0]} ${title[1]}"`);
  }
  return [
    ...sample([...words].sort(), count),
    ...sample([...french].sort(), count / 2),
    ...sample(phrases, count / 4),
    'nonprofit',
    'startup',
    'postsecondary',
  ];
}

function expectAgreement(grants: readonly Grant[], searches: readonly string[]): void {
  const rules = parseSynonyms(readFileSync(repoPath('mappings/synonyms.txt'), 'utf8'));
  const fts = new BatchTextMatcher();
  const batch = fts.batch(grants);
  const disagreements: string[] = [];
  let matches = 0;
  try {
    for (const text of searches) {
      const search = withSynonyms(parseSearch(text), rules);
      const found = batch.matching(search);
      matches += found.size;
      const finder = searchWordFinder(search);
      for (const g of grants) {
        const marked = Object.values(highlightGrant(g, SPEC, finder)).some((value) => value?.includes('\u0001'));
        const labelMarked = highlightGrant(
          { ...g, title: labelText(g) },
          { ...SPEC, fields: ['title'] },
          finder,
        ).title!.includes('\u0001');
        if (found.has(g.id) !== (marked || labelMarked))
          disagreements.push(
            `${text} on ${g.id}: FTS5 ${found.has(g.id) ? 'matches' : 'does not match'}, marked: ${marked}, ` +
              `in labels: ${labelMarked}`,
          );
      }
    }
  } finally {
    batch.close();
    fts.close();
  }
  expect(matches).to.be.above(searches.length);
  expect(disagreements.slice(0, 20)).to.deep.equal([]);
}

describe("highlighting agrees with the embedded engine's matching", function () {
  this.timeout(300_000);

  it('over the bundled fixtures', () => {
    const grants = readFileSync(repoPath('fixtures/grants.ndjson'), 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as Grant);
    expectAgreement(grants, searchesOf(grants, 80));
  });

  it('over the real-program corpus, English and French', () => {
    const grants = loadCorpus(corpusFile({}).replace('programs.ndjson.gz', 'programs-bilingual.ndjson.gz'));
    expectAgreement(grants, searchesOf(grants, 12));
  });
});
