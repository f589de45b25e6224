// Highlights and crops of a grant's text fields, the same whatever engine found the grant: the
// search as the engine ran it (its synonyms and typo alternatives included) is read word by word
// as the engines read words, in English (folded, Porter's stem: englishStem.ts) and in French
// (elided articles dropped, folded, the light stem: french.ts), phrases adjacent and in order; each
// word of the text where a term of the search is found is wrapped in the tags, and everything else
// is HTML-escaped so that the text can be put into a page as it is. Pure.
import { englishStem } from './englishStem.js';
import { foldText } from './folding.js';
import { ELIDED, frenchTermOf } from './french.js';
import type { ParsedSearch } from './searchSyntax.js';

/** The text fields that can be highlighted or cropped. */
export const HIGHLIGHT_FIELDS = ['title', 'description', 'funder', 'titleFr', 'descriptionFr'] as const;
export type HighlightField = (typeof HIGHLIGHT_FIELDS)[number];

export const DEFAULT_PRE_TAG = '<mark>';
export const DEFAULT_POST_TAG = '</mark>';
/** The longest tag a request may set. */
export const MAX_TAG_LENGTH = 32;
/** The words a crop keeps at most (and at least 1). */
export const MAX_CROP_WORDS = 200;
/** What stands where a crop cut text off. */
export const CROP_MARKER = '…';

/**
 * What to highlight: the fields (in the order of HIGHLIGHT_FIELDS), the tags, and the words each cropped field keeps.
 */
export interface HighlightSpec {
  fields: readonly HighlightField[];
  preTag: string;
  postTag: string;
  crop: ReadonlyMap<HighlightField, number>;
}

/**
 * For each field asked, its text escaped with the words found tagged (cropped where asked); null for a field the
 * grant leaves empty.
 */
type Highlights = Partial<Record<HighlightField, string | null>>;

/** The words of text as both analyses split them: runs of letters, marks and digits holding a letter or digit. */
const WORD = /[\p{L}\p{N}][\p{L}\p{M}\p{N}]*/gu;
const WORD_CHAR = /[\p{L}\p{M}\p{N}]/u;
const ELIDED_WORDS: ReadonlySet<string> = new Set(ELIDED);

/**
 * How the engines read one word of a text: the English and French terms of its folded parts (one, but for rare
 * characters folding splits).
 */
interface WordTerms {
  english: readonly string[];
  french: readonly string[];
}

/** Terms of words already read (a catalog's vocabulary is small beside its text); emptied past TERMS_KEPT. */
const termsOfWord = new Map<string, WordTerms>();
const TERMS_KEPT = 200_000;

function termsOf(word: string): WordTerms {
  let terms = termsOfWord.get(word);
  if (terms === undefined) {
    if (termsOfWord.size >= TERMS_KEPT) termsOfWord.clear();
    const parts = foldText(word).toLowerCase().match(WORD) ?? [];
    terms = { english: parts.map(englishStem), french: parts.map(frenchTermOf) };
    termsOfWord.set(word, terms);
  }
  return terms;
}

/**
 * A run of words to find adjacent and in order, as English terms and as French terms; `id` names the search term it
 * stands for.
 */
interface Phrase {
  english: readonly string[];
  french: readonly string[];
  id: number;
}

/**
 * What a search finds in text, compiled once per search: single words by their terms, phrases by
 * their first term. Each search term (with its alternatives) has an id, a word a synonym joined one
 * of its own; the crop counts distinct ids.
 */
interface SearchWordFinder {
  englishWords: ReadonlyMap<string, number>;
  frenchWords: ReadonlyMap<string, number>;
  englishPhrases: ReadonlyMap<string, readonly Phrase[]>;
  frenchPhrases: ReadonlyMap<string, readonly Phrase[]>;
  /**
   * The first characters of every term the search looks for, as a table over ASCII (1 for a first
   * character, in either case). Both stemmers rewrite only a word's ending, so a word of the text
   * can be a hit only when it starts with one of them: a word of ASCII starting otherwise is passed
   * over unread.
   */
  firstChars: Uint8Array;
  /** Whether the search looks for any term. */
  searching: boolean;
}

