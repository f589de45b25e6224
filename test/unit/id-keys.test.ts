// The id spelled as numbers (idKeys.ts): ordering by the six keys, then the rest (absent first),
// must be exactly id ascending in code point order, for every id the schema allows and beyond it.
import { expect } from 'chai';
import fc from 'fast-check';
import { ID_KEY_FIELDS, idKeysOf, lacksIdKeys, type IdKeys } from '../../src/search/elasticsearch/idKeys.js';

/** Code point order (UTF-8 byte order), as keywords and SQLite's BINARY compare. */
const byCodePoint = (a: string, b: string): number => Math.sign(Buffer.compare(Buffer.from(a), Buffer.from(b)));

/** The order Elasticsearch gives [...ID_KEY_SORT]: each key ascending, then the rest with absent first. */
function byKeys(a: IdKeys, b: IdKeys): number {
  for (const field of ID_KEY_FIELDS) if (a[field] !== b[field]) return Math.sign(a[field] - b[field]);
  if (a.idRest === b.idRest) return 0;
  if (a.idRest === undefined) return -1;
  if (b.idRest === undefined) return 1;
  return byCodePoint(a.idRest, b.idRest);
}

const ID_CHARS = [...'-.0123456789:ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz'];
/** Ids as the schema allows them (GRANT_ID_PATTERN), short and long, often sharing long prefixes. */
const schemaId = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/);
const prefix = fc
  .array(fc.constantFrom(...ID_CHARS), { minLength: 30, maxLength: 60 })
  .map((chars) => `g${chars.join('')}`);

describe('id keys', () => {
  it('order schema ids exactly as code point order, with long shared prefixes', () => {
    fc.assert(
      fc.property(prefix, schemaId, schemaId, (shared, a, b) => {
        for (const [x, y] of [
          [a, b],
          [(shared + a).slice(0, 128), (shared + b).slice(0, 128)],
          [shared, shared + b],
        ]) {
          expect(byKeys(idKeysOf(x), idKeysOf(y)), `${x} vs ${y}`).to.equal(byCodePoint(x, y));
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('order any string as code point order (codes of 127 and more, surrogate pairs)', () => {
    const anyText = fc.string({ unit: 'binary', maxLength: 60 });
    fc.assert(
      fc.property(anyText, anyText, fc.string({ maxLength: 45 }), (a, b, shared) => {
        for (const [x, y] of [
          [a, b],
          [shared + a, shared + b],
        ]) {
          expect(byKeys(idKeysOf(x), idKeysOf(y)), `${JSON.stringify(x)} vs ${JSON.stringify(y)}`).to.equal(
            byCodePoint(x, y),
          );
        }
      }),
      { numRuns: 3000 },
    );
  });

  it("order strings of the codes at the digits' edges (0, 126, 127, 128, surrogates, U+FFFF)", () => {
    const edges = fc
      .array(fc.constantFrom('\u0000', 'a', '~', '\u007f', '\u0080', '\u00e9', '\ud83d\ude00', '\uffff'), {
        maxLength: 50,
      })
      .map((chars) => chars.join(''));
    fc.assert(
      fc.property(edges, edges, (a, b) => {
        expect(byKeys(idKeysOf(a), idKeysOf(b)), `${JSON.stringify(a)} vs ${JSON.stringify(b)}`).to.equal(
          byCodePoint(a, b),
        );
      }),
      { numRuns: 3000 },
    );
  });

  it('spell 42 characters in six exact integers and keep the rest, absent when nothing is left', () => {
    const id = 'grt_718eda04';
    const keys = idKeysOf(id);
    expect(keys).to.not.have.property('idRest');
    for (const field of ID_KEY_FIELDS)
      expect(Number.isSafeInteger(keys[field]) && keys[field] >= 0, field).to.equal(true);
    expect(idKeysOf('a'.repeat(42))).to.not.have.property('idRest');
    expect(idKeysOf(`${'a'.repeat(42)}:b`).idRest).to.equal(':b');
    expect(idKeysOf('ab\u00e9c').idRest).to.equal('\u00e9c');
    expect(idKeysOf('\u007f'.repeat(128)).idKey0).to.be.below(Number.MAX_SAFE_INTEGER);
  });

  it('tell the sort values of an index without them (missing keys read as Long.MIN_VALUE)', () => {
    expect(lacksIdKeys([1_800_000_000_000, ...Object.values(idKeysOf('g-1'))])).to.equal(false);
    expect(lacksIdKeys([1.5, -9223372036854775808, -9223372036854775808])).to.equal(true);
    expect(lacksIdKeys(undefined)).to.equal(true);
  });
});
