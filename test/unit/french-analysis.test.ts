// The French analysis both engines share (src/grants/french.ts): the light stemmer against the
// outputs of Lucene's FrenchLightStemmer, elision with either apostrophe, the analysis of a text,
// and the places that must say the same (the Elasticsearch mapping's elision pattern, the
// embedded catalog's columns); the bilingual labels (src/grants/labels.ts).
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { elide, ELISION_PATTERN, frenchLightStem, frenchTermOf, frenchTerms } from '../../src/grants/french.js';
import {
  BENEFICIARY_LABELS,
  FUNDER_TYPE_LABELS,
  FUNDING_TYPE_LABELS,
  labelText,
  PROVINCE_LABELS,
} from '../../src/grants/labels.js';
import { BENEFICIARIES, FUNDER_TYPES, FUNDING_TYPES, PROVINCES } from '../../src/grants/schema.js';
import { searchWords } from '../../src/grants/searchSyntax.js';
import { repoPath } from '../../src/repoRoot.js';
import { TEXT_COLUMNS } from '../../src/search/sqlite/storage/textColumns.js';

const read = (file: string) => readFileSync(repoPath(file), 'utf8');

describe('French analysis', () => {
  describe("the light stemmer (Savoy's UniNE rules, as Lucene's FrenchLightStemmer)", () => {
    // Each pair follows from the rules (the rule that applies is named); every one was also run
    // through Elasticsearch's `light_french` stemmer (Lucene's FrenchLightStemFilter), which gave
    // the same output.
    const pairs: [string, string, string][] = [
      ['technologies', 'technolog', 'plural -s, then norm: -ie removed'],
      ['autochtones', 'autochton', 'plural -s, then norm: final -e'],
      ['emploi', 'emploi', 'no rule'],
      ['entrepreneures', 'entrepreneur', '-s, then norm: final -e (the -r before it stays)'],
      ['chevaux', 'cheval', '-aux after no e: -al'],
      ['travaux', 'traval', '-aux: -al'],
      ['bateaux', 'bateau', '-eaux: only the x'],
      ['eaux', 'eau', 'short word: the x only'],
      ['jeux', 'jeu', 'x of a short word'],
      ['finissement', 'fini', '-issement → -ir, norm drops -r'],
      ['finissant', 'fini', '-issant → -ir'],
      ['lentement', 'lent', '-ement'],
      ['activement', 'actif', '-ivement → -if'],
      ['amplificatrice', 'amplifi', '-ficatrice → -fier'],
      ['amplificateur', 'amplifi', '-ficateur → -fier'],
      ['éducatrice', 'eduqu', '-catrice → -quer, accents dropped'],
      ['éducateur', 'eduqu', '-cateur → -quer'],
      ['créatrice', 'crer', '-atrice → -er'],
      ['créateur', 'crer', '-ateur → -er'],
      ['actrice', 'acteu', '-trice → -teur, norm drops -r'],
      ['deuxième', 'deux', '-ième'],
      ['chanteuse', 'chant', '-teuse → -ter'],
      ['chanteur', 'chant', '-teur → -ter'],
      ['heureuse', 'heureu', '-euse'],
      ['première', 'premier', '-ère of a word of 8 letters: norm only'],
      ['active', 'activ', '-ive of a short word: norm only'],
      ['folle', 'fou', '-olle → -ou'],
      ['molle', 'mou', '-olle → -ou'],
      ['personnelle', 'person', '-nnelle'],
      ['personnel', 'personel', '-nnel of a short word: norm merges the double n'],
      ['complète', 'complet', '-ète → -et'],
      ['pratique', 'pratiqu', '-ique of a short word: norm only'],
      ['économique', 'econom', '-ique'],
      ['politesse', 'polit', '-esse'],
      ['jardinage', 'jardin', '-inage'],
      ['organisation', 'organ', '-isation'],
      ['individualisation', 'individuel', '-ualisation → -uel'],
      ['nationalisation', 'national', '-isation'],
      ['organisateur', 'organis', '-ateur → -er before -isateur is reached'],
      ['information', 'inform', '-ation'],
      ['définition', 'defin', '-ition'],
      ['développement', 'develop', '-ement, double p merged'],
      ['communautés', 'comunaut', '-s, accents dropped, double m merged, final -e'],
      ['allée', 'ale', 'accents dropped, double l merged, final -ee'],
      ['cafés', 'café', 'short word: no norm of accents'],
      ['nez', 'nez', 'too short for any rule'],
      ['mmmmm', 'm', 'letters repeated: merged'],
    ];
    for (const [word, stem, rule] of pairs) {
      it(`${word} → ${stem} (${rule})`, () => expect(frenchLightStem(word)).to.equal(stem));
    }
  });

  describe('elision', () => {
    it('drops the elided articles and conjunctions, with an ASCII or a typographic apostrophe, in any case', () => {
      expect(elide("l'emploi")).to.equal('emploi');
      expect(elide('l’emploi')).to.equal('emploi');
      expect(
        elide(
          "L'Agence d'innovation qu'il jusqu'au lorsqu'on puisqu'elle quoiqu'il s'inscrire c'est j'ai m'a n'est t'a",
        ),
      ).to.equal('Agence innovation il au on elle il inscrire est ai a est a');
      expect(elide('D’AUTRES')).to.equal('AUTRES');
    });

    it('keeps what is no elision: an apostrophe inside a word, at its end, or after other letters', () => {
      expect(elide("aujourd'hui children's O'Brien l' emploi 'l'")).to.equal(
        "aujourd'hui children's O'Brien l' emploi 'l'",
      );
      expect(elide("del'emploi")).to.equal("del'emploi");
    });

    it("makes search words of what is left: `l'emploi` is the word emploi", () => {
      expect(searchWords("l'emploi")).to.deep.equal(['emploi']);
      expect(searchWords('Accès à l’emploi')).to.deep.equal(['Acces', 'a', 'emploi']);
    });
  });

  describe('the analysis of a text', () => {
    it('splits as the English analysis does, then lower-cases, folds and stems each word', () => {
      expect(frenchTerms("Programme d'aide aux Communautés autochtones – Œuvres, Québec 2026")).to.deep.equal([
        'program',
        'aide',
        'aux',
        'comunaut',
        'autochton',
        'oeuvr',
        'quebec',
        '2026',
      ]);
      expect(frenchTermOf('Technologie')).to.equal(frenchTerms('technologies')[0]);
      expect(frenchTermOf('autochtones')).to.equal(frenchTerms('Autochtones')[0]);
    });

    it("is the mapping's grant_elision pattern, character for character", () => {
      const mapping = JSON.parse(read('mappings/elasticsearch-grants.json')) as {
        settings: { analysis: { char_filter: { grant_elision: { pattern: string } } } };
      };
      expect(mapping.settings.analysis.char_filter.grant_elision.pattern).to.equal(ELISION_PATTERN);
    });

    it("fills the embedded catalog's columns as the DDL declares them", () => {
      const declared = /grants_text__T__ USING fts5\(([^)]*)\)/.exec(read('mappings/sqlite-catalog.sql'))![1];
      const columns = declared
        .split(',')
        .map((c) => c.trim())
        .filter((c) => c !== '' && !c.startsWith('tokenize'));
      expect(columns).to.deep.equal([...TEXT_COLUMNS]);
    });
  });

  describe('labels', () => {
    it('name every value of every labelled field in English and French', () => {
      for (const [labels, values] of [
        [FUNDER_TYPE_LABELS, FUNDER_TYPES],
        [FUNDING_TYPE_LABELS, FUNDING_TYPES],
        [PROVINCE_LABELS, PROVINCES],
        [BENEFICIARY_LABELS, BENEFICIARIES],
      ] as const) {
        expect(Object.keys(labels).sort()).to.deep.equal([...values].sort());
        for (const label of Object.values(labels) as { en: string; fr: string }[]) {
          expect(label.en).to.not.equal('');
          expect(label.fr).to.not.equal('');
        }
      }
    });

    it('are the table of the partner guide, row for row', () => {
      const guide = read('docs/partners.md');
      for (const [field, labels] of [
        ['funderType', FUNDER_TYPE_LABELS],
        ['fundingType', FUNDING_TYPE_LABELS],
        ['targetBeneficiaries', BENEFICIARY_LABELS],
        ['eligibleProvinces', PROVINCE_LABELS],
      ] as const) {
        for (const [value, label] of Object.entries(labels) as [string, { en: string; fr: string }][]) {
          expect(guide).to.include(`| \`${field}\` | \`${value}\` | ${label.en} | ${label.fr} |`);
        }
      }
    });

    it('make one text per grant: funder type, funding type, beneficiaries, provinces; a label the same in both languages once', () => {
      expect(
        labelText({
          funderType: 'FEDERAL_GRANT',
          fundingType: 'LOAN',
          targetBeneficiaries: ['INDIGENOUS_COMMUNITIES', 'SMALL_BUSINESS'],
          eligibleProvinces: ['ONTARIO', 'QUEBEC'],
        }),
      ).to.equal(
        'Federal government. gouvernement fédéral. Loan. prêt. Indigenous communities. communautés autochtones. ' +
          'Small business. petite entreprise. Ontario. Quebec. Québec',
      );
    });
  });
});
