// The operator's synonyms around every search, the same on every engine: the synonyms file read
// once at start-up (SYNONYMS_FILE), and a query's search given the other spellings as its terms'
// alternatives before any engine sees it (grants/synonyms.ts), unless the query says synonyms=false.
import { readFileSync } from 'node:fs';
import type { GrantConditions } from '../grants/matching.js';
import type { GrantQuery } from '../grants/query.js';
import { parseSynonyms, SynonymsFileError, withSynonyms, type SynonymRules } from '../grants/synonyms.js';
import type { SearchEngine } from './engine.js';

/** A synonyms file that cannot be used: what start-up says, naming the file and the line. */
export class SynonymsUnusableError extends Error {
  constructor(
    readonly file: string,
    readonly reason: string,
  ) {
    super(`SYNONYMS_FILE ${file}: ${reason}`);
    this.name = 'SynonymsUnusableError';
  }
}

const READ_PROBLEMS: Record<string, string> = {
  ENOENT: 'no such file',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EISDIR: 'it is a folder',
};

/** The rules of the synonyms file; throws SynonymsUnusableError when it cannot be read or a line is invalid. */
export function loadSynonyms(file: string): SynonymRules {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw new SynonymsUnusableError(
      file,
      `cannot be read (${(typeof code === 'string' && READ_PROBLEMS[code]) || 'unreadable'})`,
    );
  }
  try {
    return parseSynonyms(text);
  } catch (error) {
    if (error instanceof SynonymsFileError) throw new SynonymsUnusableError(file, error.message);
    throw error;
  }
}

/** The conditions with their search given the synonyms (unless they say synonyms=false). */
export function withSynonymsApplied<Q extends Pick<GrantConditions, 'search' | 'synonyms'>>(
  query: Q,
  rules: SynonymRules,
): Q {
  if (query.search === null || query.synonyms === false) return query;
  const search = withSynonyms(query.search, rules);
  return search === query.search ? query : { ...query, search };
}

/**
 * The engine with the synonyms applied to every search and export it runs; every other operation
 * is the engine's own (a proxy, so an operation added to the port passes through unchanged).
 */
export function synonymEngine(engine: SearchEngine, rules: SynonymRules): SearchEngine {
  const searchJson: SearchEngine['searchJson'] = (query: GrantQuery) =>
    engine.searchJson(withSynonymsApplied(query, rules));
  const exportJson: SearchEngine['exportJson'] = (query: GrantQuery) =>
    engine.exportJson(withSynonymsApplied(query, rules));
  return new Proxy(engine, {
    get(target, property) {
      if (property === 'searchJson') return searchJson;
      if (property === 'exportJson') return exportJson;
      const value: unknown = Reflect.get(target, property);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