/**
 * The word finder of a search as the engine ran it: every term the search looks for (never an
 * exclusion), in every clause, its own words and each alternative. Null: no search, nothing marked.
 */
export function searchWordFinder(search: ParsedSearch | null): SearchWordFinder {
  const englishWords = new Map<string, number>();
  const frenchWords = new Map<string, number>();
  const englishPhrases = new Map<string, Phrase[]>();
  const frenchPhrases = new Map<string, Phrase[]>();
  let nextId = 0;
  const add = (words: readonly string[], id: number) => {
    const terms = words.map(termsOf);
    const english = terms.flatMap((t) => t.english);
    const french = terms.flatMap((t) => t.french);
    if (english.length === 0) return;
    if (english.length === 1) {
      if (!englishWords.has(english[0])) englishWords.set(english[0], id);
    } else {
      englishPhrases.set(english[0], [...(englishPhrases.get(english[0]) ?? []), { english, french, id }]);
    }
    if (french.length === 1) {
      if (!frenchWords.has(french[0])) frenchWords.set(french[0], id);
    } else if (french.length > 1) {
      frenchPhrases.set(french[0], [...(frenchPhrases.get(french[0]) ?? []), { english, french, id }]);
    }
  };
  for (const clause of search?.clauses ?? []) {
    for (const term of clause.must) {
      const id = nextId++;
      if (term.loose === true) term.words.forEach((word, i) => add([word], i === 0 ? id : nextId++));
      else add(term.words, id);
      for (const alternative of term.alternatives ?? []) add(alternative.words, id);
    }
  }
  const firstChars = new Uint8Array(128);
  const first = (term: string) => {
    const c = term.charCodeAt(0);
    if (c < 128) firstChars[c] = firstChars[c >= 0x61 && c <= 0x7a ? c - 0x20 : c] = 1;
  };
  for (const term of [...englishWords.keys(), ...frenchWords.keys()]) first(term);
  for (const phrases of [englishPhrases, frenchPhrases]) {
    for (const list of phrases.values())
      for (const phrase of list) for (const term of [...phrase.english, ...phrase.french]) first(term);
  }
  const searching = englishWords.size + frenchWords.size + englishPhrases.size + frenchPhrases.size > 0;
  return { englishWords, frenchWords, englishPhrases, frenchPhrases, firstChars, searching };
}

/**
 * The words of a text: where each stands ([starts[i], ends[i])) and the id of the search term found
 * at it (hits[i], -1 for none), for i below `count`. The arrays are the module's own, reused from
 * one text to the next (a page's texts hold thousands of words): valid until textWords is called again.
 */
interface TextWords {
  count: number;
  starts: Int32Array;
  ends: Int32Array;
  hits: Int32Array;
}

const scratch: TextWords = {
  count: 0,
  starts: new Int32Array(1024),
  ends: new Int32Array(1024),
  hits: new Int32Array(1024),
};

/** Appends a word to the scratch arrays, growing them when full. */
function pushWord(start: number, end: number, hit: number): void {
  const at = scratch.count;
  if (at === scratch.starts.length) {
    const grown = (old: Int32Array) => {
      const bigger = new Int32Array(old.length * 2);
      bigger.set(old);
      return bigger;
    };
    scratch.starts = grown(scratch.starts);
    scratch.ends = grown(scratch.ends);
    scratch.hits = grown(scratch.hits);
  }
  scratch.starts[at] = start;
  scratch.ends[at] = end;
  scratch.hits[at] = hit;
  scratch.count = at + 1;
}

/** Whether the word at [start, end) is a French elided article (l', qu', jusqu'…), which the French analysis drops. */
function isElided(text: string, start: number, end: number): boolean {
  const apostrophe = text.charCodeAt(end);
  if ((apostrophe !== 0x27 && apostrophe !== 0x2019) || end - start > 7) return false;
  if (!ELIDED_WORDS.has(text.slice(start, end).toLowerCase())) return false;
  return end + 1 < text.length && WORD_CHAR.test(text[end + 1]) && (start === 0 || !WORD_CHAR.test(text[start - 1]));
}

