// The French analysis both engines apply beside the English one (Elasticsearch through
// mappings/elasticsearch-grants.json's grant_french analyzer; the embedded engine through this
// module): elided articles dropped, the words split as the English analysis splits them, lower
// case, folded (foldText), then reduced by the French light stemmer. Pure.
import { foldText } from './folding.js';

/**
 * The articles and conjunctions French elides before a vowel (Elasticsearch's `elision` list),
 * each followed by an ASCII or typographic apostrophe.
 */
export const ELIDED = ['l', 'm', 't', 'qu', 'n', 's', 'j', 'd', 'c', 'jusqu', 'quoiqu', 'lorsqu', 'puisqu'] as const;

/** Each letter as a class of its two cases (no case-insensitive flag: JavaScript's would also fold ſ and K). */
const bothCases = (word: string): string => [...word].map((c) => `[${c}${c.toUpperCase()}]`).join('');

/**
 * An elided article with its apostrophe: a whole word (no letter, mark or digit before it), an
 * apostrophe, and a letter, mark or digit after it. The same pattern, in Java's syntax, is the
 * grant_elision char filter of mappings/elasticsearch-grants.json (a unit test holds them equal).
 */
export const ELISION_PATTERN =
  `(?<![\\p{L}\\p{M}\\p{N}])(?:${ELIDED.map(bothCases).join('|')})` + `['\u2019](?=[\\p{L}\\p{M}\\p{N}])`;

const ELISION = new RegExp(ELISION_PATTERN, 'gu');

/** The text without its elided articles: `l'emploi` → `emploi`, `jusqu’au` → `au`. */
export function elide(text: string): string {
  return text.includes("'") || text.includes('\u2019') ? text.replace(ELISION, '') : text;
}

const endsWith = (s: string[], len: number, suffix: string): boolean => {
  if (len < suffix.length) return false;
  for (let i = 0; i < suffix.length; i++) if (s[len - suffix.length + i] !== suffix[i]) return false;
  return true;
};

const LETTER = /\p{L}/u;
const isLetter = (c: string): boolean => (c >= 'a' && c <= 'z') || (c > '\u007f' && LETTER.test(c));

const ACCENTLESS: Record<string, string> = {
  à: 'a',
  á: 'a',
  â: 'a',
  ô: 'o',
  è: 'e',
  é: 'e',
  ê: 'e',
  ù: 'u',
  û: 'u',
  î: 'i',
  ç: 'c',
};

/**
 * The stemmer's last step: accents of long words dropped, doubled letters merged, a final -ie, -r, -e, -ee and doubled
 * letter removed.
 */
function norm(s: string[], length: number): number {
  let len = length;
  if (len > 4) {
    for (let i = 0; i < len; i++) s[i] = ACCENTLESS[s[i]] ?? s[i];
    let ch = s[0];
    for (let i = 1; i < len; i++) {
      if (s[i] === ch && isLetter(ch)) {
        s.splice(i, 1);
        len--;
        i--;
      } else {
        ch = s[i];
      }
    }
  }
  if (len > 4 && endsWith(s, len, 'ie')) len -= 2;
  if (len > 4) {
    if (s[len - 1] === 'r') len--;
    if (s[len - 1] === 'e') len--;
    if (s[len - 1] === 'e') len--;
    if (s[len - 1] === s[len - 2] && isLetter(s[len - 1])) len--;
  }
  return len;
}

/**
 * Jacques Savoy's light stemmer for French ("UniNE"), as Lucene's FrenchLightStemmer and
 * Elasticsearch's `light_french` apply it to one lower-case word: plural -x and -s removed, then
 * the first of a list of derivational endings that fits (-issement, -ement, -atrice, -ateur,
 * -euse, -ive, -nnelle, -ique, -esse, -isation, -ation, -ition…) rewritten, then norm().
 * Lengths count UTF-16 units, as Lucene's char arrays do.
 */
