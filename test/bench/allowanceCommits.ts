// The exact monthly allowance under concurrency, through each store (printed, not asserted):
// C callers each asking for one call after another for D seconds. Group commit sends the asks of
// one event-loop turn in one statement; on PostgreSQL the transactions the server committed
// (pg_stat_database.xact_commit) per ask show what that saves.
//
//   node dist/test/bench/allowanceCommits.js [--callers 50] [--seconds 5] [--store sqlite|postgres|both]
import { rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { createLogger } from '../../src/log.js';
import { openPgStore } from '../../src/subscriptions/postgres/store.js';
import { openSqliteStore } from '../../src/subscriptions/sqlite/store.js';
import type { SubscriptionsStore } from '../../src/subscriptions/port.js';
import { tempDir } from '../support/api.js';
import { createTestDatabase } from '../support/postgres.js';

const MONTH = new Date().toISOString().slice(0, 7);

async function drive(
  store: SubscriptionsStore,
  callers: number,
  seconds: number,
): Promise<{ asks: number; seconds: number; cpuUs: number }> {
  const until = performance.now() + seconds * 1000;
  const cpu = process.cpuUsage();
  const started = performance.now();
  let asks = 0;
  await Promise.all(
    Array.from({ length: callers }, async (_, i) => {
      while (performance.now() < until) {
        await store.allowance.tryConsume(`sub_${i % 10}`, MONTH, 1_000_000_000);
        asks += 1;
      }
    }),
  );
  const used = process.cpuUsage(cpu);
  return { asks, seconds: (performance.now() - started) / 1000, cpuUs: used.user + used.system };
}

const line = (name: string, r: { asks: number; seconds: number; cpuUs: number }, extra = '') =>
  process.stdout.write(
    `${name.padEnd(10)} ${Math.round(r.asks / r.seconds).toLocaleString('en')} asks/s, ` +
      `${(r.cpuUs / r.asks).toFixed(1)} µs CPU/ask in this process${extra} (load average ` +
      `${loadavg()[0].toFixed(2)})\n`,
  );

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      callers: { type: 'string', default: '50' },
      seconds: { type: 'string', default: '5' },
      store: { type: 'string', default: 'both' },
    },
  });
  const callers = Number(values.callers);
  const seconds = Number(values.seconds);
  const log = createLogger('silent');
  process.stdout.write(`${callers} concurrent callers, ${seconds} s, 10 subscriptions\n`);
  if (values.store !== 'postgres') {
    const dir = tempDir('bench-allowance');
    const store = openSqliteStore(dir, { log, retentionDays: 400 });
    try {
      line('sqlite', await drive(store, callers, seconds));
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }
  if (values.store !== 'sqlite') {
    const database = await createTestDatabase('bench');
    const store = await openPgStore(database.url, { log, retentionDays: 400, listen: false });
    const stats = new pg.Client({ connectionString: database.url });
    await stats.connect();
    const commits = async () => {
      await stats.query('SELECT pg_stat_clear_snapshot()');
      return Number(
        (await stats.query('SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()')).rows[0]
          .xact_commit,
      );
    };
    try {
      const before = await commits();
      const result = await drive(store, callers, seconds);
      // The statistics collector reports with a delay of up to a second.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const transactions = (await commits()) - before;
      line(
        'postgres',
        result,
        `, ${transactions.toLocaleString('en')} transactions for ${result.asks.toLocaleString('en')} asks = ` +
          `${(result.asks / Math.max(1, transactions)).toFixed(1)} asks per transaction`,
      );
    } finally {
      await stats.end();
      await store.close();
      await database.drop();
    }
  }
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).message}\n`);
  process.exit(1);
});
