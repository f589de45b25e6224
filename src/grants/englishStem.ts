// The English term of a word: Martin Porter's stemmer exactly as the catalog's FTS5 tokenizer
// (`porter` over `unicode61`) applies it to one lower-case, folded word, byte by byte over its
// UTF-8 form (a byte outside ASCII is a consonant), so that code outside SQLite reads a word as the
// embedded engine's English columns hold it (the highlighter: grants/highlighting.ts). A unit test
// holds it equal to FTS5's own output over the catalogs' words. Pure.

/** Words shorter than this or longer than the second (in UTF-8 bytes) are kept as they are. */
const SHORTEST = 3;
const LONGEST = 64;

const isVowel = (c: string, yIsVowel: boolean): boolean =>
  c === 'a' || c === 'e' || c === 'i' || c === 'o' || c === 'u' || (yIsVowel && c === 'y');

/**
 * Past the first vowel-consonant sequence of s[from, to) (y a vowel after a consonant): the index
 * after it, or 0 when there is none. `previousConsonant` says whether s[from - 1] was one.
 */
function pastVC(s: string, from: number, to: number, previousConsonant: boolean): number {
  let consonant = previousConsonant;
  let i = from;
  for (; i < to; i++) {
    consonant = !isVowel(s[i], consonant);
    if (!consonant) break;
  }
  for (i++; i < to; i++) {
    consonant = !isVowel(s[i], consonant);
    if (consonant) return i + 1;
  }
  return 0;
}

/** Porter's measure m of the stem s[0, n) compared: m > 0, m > 1, m = 1. */
const measureAbove0 = (s: string, n: number): boolean => pastVC(s, 0, n, false) !== 0;
function measureAbove1(s: string, n: number): boolean {
  const first = pastVC(s, 0, n, false);
  return first !== 0 && pastVC(s, first, n, true) !== 0;
}
function measureIs1(s: string, n: number): boolean {
  const first = pastVC(s, 0, n, false);
  return first !== 0 && pastVC(s, first, n, true) === 0;
}

/** *o: the stem ends consonant-vowel-consonant, the last not w, x or y. */
function endsCVC(s: string, n: number): boolean {
  const last = s[n - 1];
  if (last === 'w' || last === 'x' || last === 'y') return false;
  let mask = 0;
  let consonant = false;
  for (let i = 0; i < n; i++) {
    consonant = !isVowel(s[i], consonant);
    mask = ((mask << 1) | (consonant ? 1 : 0)) & 7;
  }
  return mask === 5;
}

/** *v*: the stem holds a vowel (y one anywhere but first). */
function hasVowel(s: string, n: number): boolean {
  for (let i = 0; i < n; i++) if (isVowel(s[i], i > 0)) return true;
  return false;
}

type Condition = (s: string, n: number) => boolean;
/** A suffix, what replaces it, and the condition on the stem before it. */
type Rule = readonly [suffix: string, replacement: string, condition: Condition];

const above1EndingSOrT: Condition = (s, n) => (s[n - 1] === 's' || s[n - 1] === 't') && measureAbove1(s, n);

const STEP2: readonly Rule[] = (
  [
    ['ational', 'ate'],
    ['tional', 'tion'],
    ['enci', 'ence'],
    ['anci', 'ance'],
    ['izer', 'ize'],
    ['logi', 'log'],
    ['bli', 'ble'],
    ['alli', 'al'],
    ['entli', 'ent'],
    ['eli', 'e'],
    ['ousli', 'ous'],
    ['ization', 'ize'],
    ['ation', 'ate'],
    ['ator', 'ate'],
    ['alism', 'al'],
    ['iveness', 'ive'],
    ['fulness', 'ful'],
    ['ousness', 'ous'],
    ['aliti', 'al'],
    ['iviti', 'ive'],
    ['biliti', 'ble'],
  ] as const
).map(([suffix, replacement]) => [suffix, replacement, measureAbove0] as const);

const STEP3: readonly Rule[] = (
  [
    ['ical', 'ic'],
    ['ness', ''],
    ['icate', 'ic'],
    ['iciti', 'ic'],
    ['ful', ''],
    ['ative', ''],
    ['alize', 'al'],
  ] as const
).map(([suffix, replacement]) => [suffix, replacement, measureAbove0] as const);