export function frenchLightStem(word: string): string {
  const s = word.split('');
  let len = s.length;
  if (len > 5 && s[len - 1] === 'x') {
    if (s[len - 3] === 'a' && s[len - 2] === 'u' && s[len - 4] !== 'e') s[len - 2] = 'l';
    len--;
  }
  if (len > 3 && s[len - 1] === 'x') len--;
  if (len > 3 && s[len - 1] === 's') len--;
  const done = (n: number): string => s.slice(0, norm(s, n)).join('');

  if (len > 9 && endsWith(s, len, 'issement')) {
    len -= 6;
    s[len - 1] = 'r';
    return done(len);
  }
  if (len > 8 && endsWith(s, len, 'issant')) {
    len -= 4;
    s[len - 1] = 'r';
    return done(len);
  }
  if (len > 6 && endsWith(s, len, 'ement')) {
    len -= 4;
    if (len > 3 && endsWith(s, len, 'ive')) {
      len--;
      s[len - 1] = 'f';
    }
    return done(len);
  }
  if (len > 11 && endsWith(s, len, 'ficatrice')) {
    len -= 5;
    s[len - 2] = 'e';
    s[len - 1] = 'r';
    return done(len);
  }
  if (len > 10 && endsWith(s, len, 'ficateur')) {
    len -= 4;
    s[len - 2] = 'e';
    s[len - 1] = 'r';
    return done(len);
  }
  if (len > 9 && endsWith(s, len, 'catrice')) {
    len -= 3;
    s[len - 4] = 'q';
    s[len - 3] = 'u';
    s[len - 2] = 'e';
    return done(len);
  }
  if (len > 8 && endsWith(s, len, 'cateur')) {
    len -= 2;
    s[len - 4] = 'q';
    s[len - 3] = 'u';
    s[len - 2] = 'e';
    s[len - 1] = 'r';
    return done(len);
  }
  if (len > 8 && endsWith(s, len, 'atrice')) {
    len -= 4;
    s[len - 2] = 'e';
    s[len - 1] = 'r';
    return done(len);
  }
  if (len > 7 && endsWith(s, len, 'ateur')) {
    len -= 3;
    s[len - 2] = 'e';
    s[len - 1] = 'r';
    return done(len);
  }
  if (len > 6 && endsWith(s, len, 'trice')) {
    len--;
    s[len - 3] = 'e';
    s[len - 2] = 'u';
    s[len - 1] = 'r';
  }
  if (len > 5 && endsWith(s, len, 'ième')) return done(len - 4);
  if (len > 7 && endsWith(s, len, 'teuse')) {
    len -= 2;
    s[len - 1] = 'r';
    return done(len);
  }
  if (len > 6 && endsWith(s, len, 'teur')) {
    len--;
    s[len - 1] = 'r';
    return done(len);
  }
  if (len > 5 && endsWith(s, len, 'euse')) return done(len - 2);
  if (len > 8 && endsWith(s, len, 'ère')) {
    len--;
    s[len - 2] = 'e';
    return done(len);
  }
  if (len > 7 && endsWith(s, len, 'ive')) {
    len--;
    s[len - 1] = 'f';
    return done(len);
  }
  if (len > 4 && (endsWith(s, len, 'folle') || endsWith(s, len, 'molle'))) {
    len -= 2;
    s[len - 1] = 'u';
    return done(len);
  }
  if (len > 9 && endsWith(s, len, 'nnelle')) return done(len - 5);
  if (len > 9 && endsWith(s, len, 'nnel')) return done(len - 3);
  if (len > 4 && endsWith(s, len, 'ète')) {
    len--;
    s[len - 2] = 'e';
  }
  if (len > 8 && endsWith(s, len, 'ique')) len -= 4;
  if (len > 8 && endsWith(s, len, 'esse')) return done(len - 3);
  if (len > 7 && endsWith(s, len, 'inage')) return done(len - 3);
  if (len > 9 && endsWith(s, len, 'isation')) {
    len -= 7;
    if (len > 5 && endsWith(s, len, 'ual')) s[len - 2] = 'e';
    return done(len);
  }
  if (len > 9 && endsWith(s, len, 'isateur')) return done(len - 7);
  if (len > 8 && endsWith(s, len, 'ation')) return done(len - 5);
  if (len > 8 && endsWith(s, len, 'ition')) return done(len - 5);
  return done(len);
}

/** The words of text as both analyses split them: runs of letters, marks and digits holding a letter or digit. */
const WORDS = /[\p{L}\p{N}][\p{L}\p{M}\p{N}]*/gu;

/** Stems already made (a catalog's vocabulary is small beside its text); emptied past STEMS_KEPT. */
const stems = new Map<string, string>();
const STEMS_KEPT = 200_000;