/** Marks, in one analysis, the words whose terms (at `positions`, each term's word) a phrase of the search finds. */
function markPhrases(
  hits: Int32Array,
  terms: readonly string[],
  positions: readonly number[],
  phrases: ReadonlyMap<string, readonly Phrase[]>,
  french: boolean,
): void {
  for (let p = 0; p < terms.length; p++) {
    const starting = phrases.get(terms[p]);
    if (starting === undefined) continue;
    for (const phrase of starting) {
      const wanted = french ? phrase.french : phrase.english;
      if (p + wanted.length > terms.length) continue;
      let whole = true;
      for (let k = 1; k < wanted.length && whole; k++) whole = terms[p + k] === wanted[k];
      if (!whole) continue;
      for (let k = 0; k < wanted.length; k++) if (hits[positions[p + k]] === -1) hits[positions[p + k]] = phrase.id;
    }
  }
}

const isAsciiWordChar = (c: number): boolean =>
  (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39);
/** WORD from a given place only (for a word holding characters outside ASCII). */
const WORD_AT = new RegExp(WORD.source, 'uy');
/** What a word passed over stands as in a phrase's sequence of terms: no term equals it. */
const NO_TERM = '';

/**
 * The words of a text (as WORD finds them: an ASCII scan, WORD itself for other characters), each
 * with the search term found at it in either analysis (single words as read, phrases after).
 */
function textWords(text: string, finder: SearchWordFinder): TextWords {
  scratch.count = 0;
  const { englishWords, frenchWords, firstChars, searching } = finder;
  const phrases = finder.englishPhrases.size > 0 || finder.frenchPhrases.size > 0;
  const englishTerms: string[] = [];
  const englishAt: number[] = [];
  const frenchTerms: string[] = [];
  const frenchAt: number[] = [];
  const length = text.length;
  let i = 0;
  while (i < length) {
    const c = text.charCodeAt(i);
    let end: number;
    let ascii = true;
    if (c < 0x80) {
      if (!isAsciiWordChar(c)) {
        i++;
        continue;
      }
      end = i + 1;
      while (end < length) {
        const d = text.charCodeAt(end);
        if (d >= 0x80) {
          ascii = false;
          break;
        }
        if (!isAsciiWordChar(d)) break;
        end++;
      }
      if (!ascii) {
        WORD_AT.lastIndex = i;
        WORD_AT.exec(text);
        end = WORD_AT.lastIndex;
      }
    } else {
      ascii = false;
      WORD_AT.lastIndex = i;
      if (WORD_AT.exec(text) === null) {
        i += c >= 0xd800 && c <= 0xdbff ? 2 : 1;
        continue;
      }
      end = WORD_AT.lastIndex;
    }
    const start = i;
    i = end;
    let hit = -1;
    if (searching) {
      const index = scratch.count;
      const elided = isElided(text, start, end);
      if (ascii && firstChars[c] === 0) {
        if (phrases) {
          englishTerms.push(NO_TERM);
          englishAt.push(index);
          if (!elided) {
            frenchTerms.push(NO_TERM);
            frenchAt.push(index);
          }
        }
      } else {
        const terms = termsOf(text.slice(start, end));
        for (const term of terms.english) {
          if (hit === -1) hit = englishWords.get(term) ?? -1;
          if (phrases) {
            englishTerms.push(term);
            englishAt.push(index);
          }
        }
        if (!elided) {
          for (const term of terms.french) {
            if (hit === -1) hit = frenchWords.get(term) ?? -1;
            if (phrases) {
              frenchTerms.push(term);
              frenchAt.push(index);
            }
          }
        }
      }
    }
    pushWord(start, end, hit);
  }
  if (phrases) {
    markPhrases(scratch.hits, englishTerms, englishAt, finder.englishPhrases, false);
    markPhrases(scratch.hits, frenchTerms, frenchAt, finder.frenchPhrases, true);
  }
  return scratch;
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
/** Text safe as HTML content and inside a quoted attribute. */
const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ESCAPES[c]);

/**
 * The first and last word (indices) of the passage of `size` words to keep: the earliest window
 * holding the most distinct terms found, then moved so that its hits stand in its middle.
 */
