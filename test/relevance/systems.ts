// The search systems the relevance bench compares, each loaded with the same corpus:
// - the embedded engine and the Elasticsearch engine, asked through the API's own search path
//   (the GET /grants query string, parsed and validated into a GrantQuery, then the engine's
//   searchJson), so a matching mode is just more query parameters;
// - stock Elasticsearch: an index of its own with the `english` analyzer (stemming) on title,
//   funder and description, asked with a `multi_match` over title^3, funder^2 and description,
//   operator OR: the baseline a team would get from Elasticsearch out of the box.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@elastic/elasticsearch';
import type { Grant } from '../../src/grants/schema.js';
import { parseGrantQuery } from '../../src/http/parameters/grantSearchParams.js';
import { parseQueryString } from '../../src/http/parameters/queryParams.js';
import type { CatalogWriter, SearchEngine } from '../../src/search/engine.js';
import type { EsConfig } from '../../src/search/elasticsearch/client.js';
import { ElasticsearchSearchEngine } from '../../src/search/elasticsearch/engine.js';
import { ElasticsearchCatalogWriter } from '../../src/search/elasticsearch/writer.js';
import { SqliteSearchEngine } from '../../src/search/sqlite/runtime/engine.js';
import { catalogPath } from '../../src/search/sqlite/storage/catalogFile.js';
import { SqliteCatalogWriter } from '../../src/search/sqlite/storage/writer.js';
import { CUTOFF, type QueryAnswer } from './metrics.js';
import { loadSynonyms, synonymEngine } from '../../src/search/synonymSearch.js';
import { repoPath } from '../../src/repoRoot.js';
import type { MatchingMode } from './modes.js';

export interface SearchSystem {
  /** The name in the report and in the floor file: embedded, elasticsearch, stock-elasticsearch. */
  readonly name: string;
  /** False for the baseline, which has no matching modes (it is asked once, as it comes). */
  readonly hasModes: boolean;
  answer(search: string, mode: MatchingMode): Promise<QueryAnswer>;
  close(): Promise<void>;
}

/** The GET /grants query string of one judged search in one mode: the first page of ids. */
export function searchParameters(search: string, mode: MatchingMode): string {
  const base = new URLSearchParams({ search, limit: String(CUTOFF), fields: 'id' }).toString();
  return mode.params === '' ? base : `${base}&${mode.params}`;
}

/** One search through the API's path: parameters parsed and validated as a request's, then the engine. */
/** The synonym list the API ships (mappings/synonyms.txt), applied as the API applies it (src/deps.ts). */
const SHIPPED_SYNONYMS = loadSynonyms(repoPath('mappings/synonyms.txt'));

export async function answerThroughApi(engine: SearchEngine, search: string, mode: MatchingMode): Promise<QueryAnswer> {
  const query = parseGrantQuery(parseQueryString(searchParameters(search, mode)), Date.now());
  const result = await engine.searchJson(query);
  return { ranked: result.grantsJson.map((json) => (JSON.parse(json) as { id: string }).id), total: result.total };
}

async function reindex(writer: CatalogWriter, grants: readonly Grant[]): Promise<void> {
  try {
    await writer.reindex(
      (async function* () {
        yield* grants;
      })(),
    );
  } finally {
    await writer.close();
  }
}

