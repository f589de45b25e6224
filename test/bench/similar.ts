// What GET /grants/:id/similar costs (src/search/similarSearch.ts): generated grants of realistic
// text on each engine, the similar grants of sampled grants asked one at a time, in process (the
// engine as the API holds it; no HTTP), with and without a filter. Not a test (a figure on a shared
// machine): `npm run build && ELASTICSEARCH_URL=… node dist/test/bench/similar.js [--grants 10000,100000] [--engines
// sqlite,elasticsearch]`.
import { rmSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { parseSimilarQuery } from '../../src/http/parameters/grantSearchParams.js';
import { parseQueryString } from '../../src/http/parameters/queryParams.js';
import { similarGrants } from '../../src/search/similarSearch.js';
import { startTestApi, tempDir } from '../support/api.js';
import { dropAlias, uniqueAlias } from '../support/elasticsearch.js';
import { writeCatalog } from './catalog.js';

const { values: options } = parseArgs({
  options: {
    grants: { type: 'string', default: '10000,100000' },
    engines: { type: 'string', default: 'sqlite,elasticsearch' },
    asks: { type: 'string', default: '60' },
  },
});
const sizes = options.grants.split(',').map(Number);
const engines = options.engines.split(',');
const asks = Number(options.asks);
const QUERIES = ['limit=10', 'limit=10&open=true&eligibleProvinces=ONTARIO'];

const quantile = (sorted: number[], q: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

const dir = tempDir('similar-bench-');
try {
  for (const size of sizes) {
    const source = path.join(dir, `grants-${size}.ndjson`);
    const generated = await writeCatalog(source, size, 7, 'realistic');
    const ids = generated.sample.ids.slice(0, asks);
    for (const engine of engines) {
      const alias = uniqueAlias();
      const started = Date.now();
      const env: Record<string, string> =
        engine === 'elasticsearch'
          ? {
              SEED_FILE: source,
              SEARCH_ENGINE: 'elasticsearch',
              ELASTICSEARCH_URL: process.env.ELASTICSEARCH_URL ?? 'http://127.0.0.1:9200',
              ELASTICSEARCH_INDEX: alias,
            }
          : { SEED_FILE: source };
      const api = await startTestApi(env);
      try {
        const ready = (Date.now() - started) / 1000;
        const query = (text: string) => parseSimilarQuery(parseQueryString(text), Date.now());
        // The engine's index of the new catalog read, and every path compiled, before the figures.
        for (let warm = 0; warm < 5; warm++) {
          const found = await similarGrants(api.deps.engine, ids[warm % ids.length], query(QUERIES[0]));
          if ((found?.total ?? 0) === 0) await new Promise((resolve) => setTimeout(resolve, 2000));
        }
        for (const text of QUERIES) {
          const times: number[] = [];
          let listed = 0;
          const cpu0 = process.cpuUsage();
          for (const id of ids) {
            const t0 = performance.now();
            const found = await similarGrants(api.deps.engine, id, query(text));
            times.push(performance.now() - t0);
            if ((found?.grantsJson.length ?? 0) > 0) listed++;
          }
          const cpu = process.cpuUsage(cpu0);
          times.sort((a, b) => a - b);
          console.log(
            `${engine} ${size.toLocaleString('en-US')} grants (ready in ${ready.toFixed(0)} s), ${text}: ` +
              `${ids.length} asks one at a time, ` +
              (`p50 ${quantile(times, 0.5).toFixed(1)} ms, p95 ${quantile(times, 0.95).toFixed(1)} ms, max ` +
                `${times.at(-1)!.toFixed(1)} ms; `) +
              (`${((cpu.user + cpu.system) / 1000 / ids.length).toFixed(1)} ms of this process's CPU an ask; ` +
                `${listed} with a list`),
          );
        }
      } finally {
        await api.stop();
        if (engine === 'elasticsearch') await dropAlias(alias);
      }
    }
    rmSync(source, { force: true });
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