function bestPassage(words: TextWords, size: number): [number, number] {
  const { hits, count } = words;
  const counts = new Map<number, number>();
  const enter = (hit: number) => {
    if (hit !== -1) counts.set(hit, (counts.get(hit) ?? 0) + 1);
  };
  const leave = (hit: number) => {
    if (hit === -1) return;
    const left = counts.get(hit)! - 1;
    if (left === 0) counts.delete(hit);
    else counts.set(hit, left);
  };
  for (let i = 0; i < size; i++) enter(hits[i]);
  let best = 0;
  let bestDistinct = counts.size;
  for (let start = 1; start + size <= count; start++) {
    leave(hits[start - 1]);
    enter(hits[start + size - 1]);
    if (counts.size > bestDistinct) {
      best = start;
      bestDistinct = counts.size;
    }
  }
  if (bestDistinct === 0) return [0, size - 1];
  let first = best;
  while (hits[first] === -1) first++;
  let last = best + size - 1;
  while (hits[last] === -1) last--;
  const start = Math.min(Math.max(0, first - Math.floor((size - (last - first + 1)) / 2)), count - size);
  return [start, start + size - 1];
}

/** The text (or its passage of `crop` words) escaped, each word found between the tags. */
function highlightText(
  text: string,
  finder: SearchWordFinder,
  preTag: string,
  postTag: string,
  crop: number | undefined,
): string {
  const words = textWords(text, finder);
  const { starts, ends, hits, count } = words;
  let from = 0;
  let to = text.length;
  let firstWord = 0;
  let lastWord = count - 1;
  if (crop !== undefined && count > crop) {
    [firstWord, lastWord] = bestPassage(words, crop);
    if (firstWord > 0) from = starts[firstWord];
    if (lastWord < count - 1) to = ends[lastWord];
  }
  let out = from > 0 ? CROP_MARKER : '';
  let at = from;
  for (let i = firstWord; i <= lastWord; i++) {
    if (hits[i] === -1) continue;
    const marked = escapeHtml(text.slice(starts[i], ends[i]));
    out += `${escapeHtml(text.slice(at, starts[i]))}${preTag}${marked}${postTag}`;
    at = ends[i];
  }
  out += escapeHtml(text.slice(at, to));
  return to < text.length ? `${out}${CROP_MARKER}` : out;
}

/** A grant's text fields (those read: a field absent is null). */
type GrantTexts = Partial<Record<HighlightField, string | null>>;

/**
 * A text field's value in a stored grant's JSON text, read without parsing the rest: `,"name":`
 * outside a string can only be the field itself (inside a JSON string every quote is escaped, and
 * no nested object of a grant has these names), and its value is null or a JSON string.
 */
function textIn(json: string, name: HighlightField): string | null {
  const at = json.indexOf(`,"${name}":`);
  if (at < 0) return null;
  const start = at + name.length + 4;
  if (json.charCodeAt(start) !== 0x22) return null;
  let end = start + 1;
  let escaped = false;
  for (;;) {
    end = json.indexOf('"', end);
    if (end < 0) return null;
    let backslashes = 0;
    while (json.charCodeAt(end - 1 - backslashes) === 0x5c) backslashes++;
    if (backslashes % 2 === 0) break;
    escaped = true;
    end++;
  }
  return escaped ? (JSON.parse(json.slice(start, end + 1)) as string) : json.slice(start + 1, end);
}

/** The fields of the spec from a stored grant's JSON text. */
export function textsOfJson(json: string, spec: HighlightSpec): GrantTexts {
  const texts: GrantTexts = {};
  for (const field of spec.fields) texts[field] = textIn(json, field);
  return texts;
}

/** The highlights of one grant: each field of the spec, in its order. */
export function highlightGrant(grant: GrantTexts, spec: HighlightSpec, finder: SearchWordFinder): Highlights {
  const highlights: Highlights = {};
  for (const field of spec.fields) {
    const text = grant[field] ?? null;
    highlights[field] =
      text === null ? null : highlightText(text, finder, spec.preTag, spec.postTag, spec.crop.get(field));
  }
  return highlights;
}
