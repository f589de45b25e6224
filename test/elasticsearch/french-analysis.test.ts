// The embedded engine's French analysis (src/grants/french.ts, a port of Lucene's
// FrenchLightStemmer with the mapping's elision) against Elasticsearch's own grant_french analyzer
// (mappings/elasticsearch-grants.json, run by Lucene): the same terms, in the same positions, for
// every field of every fixture grant, and for words chosen for each stemmer rule, accented or not.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { REPO_ROOT } from '../../fixtures/queries/record.js';
import { frenchLightStem, frenchTerms } from '../../src/grants/french.js';
import { fixtureGrants } from '../support/api.js';
import { ES_URL, describeWithElasticsearch, dropAlias, uniqueAlias } from '../support/elasticsearch.js';

const post = async (path: string, body: unknown, method = 'POST'): Promise<Record<string, unknown>> => {
  const res = await fetch(`${ES_URL}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as Record<string, unknown>;
  expect(res.status, JSON.stringify(json)).to.be.below(300);
  return json;
};

describeWithElasticsearch('French analysis: the embedded port against Elasticsearch', function () {
  this.timeout(120_000);
  const alias = uniqueAlias();
  const index = `${alias}-analysis`;
  before(async () => {
    const mapping = JSON.parse(readFileSync(`${REPO_ROOT}/mappings/elasticsearch-grants.json`, 'utf8')) as {
      settings: { analysis: Record<string, unknown> };
    };
    const analysis = mapping.settings.analysis as {
      filter: Record<string, unknown>;
      analyzer: Record<string, unknown>;
    };
    // The mapping's analysis, and its French stemmer alone (no folding) for accented words.
    await post(
      `/${index}`,
      {
        settings: {
          number_of_replicas: 0,
          analysis: {
            ...analysis,
            analyzer: {
              ...analysis.analyzer,
              stem_only: { type: 'custom', tokenizer: 'grant_words', filter: ['lowercase', 'grant_french_stemmer'] },
            },
          },
        },
      },
      'PUT',
    );
  });
  after(() => dropAlias(alias));

  const analyze = async (analyzer: string, texts: string[]): Promise<string[][]> => {
    const out: string[][] = [];
    for (const text of texts) {
      const { tokens } = (await post(`/${index}/_analyze`, { analyzer, text })) as {
        tokens: { token: string; position: number }[];
      };
      expect(
        tokens.map((t) => t.position),
        text.slice(0, 60),
      ).to.deep.equal(tokens.map((_, i) => i));
      out.push(tokens.map((t) => t.token));
    }
    return out;
  };

  it('the same terms for every text field of every fixture grant, elisions and labels included', async () => {
    const texts = fixtureGrants()
      .flatMap((g) => [g.title, g.funder, g.description ?? '', g.titleFr ?? '', g.descriptionFr ?? ''])
      .filter((t) => t !== '');
    texts.push("L'emploi, l’économie, jusqu’au bout, qu'il, D’AUTRES, aujourd'hui, children's, O'Brien");
    const theirs = await analyze('grant_french', texts);
    const differing = texts.filter((text, i) => JSON.stringify(frenchTerms(text)) !== JSON.stringify(theirs[i]));
    expect(differing).to.deep.equal([]);
    expect(texts.length).to.be.greaterThan(1500);
  });

  it('the same stem for words of every rule, accented', async () => {
    const words = (
      'nationalisation individuelle chevaux travaux généraux finissement finissant lentement activement ' +
      'amplificatrice amplificateur éducatrice éducateur créatrice créateur actrice deuxième chanteuse ' +
      'chanteur heureuse première active folle molle personnelle personnel complète pratique politesse ' +
      'jardinage organisation individualisation organisateur information définition bateaux eaux jeux nez ' +
      'mme mmmmm allée cafés'
    ).split(' ');
    const [theirs] = await analyze('stem_only', [words.join(' ')]);
    expect(words.map(frenchLightStem)).to.deep.equal(theirs);
  });
});
