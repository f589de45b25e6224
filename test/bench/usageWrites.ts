// Usage rows per second through each store's writer (batched), printed, not asserted:
//
//   node dist/test/bench/usageWrites.js [--rows N] [--store sqlite|postgres|both]
//
// PostgreSQL: TEST_POSTGRES_URL's server (default postgres://postgres@127.0.0.1:5432/postgres);
// a database grants_bench_<random> is created for the run and dropped after.
import { rmSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createLogger } from '../../src/log.js';
import { openPgStore } from '../../src/subscriptions/postgres/store.js';
import { openSqliteStore } from '../../src/subscriptions/sqlite/store.js';
import type { SubscriptionsStore, UsageRow } from '../../src/subscriptions/port.js';
import { tempDir } from '../support/api.js';
import { createTestDatabase } from '../support/postgres.js';

const ENDPOINTS = ['/grants', '/grants/:id', '/grants/filters', '/subscription/usage'];

function rowsOf(count: number): UsageRow[] {
  const at = new Date();
  return Array.from({ length: count }, (_, i) => ({
    at,
    subscriptionId: `sub_${i % 50}`,
    keyId: `key_${i % 50}`,
    keyPrefix: 'gk_bench',
    endpoint: ENDPOINTS[i % ENDPOINTS.length],
    billable: i % 4 !== 3,
    status: i % 20 === 0 ? 429 : 200,
    latencyMs: 1.25,
    requestId: `req-${i}`,
  }));
}

async function measure(name: string, store: SubscriptionsStore, rows: UsageRow[]): Promise<void> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (const row of rows) void store.usage.record(row);
  await store.usage.flush();
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  const perRow = (used.user + used.system) / rows.length;
  process.stdout.write(
    `${name.padEnd(10)} ${rows.length} rows in ${seconds.toFixed(2)} s = ` +
      `${Math.round(rows.length / seconds).toLocaleString('en')} rows/s, ` +
      (`${perRow.toFixed(1)} µs CPU/row in this process (load average ` +
        `${(await import('node:os')).loadavg()[0].toFixed(2)})\n`),
  );
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { rows: { type: 'string', default: '100000' }, store: { type: 'string', default: 'both' } },
  });
  const count = Number(values.rows);
  const log = createLogger('silent');
  if (values.store !== 'postgres') {
    const dir = tempDir('bench-usage');
    const store = openSqliteStore(dir, { log, retentionDays: 400 });
    try {
      await measure('sqlite', store, rowsOf(count));
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }
  if (values.store !== 'sqlite') {
    const database = await createTestDatabase('bench');
    const store = await openPgStore(database.url, { log, retentionDays: 400, listen: false });
    try {
      await measure('postgres', store, rowsOf(count));
    } finally {
      await store.close();
      await database.drop();
    }
  }
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).message}\n`);
  process.exit(1);
});
