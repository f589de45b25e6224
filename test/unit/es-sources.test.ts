// Cutting the grants out of an Elasticsearch response's text (sources.ts): each must be exactly
// JSON.stringify of the parsed _source, however the response was written (upper- or lower-case
// \u escapes, Java's doubles, \/, whitespace), and the rest of the response parsed as it was.
import { expect } from 'chai';
import fc from 'fast-check';
import { readSources, scanValue } from '../../src/search/elasticsearch/sources.js';
import { fixtureGrants } from '../support/api.js';

/** A small seeded generator, so that a failing case replays. */
function random(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
}

const hex4 = (code: number, upper: boolean) => {
  const h = code.toString(16).padStart(4, '0');
  return upper ? h.toUpperCase() : h;
};

/** JSON text of `value` as another writer might put it: valid JSON, not always JSON.stringify's. */
function writeLoosely(value: unknown, rnd: () => number): string {
  if (value === null || typeof value === 'boolean') return String(value);
  if (typeof value === 'number') {
    const roll = rnd();
    if (roll < 0.2) return value.toExponential().replace('e+', 'E'); // 1.5E7, as Java writes large doubles
    if (roll < 0.3 && Number.isInteger(value) && !String(value).includes('e')) return `${value}.0`;
    return JSON.stringify(value);
  }
  if (typeof value === 'string') {
    let out = '"';
    for (const ch of value) {
      const code = ch.codePointAt(0) as number;
      const roll = rnd();
      if (code < 0x20 && roll < 0.5) out += `\\u${hex4(code, rnd() < 0.5)}`;
      else if (ch === '/' && roll < 0.5) out += '\\/';
      else if (code < 0x10000 && roll < 0.03) out += `\\u${hex4(code, rnd() < 0.5)}`;
      else out += JSON.stringify(ch).slice(1, -1);
    }
    return `${out}"`;
  }
  const space = () => (rnd() < 0.05 ? ' ' : '');
  if (Array.isArray(value)) return `[${value.map((v) => space() + writeLoosely(v, rnd)).join(',')}]`;
  return `{${Object.entries(value as Record<string, unknown>)
    .map(([k, v]) => `${writeLoosely(k, rnd)}:${space()}${writeLoosely(v, rnd)}`)
    .join(',')}}`;
}

/** A _search response around the sources, written by `write`. */
function searchResponse(sources: unknown[], write: (v: unknown) => string): string {
  const hits = sources.map(
    (source, i) =>
      `{"_index":"grants-1","_id":"g-${i}","_score":null,"_source":${write(source)},"sort":[${i},${i * 7}]}`,
  );
  return (
    `{"took":1,"timed_out":false,"hits":{"total":{"value":${sources.length},"relation":"eq"},"max_score":null,` +
    `"hits":[${hits.join(',')}]},"aggregations":{"currency":{"doc_count":3,"values":{"buckets":[{"key":"CAD",` +
    `"doc_count":3}]}}}}`
  );
}

/** What readSources must give: the parsed response, each _source as its index, and their JSON.stringify. */
function expected(text: string): { body: unknown; sources: string[] } {
  const body = JSON.parse(text) as { hits: { hits: { _source: unknown }[] } };
  const sources = body.hits.hits.map((hit) => JSON.stringify(hit._source));
  body.hits.hits.forEach((hit, i) => (hit._source = i));
  return { body, sources };
}

describe('grants cut out of an Elasticsearch response', () => {
  it('serve every source as JSON.stringify(JSON.parse(it)), whoever wrote the response', () => {
    fc.assert(
      fc.property(fc.array(fc.jsonValue(), { maxLength: 6 }), fc.integer(), (sources, seed) => {
        const rnd = random(seed);
        const text = searchResponse(sources, (v) => writeLoosely(v, rnd));
        expect(readSources(text)).to.deep.equal(expected(text));
      }),
      { numRuns: 2000 },
    );
  });

  it('serve grants as the API writes them, cut as they are when nothing differs', () => {
    const grants = fixtureGrants().slice(0, 50);
    const text = searchResponse(grants, (g) => JSON.stringify(g));
    const { sources } = readSources(text);
    expect(sources).to.deep.equal(grants.map((g) => JSON.stringify(g)));
  });

  it('tell which texts JSON.stringify would write otherwise', () => {
    const canonical = (json: string) => scanValue(json, 0);
    for (const json of [
      '{"a":"x\\"y\\\\z\\n\\t\\r\\b\\f","b":[1,2.5,-3,0,1e-7],"c":{"d":null,"e":true,"f":false}}',
      '"plain"',
      '12',
      '[]',
      '{}',
    ]) {
      // 1e-7 is JSON.stringify's own way of writing 1e-7.
      expect(canonical(json), json).to.deep.equal({ end: json.length, canonical: true });
    }
    for (const json of [
      '{"a":"\\u001F"}',
      '{"a":"\\u001f"}',
      '{"a":"\\/"}',
      '{"a":1.5E7}',
      '{"a":1.0}',
      '{"a":-0}',
      '{"a":1e5}',
      '{ "a":1}',
      '{"1a":1}',
      '{"a":12345678901234567890}',
    ]) {
      expect(canonical(json).canonical, json).to.equal(false);
      expect(canonical(json).end, json).to.equal(json.length);
    }
  });

  it('a response without sources, and documents not found, parse as they are', () => {
    const mget =
      '{"docs":[{"_index":"i","_id":"a","found":false},{"_index":"i","_id":"b","_version":1,"found":true,' +
      '"_source":{"id":"b"}},{"_index":"i","_id":"c","error":{"type":"x"}}]}';
    expect(readSources(mget)).to.deep.equal({
      body: {
        docs: [
          { _index: 'i', _id: 'a', found: false },
          { _index: 'i', _id: 'b', _version: 1, found: true, _source: 0 },
          { _index: 'i', _id: 'c', error: { type: 'x' } },
        ],
      },
      sources: ['{"id":"b"}'],
    });
    expect(readSources('{"count":3}')).to.deep.equal({ body: { count: 3 }, sources: [] });
  });
});
