// The monthly allowance counter with group commit: the asks of one event-loop turn are checked and
// counted in one transaction. Still exact: never over the limit, in order, every admitted call in
// the database before its promise resolves, across two connections to one file, and a failed
// commit counts nothing and fails every ask of its turn.
import { expect } from 'chai';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { ServiceUnavailableError } from '../../src/failures.js';
import { SqliteAllowanceCounter } from '../../src/subscriptions/sqlite/allowanceCounter.js';
import { openSubscriptionsDb, type Db } from '../../src/subscriptions/sqlite/database.js';
import { tempDir } from '../support/api.js';

const MONTH = '2026-11';

describe('unit: SqliteAllowanceCounter (group commit)', () => {
  let dir: string;
  let file: string;
  let db: Db;
  let counter: SqliteAllowanceCounter;
  const stored = (subscriptionId: string, handle: Db = db) =>
    (handle
      .prepare('SELECT calls FROM monthly_usage WHERE subscription_id = ? AND month = ?')
      .pluck()
      .get(subscriptionId, MONTH) as number | undefined) ?? 0;

  beforeEach(() => {
    dir = tempDir('allowance');
    file = path.join(dir, 'subscriptions.sqlite');
    db = openSubscriptionsDb(file);
    counter = new SqliteAllowanceCounter(db);
  });
  afterEach(() => {
    if (db.open) db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('30 asks in one turn against the last 10 calls: the first 10 in order are admitted with calls 91…100, the rest refused at 100', async () => {
    db.prepare('INSERT INTO monthly_usage (subscription_id, month, calls) VALUES (?, ?, ?)').run('sub_a', MONTH, 90);
    const results = await Promise.all(Array.from({ length: 30 }, () => counter.tryConsume('sub_a', MONTH, 100)));
    expect(results.slice(0, 10)).to.deep.equal(
      Array.from({ length: 10 }, (_, i) => ({ allowed: true, calls: 91 + i })),
    );
    expect(results.slice(10)).to.deep.equal(Array.from({ length: 20 }, () => ({ allowed: false, calls: 100 })));
    expect(stored('sub_a')).to.equal(100);
  });

  it('asks of several subscriptions and limits in one turn are counted apart; a first call creates the row', async () => {
    const results = await Promise.all([
      counter.tryConsume('sub_a', MONTH, 2),
      counter.tryConsume('sub_b', MONTH, 5),
      counter.tryConsume('sub_a', MONTH, 2),
      counter.tryConsume('sub_a', MONTH, 2),
    ]);
    expect(results).to.deep.equal([
      { allowed: true, calls: 1 },
      { allowed: true, calls: 1 },
      { allowed: true, calls: 2 },
      { allowed: false, calls: 2 },
    ]);
    expect(stored('sub_a')).to.equal(2);
    expect(stored('sub_b')).to.equal(1);
  });

  it('an admitted call is in the database when its promise resolves (read through another connection)', async () => {
    const other = openSubscriptionsDb(file);
    try {
      for (let i = 1; i <= 5; i += 1) {
        const admission = await counter.tryConsume('sub_a', MONTH, 1000);
        expect(admission).to.deep.equal({ allowed: true, calls: i });
        expect(stored('sub_a', other)).to.equal(i);
      }
    } finally {
      other.close();
    }
  });

  it('two connections to one file asking in the same turn against the last 10 calls: exactly 10 admitted', async () => {
    const otherDb = openSubscriptionsDb(file);
    try {
      const other = new SqliteAllowanceCounter(otherDb);
      db.prepare('INSERT INTO monthly_usage (subscription_id, month, calls) VALUES (?, ?, ?)').run('sub_a', MONTH, 40);
      const asks = Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? counter : other).tryConsume('sub_a', MONTH, 50));
      const results = await Promise.all(asks);
      expect(results.filter((r) => r.allowed)).to.have.length(10);
      const admittedCalls = results.filter((r) => r.allowed).map((r) => r.calls);
      expect([...admittedCalls].sort((x, y) => x - y)).to.deep.equal(Array.from({ length: 10 }, (_, i) => 41 + i));
      expect(stored('sub_a')).to.equal(50);
    } finally {
      otherDb.close();
    }
  });

  it('recordServed counts without a limit and resolves with the committed count', async () => {
    db.prepare('INSERT INTO monthly_usage (subscription_id, month, calls) VALUES (?, ?, ?)').run('sub_a', MONTH, 7);
    expect(
      await Promise.all([counter.recordServed('sub_a', MONTH), counter.recordServed('sub_a', MONTH)]),
    ).to.deep.equal([8, 9]);
    expect(stored('sub_a')).to.equal(9);
  });

  it('a commit that fails rejects every ask of its turn and counts nothing; the next turn works again', async () => {
    db.exec(`CREATE TRIGGER refuse BEFORE UPDATE ON monthly_usage BEGIN SELECT RAISE(ABORT, 'disk says no'); END`);
    db.prepare('INSERT INTO monthly_usage (subscription_id, month, calls) VALUES (?, ?, ?)').run('sub_a', MONTH, 3);
    const outcomes = await Promise.allSettled([
      counter.tryConsume('sub_a', MONTH, 100),
      counter.tryConsume('sub_b', MONTH, 100),
    ]);
    expect(outcomes.map((o) => o.status)).to.deep.equal(['rejected', 'rejected']);
    expect(stored('sub_a')).to.equal(3);
    expect(stored('sub_b')).to.equal(0);
    db.exec('DROP TRIGGER refuse');
    expect(await counter.tryConsume('sub_a', MONTH, 100)).to.deep.equal({ allowed: true, calls: 4 });
  });

  it('a write lock held elsewhere past busy_timeout: every ask of the turn fails as a 503 (ServiceUnavailableError), nothing counted', async () => {
    const blocker = openSubscriptionsDb(file);
    try {
      db.pragma('busy_timeout = 50');
      blocker.exec('BEGIN IMMEDIATE');
      const outcomes = await Promise.allSettled([
        counter.tryConsume('sub_a', MONTH, 100),
        counter.tryConsume('sub_b', MONTH, 100),
      ]);
      expect(outcomes.map((o) => o.status)).to.deep.equal(['rejected', 'rejected']);
      for (const o of outcomes) expect((o as PromiseRejectedResult).reason).to.be.instanceOf(ServiceUnavailableError);
      blocker.exec('ROLLBACK');
      expect(stored('sub_a')).to.equal(0);
      expect(await counter.tryConsume('sub_a', MONTH, 100)).to.deep.equal({ allowed: true, calls: 1 });
    } finally {
      blocker.close();
    }
  });

  it('close() commits what the turn asked for before the database closes', async () => {
    const pending = counter.tryConsume('sub_a', MONTH, 10);
    counter.close();
    db.close();
    expect(await pending).to.deep.equal({ allowed: true, calls: 1 });
    const reopened = openSubscriptionsDb(file);
    try {
      expect(stored('sub_a', reopened)).to.equal(1);
    } finally {
      reopened.close();
    }
  });
});
