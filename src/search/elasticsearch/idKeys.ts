// The id as numbers: what offset pages on Elasticsearch break ties with instead of the `id`
// keyword. Pure: no I/O, unit-tested on its output.
//
// Every order ends with id ascending. Sorting on a keyword costs Lucene a terms-dictionary lookup
// (a copy of the term) for each hit entering the page's priority queue, and a page at offset 4,000
// keeps 4,020 of them: the tie-break alone cost Elasticsearch about as much as the rest of such a
// search. A `long` sort key costs a doc-value read. So the writer stores, beside each grant, its id
// spelled in numbers: `idKey0`…`idKey5`, each 7 characters of the id (one base-129 digit per
// UTF-16 unit: 0 past the end, 1 + the code for codes 0–126, 128 for a code of 127 or more, which
// ends the digits), and `idRest`, a keyword holding the id from where the digits stop (its 43rd
// character, or its first code ≥ 127) when anything is left, absent otherwise. Sorting on the six
// keys, then `idRest` (absent first), is exactly id ascending in code point order (the keyword and
// SQLite order): two ids first differ either at a digit, where the digits compare as the codes do
// (a code ≥ 127 beats every lower code; the end of an id beats nothing), or inside both rests,
// which hold the same prefix. Ids are at most 128 ASCII characters (GRANT_ID_PATTERN), so only an
// id longer than 42 characters has a rest, and only those pay the keyword's lookup.

/** The six numeric keys, in sort order. */
export const ID_KEY_FIELDS = ['idKey0', 'idKey1', 'idKey2', 'idKey3', 'idKey4', 'idKey5'] as const;
/** The keyword holding what the keys do not spell. */
const ID_REST_FIELD = 'idRest';

const CHARS_PER_KEY = 7;
const BASE = 129;
/** The digit of a code of 127 or more: the digits stop after it and the rest holds the id from it. */
const HIGH = 128;
const SPELLED = ID_KEY_FIELDS.length * CHARS_PER_KEY;

export type IdKeys = Record<(typeof ID_KEY_FIELDS)[number], number> & { [ID_REST_FIELD]?: string };

/** The keys of an id (each below 129^7 < 2^53: exact as a JavaScript number and as a long). */
export function idKeysOf(id: string): IdKeys {
  const digits = new Array<number>(SPELLED).fill(0);
  let rest: string | undefined;
  for (let i = 0; i < id.length; i++) {
    if (i === SPELLED) {
      rest = id.slice(i);
      break;
    }
    const code = id.charCodeAt(i);
    if (code >= HIGH - 1) {
      digits[i] = HIGH;
      rest = id.slice(i);
      break;
    }
    digits[i] = code + 1;
  }
  const keys = {} as IdKeys;
  ID_KEY_FIELDS.forEach((field, k) => {
    let value = 0;
    for (let i = k * CHARS_PER_KEY; i < (k + 1) * CHARS_PER_KEY; i++) value = value * BASE + digits[i];
    keys[field] = value;
  });
  if (rest !== undefined) keys[ID_REST_FIELD] = rest;
  return keys;
}

/**
 * The sort clauses that order as `{ id: 'asc' }` does. Absent keys sort first: an index built
 * before the keys existed has none (`unmapped_type` keeps the search valid there), and then
 * every key reads as missing (Long.MIN_VALUE, negative) in a hit's sort values: see lacksIdKeys.
 */
export const ID_KEY_SORT: readonly unknown[] = Object.freeze([
  ...ID_KEY_FIELDS.map((field) => ({ [field]: { order: 'asc', missing: '_first', unmapped_type: 'long' } })),
  { [ID_REST_FIELD]: { order: 'asc', missing: '_first', unmapped_type: 'keyword' } },
]);

/**
 * True when a hit sorted by [key, ...ID_KEY_SORT] came from an index without the keys: its first
 * key is not a number of its own (every indexed grant has keys ≥ 0).
 */
export function lacksIdKeys(sortValues: readonly unknown[] | undefined): boolean {
  const first = sortValues?.[1];
  return typeof first !== 'number' || first < 0;
}
