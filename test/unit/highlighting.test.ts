// The highlighter both engines' pages go through (src/grants/highlighting.ts): a word is marked
// when the search as the engine ran it matches it (English stem, French stem and elision, folding,
// phrases, synonyms and typo alternatives), exclusions never; everything else HTML-escaped; the
// crop's passage (the most distinct matched terms, the earliest on ties) and its markers.
import { expect } from 'chai';
import {
  highlightGrant,
  searchWordFinder,
  textsOfJson,
  type HighlightField,
  type HighlightSpec,
} from '../../src/grants/highlighting.js';
import type { Grant } from '../../src/grants/schema.js';
import { parseSearch, type ParsedSearch } from '../../src/grants/searchSyntax.js';
import { parseSynonyms, withSynonyms } from '../../src/grants/synonyms.js';

const grant = (fields: Partial<Grant>): Grant =>
  ({
    id: 'g-1',
    title: 'A title',
    funder: 'A funder',
    description: null,
    titleFr: null,
    descriptionFr: null,
    ...fields,
  }) as Grant;

const spec = (
  fields: HighlightField[],
  crop: [HighlightField, number][] = [],
  preTag = '<mark>',
  postTag = '</mark>',
): HighlightSpec => ({
  fields,
  preTag,
  postTag,
  crop: new Map(crop),
});

/** The highlight of one text as `field` of a grant, for a search (text or parsed). */
function mark(
  search: string | ParsedSearch | null,
  text: string,
  field: HighlightField = 'description',
  crop?: number,
): string | null | undefined {
  const parsed = typeof search === 'string' ? parseSearch(search) : search;
  const out = highlightGrant(
    grant({ [field]: text }),
    spec([field], crop === undefined ? [] : [[field, crop]]),
    searchWordFinder(parsed),
  );
  return out[field];
}

