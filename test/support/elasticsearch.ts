// Test support for suites that need a real Elasticsearch: skip outside CI when ELASTICSEARCH_URL
// is unset (saying why); in CI, fail instead of skipping. Each suite uses its own alias.
import { randomBytes } from 'node:crypto';
import { Client } from '@elastic/elasticsearch';
import type { Grant } from '../../src/grants/schema.js';
import type { EsConfig } from '../../src/search/elasticsearch/client.js';
import { ElasticsearchCatalogWriter } from '../../src/search/elasticsearch/writer.js';
import { reindexGrants } from './catalog.js';

export const ES_URL = process.env.ELASTICSEARCH_URL;
const IN_CI = process.env.CI === 'true' || process.env.CI === '1';

/** describe() for a suite that needs Elasticsearch. */
export function describeWithElasticsearch(title: string, body: (this: Mocha.Suite) => void): void {
  if (ES_URL) {
    describe(`${title} [elasticsearch]`, body);
    return;
  }
  if (IN_CI) {
    describe(`${title} [elasticsearch]`, () => {
      it('needs ELASTICSEARCH_URL, which CI must set (.ci/run starts Elasticsearch)', () => {
        throw new Error('ELASTICSEARCH_URL is not set in CI: the Elasticsearch suites must run there');
      });
    });
    return;
  }
  describe(`${title} [elasticsearch]`, () => {
    before(function () {
      process.stderr.write(`  skipped "${title}": ELASTICSEARCH_URL is not set (npm run services:start, then export it)\n`);
      this.skip();
    });
    it('needs a real Elasticsearch', () => {});
  });
}

/** A fresh alias name for one suite; its indexes are named `<alias>-<timestamp>-<hex>`. */
export const uniqueAlias = (): string => `test-${randomBytes(5).toString('hex')}`;

export function testClient(): Client {
  return new Client({ node: ES_URL as string, requestTimeout: 60_000 });
}

/** Deletes every index of an alias made by a test, and its change log index. */
export async function dropAlias(alias: string): Promise<void> {
  const client = testClient();
  try {
    await client.indices.delete({ index: `${alias}-*`, ignore_unavailable: true, allow_no_indices: true });
    await client.indices.delete({ index: `${alias}_changes`, ignore_unavailable: true });
  } finally {
    await client.close();
  }
}

/** Builds a new index of the grants behind the config's alias (one replica-less index kept) and swaps it in. */
export async function reindexAlias(config: EsConfig, grants: readonly Grant[]): Promise<void> {
  const writer = ElasticsearchCatalogWriter.open(config, {}, { keep: 1, replicas: 0 });
  try {
    await reindexGrants(writer, grants);
  } finally {
    await writer.close();
  }
}
