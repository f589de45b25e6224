// The SQLite store's one write transaction per event-loop turn (src/subscriptions/sqlite/groupCommit.ts):
// the calls admitted and the usage rows logged during a turn are committed together, before any
// of their promises resolve; when the commit fails, every ask of the turn fails (nothing counted)
// and the turn's rows wait in memory for the next attempt, their requests not held back.
import { expect } from 'chai';
import Database from 'better-sqlite3';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { ServiceUnavailableError } from '../../src/failures.js';
import { createLogger } from '../../src/log.js';
import { SqliteAllowanceCounter } from '../../src/subscriptions/sqlite/allowanceCounter.js';
import { openSubscriptionsDb, type Db } from '../../src/subscriptions/sqlite/database.js';
import type { UsageRow } from '../../src/subscriptions/port.js';
import { UsageStore } from '../../src/subscriptions/sqlite/usageStore.js';
import { SqliteGroupCommit } from '../../src/subscriptions/sqlite/groupCommit.js';
import { tempDir } from '../support/api.js';

const MONTH = new Date().toISOString().slice(0, 7);
const row = (i: number): UsageRow => ({
  at: new Date(),
  subscriptionId: 'sub_w',
  keyId: 'key_w',
  keyPrefix: 'gk_live_w',
  endpoint: '/grants/:id',
  billable: true,
  status: 200,
  latencyMs: 1,
  requestId: `req_${i}`,
});

describe('unit: SqliteGroupCommit (admissions and usage rows in one transaction per turn)', () => {
  let dir: string;
  let db: Db;
  let other: Database.Database;
  let writes: SqliteGroupCommit;
  let counter: SqliteAllowanceCounter;
  let usage: UsageStore;
  const logged = (handle: Database.Database) =>
    handle.prepare('SELECT count(*) FROM usage_log').pluck().get() as number;
  const counted = (handle: Database.Database) =>
    (handle.prepare('SELECT coalesce(sum(calls), 0) FROM monthly_usage').pluck().get() as number) ?? 0;

  beforeEach(() => {
    dir = tempDir('group-commit');
    const file = path.join(dir, 'subscriptions.sqlite');
    db = openSubscriptionsDb(file);
    db.pragma('busy_timeout = 50');
    other = new Database(file);
    writes = new SqliteGroupCommit(db);
    counter = new SqliteAllowanceCounter(db, writes);
    usage = new UsageStore(db, createLogger('silent'), () => {}, writes);
  });
  afterEach(() => {
    other.close();
    if (db.open) db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a turn of asks and rows: committed together, and each promise resolves only once another connection can read its write', async () => {
    const seenAtResolve: number[][] = [];
    const asks = Array.from({ length: 5 }, () =>
      counter.tryConsume('sub_w', MONTH, 100).then(() => seenAtResolve.push([counted(other), logged(other)])),
    );
    const rows = Array.from({ length: 7 }, (_, i) =>
      Promise.resolve(usage.record(row(i))).then(() => seenAtResolve.push([counted(other), logged(other)])),
    );
    expect(usage.pending).to.equal(7);
    expect([counted(other), logged(other)], 'nothing written before the turn ends').to.deep.equal([0, 0]);
    await Promise.all([...asks, ...rows]);
    expect(seenAtResolve).to.have.length(12);
    for (const seen of seenAtResolve) expect(seen).to.deep.equal([5, 7]);
    expect(usage.pending).to.equal(0);
  });

  it('a failed commit (the file locked by another connection): the asks fail with 503 and count nothing, the rows are kept and written by the next attempt', async () => {
    other.prepare('BEGIN IMMEDIATE').run();
    const ask = counter.tryConsume('sub_w', MONTH, 100).then(
      () => null,
      (error: unknown) => error,
    );
    const written = usage.record(row(1));
    expect(await ask).to.be.instanceOf(ServiceUnavailableError);
    await written; // released although not written: the answer is not held back by a failing log
    expect(usage.pending).to.equal(1);
    other.prepare('COMMIT').run();
    expect([counted(other), logged(other)]).to.deep.equal([0, 0]);
    usage.flush();
    expect(usage.pending).to.equal(0);
    expect([counted(other), logged(other)]).to.deep.equal([0, 1]);
  });
});
