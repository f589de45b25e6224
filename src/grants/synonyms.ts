// Synonyms: the operator's list, in the Solr synonym format Elasticsearch's synonym_graph reads,
// parsed once at start-up, and how a parsed search's terms gain the other spellings as
// alternatives (searchSyntax.ts TermAlternative, with no typo). Applied at query time, the same
// for GET /grants, exports, MCP and alerts, whatever the engine. Pure.
//
//   # a comment                       a line starting with # (after spaces), and blank lines, say nothing
//   nonprofit, non-profit, not-for-profit
//                                     an equivalence: a search for any of them finds the others
//   R&D => research and development   a rewrite: a search for the left side also finds the right side
//   EV, e.v. => electric vehicle      (several spellings on either side, separated by commas)
//
// Each spelling is read as search text is (searchSyntax.ts searchWords: folded, French articles
// elided, anything but letters and digits separating words) and in lower case, so `non-profit`
// is the two words `non profit`, and a query's words meet it however they were typed.
import { searchWords, type ParsedSearch, type SearchClause, type SearchTerm } from './searchSyntax.js';

/** A file larger than this is refused (the default list is a few kilobytes). */
export const MAX_SYNONYMS_BYTES = 1024 * 1024;
/** Words one spelling may hold at most: the longest run of query words a rule is looked for. */
const MAX_SYNONYM_WORDS = 12;
/** Other spellings a query's words gain at most from the list (the first ones in the file's order). */
const MAX_SYNONYM_ALTERNATIVES = 20;

/**
 * The parsed list: for each spelling (its words joined by a space), the other spellings it also finds, in the file's
 * order.
 */
export interface SynonymRules {
  readonly alternatives: ReadonlyMap<string, readonly (readonly string[])[]>;
  /** The most words of any spelling with alternatives (0: an empty list). */
  readonly longest: number;
}

/** A line of the file that cannot be read: its number (from 1) and what is wrong. */
export class SynonymsFileError extends Error {
  constructor(
    readonly line: number,
    readonly problem: string,
  ) {
    super(line === 0 ? problem : `line ${line}: ${problem}`);
    this.name = 'SynonymsFileError';
  }
}

const keyOf = (words: readonly string[]): string => words.join(' ');

/** Case does not matter: spellings and search words are compared in lower case. */
const lower = (word: string): string => word.toLowerCase();

/** The spellings of one side of a rule, each as its words; throws for an empty or oversized one. */
function spellings(side: string, line: number): string[][] {
  return side.split(',').map((entry) => {
    const words = searchWords(entry).map(lower);
    if (words.length === 0)
      throw new SynonymsFileError(
        line,
        `"${entry.trim().slice(0, 60)}" has no word (an empty entry between commas, or only symbols)`,
      );
    if (words.length > MAX_SYNONYM_WORDS)
      throw new SynonymsFileError(line, `a spelling may hold at most ${MAX_SYNONYM_WORDS} words`);
    return words;
  });
}

/**
 * The rules of a synonyms file (the format at the top of this file); throws SynonymsFileError
 * naming the first line it cannot read.
 */
export function parseSynonyms(text: string): SynonymRules {
  if (Buffer.byteLength(text, 'utf8') > MAX_SYNONYMS_BYTES)
    throw new SynonymsFileError(0, `the file is larger than ${MAX_SYNONYMS_BYTES / 1024} KiB`);
  const alternatives = new Map<string, string[][]>();
  const add = (from: readonly string[], to: readonly string[]) => {
    const key = keyOf(from);
    if (key === keyOf(to)) return;
    const known = alternatives.get(key) ?? [];
    if (!known.some((words) => keyOf(words) === keyOf(to))) known.push([...to]);
    alternatives.set(key, known);
  };
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = i + 1;
    const content = raw.trim();
    if (content === '' || content.startsWith('#')) return;
    const sides = content.split('=>');
    if (sides.length > 2) throw new SynonymsFileError(line, 'a rule has at most one "=>"');
    if (sides.length === 2) {
      const [left, right] = sides.map((side) => spellings(side, line));
      for (const from of left) for (const to of right) add(from, to);
      return;
    }
    const group = spellings(content, line);
    if (group.length < 2)
      throw new SynonymsFileError(
        line,
        'an equivalence names two or more spellings separated by commas (or write "a => b")',
      );
    for (const from of group) for (const to of group) add(from, to);
  });
  let longest = 0;
  for (const key of alternatives.keys()) longest = Math.max(longest, key.split(' ').length);
  return { alternatives, longest };
}

/** Whether a term may gain synonyms: a word as typed (not quoted, not already given alternatives). */
const plainWord = (term: SearchTerm): boolean =>
  term.words.length === 1 && term.exact !== true && (term.alternatives?.length ?? 0) === 0;

/**
 * A clause's terms with synonyms: from left to right, the longest run of plain words the list
 * names becomes one term, its words (several: `loose`, each found anywhere as before) with the
 * other spellings as alternatives; words the list does not name stay as they are. Exclusions stay
 * as typed.
 */
function clauseWithSynonyms(clause: SearchClause, rules: SynonymRules): SearchClause {
  const must: SearchTerm[] = [];
  const terms = clause.must;
  for (let i = 0; i < terms.length;) {
    let found: { length: number; alternatives: readonly (readonly string[])[] } | null = null;
    for (let length = Math.min(rules.longest, terms.length - i); length >= 1 && found === null; length--) {
      const run = terms.slice(i, i + length);
      if (!run.every(plainWord)) continue;
      const known = rules.alternatives.get(keyOf(run.map((term) => lower(term.words[0]))));
      if (known !== undefined) found = { length, alternatives: known };
    }
    if (found === null) {
      must.push(terms[i]);
      i++;
      continue;
    }
    const words = terms.slice(i, i + found.length).map((term) => term.words[0]);
    const alternatives = found.alternatives
      .slice(0, MAX_SYNONYM_ALTERNATIVES)
      .map((alternative) => ({ words: [...alternative], typos: 0 }));
    // The words as typed are still found as they were apart (anywhere, in any order): results only grow.
    must.push(words.length > 1 ? { words, loose: true, alternatives } : { words, alternatives });
    i += found.length;
  }
  return { must, not: clause.not };
}

/**
 * The search with the list's synonyms as its terms' alternatives (the search itself when the list names none of its
 * words).
 */
export function withSynonyms(search: ParsedSearch, rules: SynonymRules): ParsedSearch {
  if (rules.longest === 0) return search;
  return { clauses: search.clauses.map((clause) => clauseWithSynonyms(clause, rules)) };
}
