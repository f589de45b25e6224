// The judged query set and the real-program corpus it judges (fixtures/real-programs), read and
// checked: every judged id is a record of the corpus, every record a valid grant.
import { readFileSync } from 'node:fs';
import { repoPath } from '../../src/repoRoot.js';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { validateGrant, type Grant } from '../../src/grants/schema.js';

export const REAL_PROGRAMS_DIR = repoPath('fixtures/real-programs');
export const JUDGMENTS_FILE = path.join(REAL_PROGRAMS_DIR, 'judgments.json');
/**
 * The corpus the engines index: the records with the Canadian French appended to the English
 * description. RELEVANCE_CORPUS (a file name in fixtures/real-programs, or a path) chooses
 * another, e.g. programs-bilingual.ndjson.gz for an engine with French fields.
 */
export const DEFAULT_CORPUS = 'programs.ndjson.gz';

/** The classes of the set, in the order the report lists them. */
export const QUERY_CLASSES = ['plain', 'natural', 'typo', 'french', 'acronym', 'funder', 'phrase'] as const;
export type QueryClass = (typeof QUERY_CLASSES)[number];

export interface JudgedQuery {
  id: string;
  class: QueryClass;
  /** The `search` parameter, as a person types it. */
  search: string;
  /** The ids judged clearly relevant. */
  relevant: ReadonlySet<string>;
  /** A typo query: the id of the query it misspells (same judged ids). */
  typoOf?: string;
}

/** The corpus file RELEVANCE_CORPUS names (a bare name is looked up in fixtures/real-programs). */
export function corpusFile(env: NodeJS.ProcessEnv = process.env): string {
  const named = env.RELEVANCE_CORPUS?.trim() || DEFAULT_CORPUS;
  return named.includes(path.sep) ? path.resolve(named) : path.join(REAL_PROGRAMS_DIR, named);
}

/** Every record of a gzipped NDJSON corpus as a valid grant; throws naming the first record that is not. */
export function loadCorpus(file: string): Grant[] {
  const lines = gunzipSync(readFileSync(file)).toString('utf8').split('\n');
  const grants: Grant[] = [];
  lines.forEach((line, index) => {
    if (line.trim() === '') return;
    const result = validateGrant(JSON.parse(line));
    if (!result.ok) {
      throw new Error(
        `${path.basename(file)} line ${index + 1} is not a valid grant: ` +
          `${result.problems.map((p) => `${p.field} ${p.reason}`).join('; ')}`,
      );
    }
    grants.push(result.grant);
  });
  return grants;
}

interface RawQuery {
  id?: unknown;
  class?: unknown;
  search?: unknown;
  relevant?: unknown;
  typoOf?: unknown;
}

/** The judged set, checked against the corpus's ids: throws on an unknown class, id or an empty judgment. */
export function loadJudgments(corpusIds: ReadonlySet<string>, file = JUDGMENTS_FILE): JudgedQuery[] {
  const raw = JSON.parse(readFileSync(file, 'utf8')) as { queries?: RawQuery[] };
  const queries: JudgedQuery[] = [];
  const seen = new Set<string>();
  for (const q of raw.queries ?? []) {
    const where = `judged query ${JSON.stringify(q.id)}`;
    if (typeof q.id !== 'string' || seen.has(q.id)) throw new Error(`${where}: missing or repeated id`);
    seen.add(q.id);
    if (!(QUERY_CLASSES as readonly unknown[]).includes(q.class))
      throw new Error(`${where}: class must be one of ${QUERY_CLASSES.join(', ')}`);
    if (typeof q.search !== 'string' || q.search.trim() === '')
      throw new Error(`${where}: search must be a non-blank string`);
    if (!Array.isArray(q.relevant) || q.relevant.length === 0)
      throw new Error(`${where}: relevant must list at least one id`);
    for (const id of q.relevant)
      if (typeof id !== 'string' || !corpusIds.has(id))
        throw new Error(`${where}: ${JSON.stringify(id)} is not an id of the corpus`);
    queries.push({
      id: q.id,
      class: q.class as QueryClass,
      search: q.search,
      relevant: new Set(q.relevant as string[]),
      ...(typeof q.typoOf === 'string' ? { typoOf: q.typoOf } : {}),
    });
  }
  return queries;
}