/** frenchLightStem, remembered. */
function stemOf(word: string): string {
  let stem = stems.get(word);
  if (stem === undefined) {
    if (stems.size >= STEMS_KEPT) stems.clear();
    stem = frenchLightStem(word);
    stems.set(word, stem);
  }
  return stem;
}

/**
 * The French terms of a text, in order: elided articles dropped, the text lower-cased and folded
 * (as the English analysis folds it), then each word stemmed.
 */
export function frenchTerms(text: string): string[] {
  return foldedWords(text).map(stemOf);
}

/**
 * The words of a text as the French analysis splits them, before stemming: elided articles dropped, lower case, folded.
 */
export function foldedWords(text: string): string[] {
  // ASCII text is its own NFC and folded form, and its words are runs of ASCII letters and digits: the same words,
  // found faster.
  if (ASCII.test(text)) return elide(text).toLowerCase().match(ASCII_WORDS) ?? [];
  return foldedText(text).match(WORDS) ?? [];
}

/**
 * A text as foldedWords splits it: elided articles dropped, lower case, folded. It holds no
 * combining mark (folding drops them), so its words are its runs of letters and digits.
 */
export function foldedText(text: string): string {
  if (ASCII.test(text)) return elide(text).toLowerCase();
  // Latin text (French, English) folds one character at a time: the same text, without normalising it whole.
  if (LATIN.test(text)) return foldLatin(elide(text).toLowerCase());
  return foldText(elide(text.normalize('NFC')).toLowerCase());
}

/**
 * The words of a folded text (foldedText) that begin with one of `initials`, in order: its
 * foldedWords less the others, found without making the others.
 */
export function wordsBeginningWith(initials: ReadonlySet<string>): (folded: string) => string[] {
  const codes = [...initials].map((c) => c.charCodeAt(0));
  // An initial that is half a surrogate pair cannot stand in a character class of single code points.
  if (codes.some((code) => code >= 0xd800 && code <= 0xdfff))
    return (folded) => (folded.match(WORDS) ?? []).filter((word) => initials.has(word[0]));
  if (codes.length === 0) return () => [];
  const begins = new RegExp(
    `(?<![\\p{L}\\p{N}])[${codes.map((code) => `\\u{${code.toString(16)}}`).join('')}][\\p{L}\\p{N}]*`,
    'gu',
  );
  return (folded) => folded.match(begins) ?? [];
}

const ASCII = /^[\x00-\x7f]*$/;
const ASCII_WORDS = /[a-z0-9]+/g;

/**
 * Text of Basic Latin, Latin-1 and Latin Extended-A alone (U+0000–U+017F). Every such character
 * is its own NFC form and none is a combining mark, so such text is already NFC; and since
 * folding a character never moves a neighbour (it decomposes it and drops its marks),
 * foldText of such text is each character folded in turn. Lower-casing may add a combining mark
 * (İ → i + U+0307), which folding drops alike.
 */
const LATIN = /^[\u0000-\u017f]*$/;
const NON_ASCII = /[^\x00-\x7f]/g;
const foldedChars = new Map<string, string>();
const foldChar = (c: string): string => {
  let folded = foldedChars.get(c);
  if (folded === undefined) {
    folded = foldText(c);
    foldedChars.set(c, folded);
  }
  return folded;
};
/** foldText of text whose characters are Latin (LATIN) after lower-casing, a character at a time. */
const foldLatin = (text: string): string => text.replace(NON_ASCII, foldChar);

/**
 * The characters a word can begin with when its French term is one of `terms`: a stem keeps its
 * word's first character but for an accent the stemmer drops (norm's ACCENTLESS), so a word whose
 * first character is not in this set has none of these terms, and need not be stemmed.
 */
export function termInitials(terms: Iterable<string>): Set<string> {
  const initials = new Set<string>();
  for (const term of terms) if (term !== '') initials.add(term[0]);
  for (const [accented, plain] of Object.entries(ACCENTLESS)) if (initials.has(plain)) initials.add(accented);
  return initials;
}

/** The French term of a word as foldedWords gives it (folded, lower case already). */
export const frenchTermOfFolded = (word: string): string => stemOf(word);

/** The French term of one search word (already folded by searchWords). */
export function frenchTermOf(word: string): string {
  return stemOf(foldText(word.toLowerCase()));
}