const STEP4: readonly Rule[] = [
  ...['al', 'ance', 'ence', 'er', 'ic', 'able', 'ible', 'ant', 'ement', 'ment', 'ent'].map(
    (suffix) => [suffix, '', measureAbove1] as const,
  ),
  ['ion', '', above1EndingSOrT],
  ...['ou', 'ism', 'ate', 'iti', 'ous', 'ive', 'ize'].map((suffix) => [suffix, '', measureAbove1] as const),
];

/**
 * The first rule whose suffix ends the word (the suffix shorter than the word) rewrites it when its
 * condition holds; a rule whose suffix ends the word but whose condition fails stops the step.
 * Rules of one step never share their last two letters but in the order listed, as FTS5 tries them.
 */
function applyFirst(rules: readonly Rule[], s: string): string {
  for (const [suffix, replacement, condition] of rules) {
    if (s.length > suffix.length && s.endsWith(suffix)) {
      const stem = s.length - suffix.length;
      return condition(s, stem) ? s.slice(0, stem) + replacement : s;
    }
  }
  return s;
}

/** Step 1a: plurals (sses → ss, ies → i, s → ''). */
function step1a(s: string): string {
  const n = s.length;
  if (s[n - 1] !== 's') return s;
  if (s[n - 2] === 'e')
    return (n > 4 && s[n - 4] === 's' && s[n - 3] === 's') || (n > 3 && s[n - 3] === 'i')
      ? s.slice(0, n - 2)
      : s.slice(0, n - 1);
  return s[n - 2] === 's' ? s : s.slice(0, n - 1);
}

/** Step 1b: -eed, -ed, -ing; then the repairs of a stem that lost -ed or -ing. */
function step1b(s: string): string {
  const n = s.length;
  let stem: string;
  if (n > 3 && s.endsWith('eed')) return measureAbove0(s, n - 3) ? s.slice(0, n - 1) : s;
  if (n > 2 && s.endsWith('ed')) {
    if (!hasVowel(s, n - 2)) return s;
    stem = s.slice(0, n - 2);
  } else if (n > 3 && s.endsWith('ing')) {
    if (!hasVowel(s, n - 3)) return s;
    stem = s.slice(0, n - 3);
  } else {
    return s;
  }
  const m = stem.length;
  if (m > 2 && (stem.endsWith('at') || stem.endsWith('bl') || stem.endsWith('iz'))) return `${stem}e`;
  const last = stem[m - 1];
  if (!isVowel(last, false) && last !== 'l' && last !== 's' && last !== 'z' && last === stem[m - 2])
    return stem.slice(0, m - 1);
  return measureIs1(stem, m) && endsCVC(stem, m) ? `${stem}e` : stem;
}

/** Porter's algorithm on a word whose characters are its UTF-8 bytes. */
function porter(word: string): string {
  let s = step1b(step1a(word));
  const n = s.length;
  if (s[n - 1] === 'y' && hasVowel(s, n - 1)) s = `${s.slice(0, n - 1)}i`;
  s = applyFirst(STEP4, applyFirst(STEP3, applyFirst(STEP2, s)));
  const m = s.length;
  if (s[m - 1] === 'e' && (measureAbove1(s, m - 1) || (measureIs1(s, m - 1) && !endsCVC(s, m - 1))))
    s = s.slice(0, m - 1);
  const k = s.length;
  if (k > 1 && s[k - 1] === 'l' && s[k - 2] === 'l' && measureAbove1(s, k - 1)) s = s.slice(0, k - 1);
  return s;
}

const ASCII = /^[\x00-\x7f]*$/;

/**
 * The English term of one word, lower case and folded as the tokenizer hands it over (searchSyntax.ts searchWords,
 * lower-cased).
 */
export function englishStem(word: string): string {
  if (ASCII.test(word)) return word.length < SHORTEST || word.length > LONGEST ? word : porter(word);
  const bytes = Buffer.from(word, 'utf8');
  if (bytes.length < SHORTEST || bytes.length > LONGEST) return word;
  return Buffer.from(porter(bytes.toString('latin1')), 'latin1').toString('utf8');
}