/** The embedded engine over a catalog of `grants` built in a temporary directory (removed by close). */
export async function embeddedSystem(grants: readonly Grant[]): Promise<SearchSystem> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'grants-relevance-'));
  try {
    const file = catalogPath(dir);
    await reindex(SqliteCatalogWriter.open(file), grants);
    const engine = synonymEngine(SqliteSearchEngine.open(file), SHIPPED_SYNONYMS);
    return {
      name: 'embedded',
      hasModes: true,
      answer: (search, mode) => answerThroughApi(engine, search, mode),
      close: async () => {
        await engine.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

const uniqueName = (prefix: string): string => `${prefix}-${randomBytes(5).toString('hex')}`;

/** The Elasticsearch engine over `grants` indexed by the real writer behind an alias of its own (deleted by close). */
export async function elasticsearchSystem(url: string, grants: readonly Grant[]): Promise<SearchSystem> {
  const config: EsConfig = { url, index: uniqueName('relevance'), requestTimeoutMs: 30_000 };
  const drop = async (): Promise<void> => {
    const client = new Client({ node: url });
    try {
      await client.indices.delete({ index: `${config.index}-*`, ignore_unavailable: true, allow_no_indices: true });
      await client.indices.delete({ index: `${config.index}_changes`, ignore_unavailable: true });
    } finally {
      await client.close();
    }
  };
  try {
    await reindex(ElasticsearchCatalogWriter.open(config, {}, { keep: 1, replicas: 0 }), grants);
  } catch (error) {
    await drop();
    throw error;
  }
  const engine = synonymEngine(ElasticsearchSearchEngine.open(config), SHIPPED_SYNONYMS);
  return {
    name: 'elasticsearch',
    hasModes: true,
    answer: (search, mode) => answerThroughApi(engine, search, mode),
    close: async () => {
      await engine.close();
      await drop();
    },
  };
}

/**
 * The index of the baseline: Elasticsearch's `english` analyzer on the three text fields, written
 * out as Elasticsearch documents it ("rebuilt english analyzer": standard tokenizer, possessive
 * stemmer, lowercase, English stop words, Porter stemmer) so that it also runs on a node without
 * the analysis-common module (the integ-test distribution, with our grants-analysis plugin), and
 * gives the same tokens as the built-in one.
 */
export const BASELINE_INDEX = {
  settings: {
    number_of_shards: 1,
    number_of_replicas: 0,
    analysis: {
      filter: {
        english_stop: { type: 'stop', stopwords: '_english_' },
        english_stemmer: { type: 'stemmer', language: 'english' },
        english_possessive_stemmer: { type: 'stemmer', language: 'possessive_english' },
      },
      analyzer: {
        rebuilt_english: {
          type: 'custom',
          tokenizer: 'standard',
          filter: ['english_possessive_stemmer', 'lowercase', 'english_stop', 'english_stemmer'],
        },
      },
    },
  },
  mappings: {
    dynamic: false,
    properties: {
      title: { type: 'text', analyzer: 'rebuilt_english' },
      funder: { type: 'text', analyzer: 'rebuilt_english' },
      description: { type: 'text', analyzer: 'rebuilt_english' },
    },
  },
} as const;

/** The baseline's query: the search text as typed, over the three fields, any word matching. */
export const baselineQuery = (search: string): Record<string, unknown> => ({
  multi_match: { query: search, fields: ['title^3', 'funder^2', 'description'], operator: 'or' },
});

/** Stock Elasticsearch over `grants` in an index of its own (deleted by close). */
export async function stockElasticsearchSystem(url: string, grants: readonly Grant[]): Promise<SearchSystem> {
  const client = new Client({ node: url, requestTimeout: 60_000 });
  const index = uniqueName('relevance-baseline');
  try {
    await client.indices.create({ index, ...BASELINE_INDEX } as never);
    const operations = grants.flatMap((g) => [
      { index: { _index: index, _id: g.id } },
      { title: g.title, funder: g.funder, description: g.description },
    ]);
    const bulk = await client.bulk({ operations, refresh: true });
    if (bulk.errors)
      throw new Error(
        `indexing the baseline failed: ${JSON.stringify(bulk.items.find((item) => item.index?.error)?.index?.error)}`,
      );
  } catch (error) {
    await client.indices.delete({ index, ignore_unavailable: true });
    await client.close();
    throw error;
  }
  return {
    name: 'stock-elasticsearch',
    hasModes: false,
    answer: async (search) => {
      const response = await client.search({
        index,
        query: baselineQuery(search) as never,
        size: CUTOFF,
        _source: false,
        track_total_hits: true,
      });
      const total = response.hits.total;
      return {
        ranked: response.hits.hits.map((hit) => hit._id as string),
        total: typeof total === 'number' ? total : (total?.value ?? 0),
      };
    },
    close: async () => {
      try {
        await client.indices.delete({ index, ignore_unavailable: true });
      } finally {
        await client.close();
      }
    },
  };
}
