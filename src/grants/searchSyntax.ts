// The web-search syntax of `search`, parsed once into an engine-neutral structure each engine
// translates (SQLite: an FTS5 match expression; Elasticsearch: a bool query). Pure.
//
//   "clean tech"      a phrase: these words, adjacent and in this order, in one field
//   -loan, -"a b"     a leading minus (at the start or after a space) excludes the word or phrase
//   a OR b            upper-case OR between two terms: either; AND binds tighter (a b OR c = (a b) OR c)
//
// Everything else is plain text: its words are found as words (anything but letters, marks and
// digits separates them), so no input is ever an error. An unclosed quote, an OR at either end
// or next to another OR, a minus inside a word (e-commerce) are plain text too. A group between
// ORs with no word to find (only exclusions, only symbols) matches nothing; a search with no such
// group matches nothing at all.
import { foldText } from './folding.js';
import { elide } from './french.js';

/**
 * Splits search text into words: runs of letters, marks and digits that hold at least one letter
 * or digit (a lone combining mark is no word), folded as both engines fold indexed text
 * (accents dropped, ligatures spelled out), so the engines see the same words. A French elided
 * article is no word (`l'emploi` is `emploi`: grants/french.ts).
 */
export function searchWords(text: string): string[] {
  return (elide(text.normalize('NFC')).match(/[\p{L}\p{N}][\p{L}\p{M}\p{N}]*/gu) ?? [])
    .map(foldText)
    .filter((word) => word !== '');
}

/**
 * A word, or a phrase of words that must stand adjacent in this order (words as searchWords makes
 * them). A term may carry alternatives an engine derived from the catalog (grants/typos.ts): a
 * grant holds the term when it holds its words or any alternative's, and an alternative counts its typos.
 */
export interface SearchTerm {
  words: string[];
  /** A word written in quotes: found as written, never given alternatives (a phrase of several words never is). */
  exact?: true;
  /**
   * Several words of the search a synonym rule joined (grants/synonyms.ts): the term's own words
   * are each found anywhere, as they would be apart (not as a phrase); its alternatives are phrases.
   */
  loose?: true;
  alternatives?: readonly TermAlternative[];
}

/** Other words a term is found by: catalog words within the typo rule, with the typos they need. */
interface TermAlternative {
  words: string[];
  typos: number;
}

/** A group of a search: every `must` term and none of the `not` terms; `must` is never empty. */
export interface SearchClause {
  must: SearchTerm[];
  not: SearchTerm[];
}

/** A parsed search: a grant matches when it matches any clause; no clause matches nothing. */
export interface ParsedSearch {
  clauses: SearchClause[];
}

type Piece = { kind: 'or' } | { kind: 'term'; term: SearchTerm; excluded: boolean };

/** The text's chunks (between spaces) and quoted phrases, in order, with their exclusion minus. */
function lex(text: string): { text: string; quoted: boolean; excluded: boolean }[] {
  const tokens: { text: string; quoted: boolean; excluded: boolean }[] = [];
  let chunk = '';
  /** Whether the chunk being read began at the start or after a space (where a minus excludes). */
  let chunkAfterSpace = true;
  const flush = (nextAfterSpace: boolean) => {
    if (chunk !== '') {
      const excluded = chunkAfterSpace && chunk.startsWith('-');
      tokens.push({ text: excluded ? chunk.slice(1) : chunk, quoted: false, excluded });
    }
    chunk = '';
    chunkAfterSpace = nextAfterSpace;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (/\s/u.test(c)) {
      flush(true);
      continue;
    }
    if (c === '"') {
      const close = text.indexOf('"', i + 1);
      if (close !== -1) {
        const excluded = chunk === '-' && chunkAfterSpace;
        if (excluded) chunk = '';
        flush(false);
        tokens.push({ text: text.slice(i + 1, close), quoted: true, excluded });
        i = close;
        continue;
      }
    }
    chunk += c;
  }
  flush(true);
  return tokens;
}

/**
 * The clauses of search text (see the top of this file). Text without syntax gives one clause of
 * its searchWords, one term each, in order.
 */
export function parseSearch(text: string): ParsedSearch {
  // Without a quote, a minus or an OR there is no syntax: the words, as they have always been.
  if (!/["-]|OR/.test(text)) return plainSearch(searchWords(text));
  const pieces: Piece[] = [];
  for (const token of lex(text)) {
    if (!token.quoted && !token.excluded && token.text === 'OR') {
      pieces.push({ kind: 'or' });
      continue;
    }
    const words = searchWords(token.text);
    if (words.length === 0) continue;
    // An excluded chunk of several words (-e-commerce) excludes them as a phrase; a plain one
    // gives a term per word, as words have always been found.
    if (token.quoted || token.excluded)
      pieces.push({
        kind: 'term',
        term: token.quoted && words.length === 1 ? { words, exact: true } : { words },
        excluded: token.excluded,
      });
    else for (const word of words) pieces.push({ kind: 'term', term: { words: [word] }, excluded: false });
  }
  const clauses: SearchClause[] = [];
  let current: SearchClause = { must: [], not: [] };
  pieces.forEach((piece, i) => {
    if (piece.kind === 'or') {
      const between = pieces[i - 1]?.kind === 'term' && pieces[i + 1]?.kind === 'term';
      if (between) {
        clauses.push(current);
        current = { must: [], not: [] };
      } else {
        current.must.push({ words: searchWords('OR') });
      }
      return;
    }
    (piece.excluded ? current.not : current.must).push(piece.term);
  });
  clauses.push(current);
  return { clauses: clauses.filter((clause) => clause.must.length > 0) };
}

/** The words a search looks for (every `must` term's words, in order): what relevance ranks by. */
export function positiveWords(search: ParsedSearch): string[] {
  return search.clauses.flatMap((clause) => clause.must.flatMap((term) => term.words));
}

/** The search of plain words: one clause, a term per word (no clause without words). */
export function plainSearch(words: readonly string[]): ParsedSearch {
  return { clauses: words.length === 0 ? [] : [{ must: words.map((word) => ({ words: [word] })), not: [] }] };
}

/** Whether a search is plain words: one clause of one-word terms and no exclusion. */
export function isPlainSearch(search: ParsedSearch): boolean {
  return (
    search.clauses.length === 1 &&
    search.clauses[0].not.length === 0 &&
    search.clauses[0].must.every((term) => term.words.length === 1)
  );
}