describe('highlighting', () => {
  describe('which words are marked', () => {
    it('a word as written, whatever its case and accents', () => {
      expect(mark('energy', 'Clean Energy for ENERGY users')).to.equal(
        'Clean <mark>Energy</mark> for <mark>ENERGY</mark> users',
      );
      expect(mark('ecole', 'Une École rurale')).to.equal('Une <mark>École</mark> rurale');
      expect(mark('œuvre', 'Main-d’oeuvre')).to.equal('Main-d’<mark>oeuvre</mark>');
    });

    it('the English stem: every form of the word', () => {
      expect(mark('fund', 'Funding funded funds fundamental')).to.equal(
        '<mark>Funding</mark> <mark>funded</mark> <mark>funds</mark> fundamental',
      );
      expect(mark('installations', 'one installation')).to.equal('one <mark>installation</mark>');
    });

    it('the French stem, elided articles left out of the mark', () => {
      expect(mark('emploi', "L'emploi des jeunes", 'descriptionFr')).to.equal('L&#39;<mark>emploi</mark> des jeunes');
      expect(mark('jeune', 'Emplois pour jeunes', 'titleFr')).to.equal('Emplois pour <mark>jeunes</mark>');
      expect(mark('économique', 'développement économique', 'descriptionFr')).to.equal(
        'développement <mark>économique</mark>',
      );
      // A search's elided article is no word to find either.
      expect(mark("l'emploi", "l'emploi")).to.equal('l&#39;<mark>emploi</mark>');
    });

    it('a phrase only where its words stand adjacent and in order', () => {
      expect(mark('"solar panels"', 'Solar panels, and panels that are solar')).to.equal(
        '<mark>Solar</mark> <mark>panels</mark>, and panels that are solar',
      );
      // In French too: the elided article is not in the way.
      expect(mark('"emploi des jeunes"', "de l'emploi des jeunes", 'descriptionFr')).to.equal(
        'de l&#39;<mark>emploi</mark> <mark>des</mark> <mark>jeunes</mark>',
      );
    });

    it('never an excluded word; every clause of an OR', () => {
      expect(mark('solar -wind', 'solar and wind')).to.equal('<mark>solar</mark> and wind');
      expect(mark('solar OR wind', 'solar and wind')).to.equal('<mark>solar</mark> and <mark>wind</mark>');
    });

    it('a synonym and a typo alternative the engine gave the search', () => {
      const rules = parseSynonyms('nonprofit, not-for-profit\n');
      expect(mark(withSynonyms(parseSearch('nonprofit'), rules), 'For not-for-profit groups')).to.equal(
        'For <mark>not</mark>-<mark>for</mark>-<mark>profit</mark> groups',
      );
      const typo: ParsedSearch = {
        clauses: [{ must: [{ words: ['enrgy'], alternatives: [{ words: ['energy'], typos: 1 }] }], not: [] }],
      };
      expect(mark(typo, 'Energy savings')).to.equal('<mark>Energy</mark> savings');
    });

    it('nothing without a search: the text escaped', () => {
      expect(mark(null, 'R&D <b>grants</b>')).to.equal('R&amp;D &lt;b&gt;grants&lt;/b&gt;');
    });
  });

  describe('escaping', () => {
    it('a script in the text comes back as text, a searched word inside it marked', () => {
      const text = 'Apply now <script>alert("x")</script> & \'soon\'';
      expect(mark('script', text)).to.equal(
        'Apply now &lt;<mark>script</mark>&gt;alert(&quot;x&quot;)&lt;/<mark>script</mark>&gt; &amp; &#39;soon&#39;',
      );
      expect(mark('alert', text)).to.not.match(/<(?!\/?mark>)/);
    });

    it('the tags as given, around each matched word', () => {
      const out = highlightGrant(
        grant({ title: 'Clean energy' }),
        spec(['title'], [], '<em class="hit">', '</em>'),
        searchWordFinder(parseSearch('energy clean')),
      );
      expect(out.title).to.equal('<em class="hit">Clean</em> <em class="hit">energy</em>');
    });
  });

  describe('crop', () => {
    const words = (n: number, word = 'filler') => Array.from({ length: n }, () => word).join(' ');

    it('a text no longer than the crop comes back whole, without markers', () => {
      expect(mark('solar', 'Solar power.', 'description', 5)).to.equal('<mark>Solar</mark> power.');
    });

    it('the passage with the most distinct matched terms, its matches in its middle, … where cut', () => {
      const text = `${words(20)} solar ${words(5)} solar wind ${words(20)}.`;
      const out = mark('solar wind', text, 'description', 6)!;
      expect(out).to.equal('…filler filler <mark>solar</mark> <mark>wind</mark> filler filler…');
    });

    it('on ties the earliest passage; without a match, the text from its start', () => {
      const text = `Intro ${words(10)} solar ${words(10)} solar ${words(10)}`;
      expect(mark('solar', text, 'description', 3)).to.equal('…filler <mark>solar</mark> filler…');
      expect(mark('solar', text.replace(/solar/g, 'wind'), 'description', 3)).to.equal('Intro filler filler…');
      expect(mark(null, 'One two three four', 'description', 2)).to.equal('One two…');
    });

    it('counts each term once however often it appears', () => {
      const text = `solar solar solar ${words(10)} solar wind ${words(10)}`;
      expect(mark('solar wind', text, 'description', 3)).to.equal('…<mark>solar</mark> <mark>wind</mark> filler…');
    });

    it('keeps the text up to its end when the passage reaches the last word', () => {
      expect(mark('wind', `${words(10)} wind.`, 'description', 2)).to.equal('…filler <mark>wind</mark>.');
    });
  });

  it('a field the grant leaves empty is null; fields come in their fixed order', () => {
    const out = highlightGrant(
      grant({ title: 'Solar', description: null }),
      spec(['title', 'description', 'titleFr']),
      searchWordFinder(parseSearch('solar')),
    );
    expect(out).to.deep.equal({ title: '<mark>Solar</mark>', description: null, titleFr: null });
  });

  it("reads the text fields out of a stored grant's JSON text as JSON.parse reads them", () => {
    const stored = {
      id: 'g-1',
      title: 'Say "hi" \\ <b>',
      funder: 'F,"description":"not this"',
      description: null,
      titleFr: 'Été \u2028 \\"',
      descriptionFr: 'Plain',
      source: { name: 'x', id: '"title":"no"', url: null },
    };
    const all = spec(['title', 'description', 'funder', 'titleFr', 'descriptionFr']);
    expect(textsOfJson(JSON.stringify(stored), all)).to.deep.equal({
      title: stored.title,
      description: null,
      funder: stored.funder,
      titleFr: stored.titleFr,
      descriptionFr: 'Plain',
    });
  });
});
