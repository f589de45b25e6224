// The PostgreSQL adapter of the alerts store port, for a fleet (DATABASE_URL): the same tables as
// SQLite's (migration 4 of src/subscriptions/postgres/database.ts), the shared operations of
// ../sqlAlertStore.ts, and what PostgreSQL does its own way (a statement per batch). One instance matches at a time
// (a lease row); every instance delivers, each message claimed by one (FOR UPDATE SKIP LOCKED and
// claimed_until). Signing secrets are stored sealed (src/alerts/secrets.ts).
import { inTransaction, type Pool, type Queryable } from '../../subscriptions/postgres/database.js';
import { PgSteps } from '../../subscriptions/postgres/steps.js';
import { run, type Steps } from '../../subscriptions/sqlSteps.js';
import { newMessageId } from '../model.js';
import type { SecretBox } from '../secrets.js';
import { TOLD_COLUMNS, disabledReason, dueMessageOf, toldOf, type DueRow } from '../rows.js';
import { SqlAlertStore } from '../sqlAlertStore.js';
import type { AttemptRecord, DueMessage, MatchedBatch, NewMessage, ToldGrant } from '../store.js';

export class PgAlertStore extends SqlAlertStore {
  declare protected readonly steps: PgSteps;

  constructor(
    private readonly pool: Pool,
    box: SecretBox,
  ) {
    super(new PgSteps(pool), box);
  }

  protected *insertMessages(messages: readonly NewMessage[], at: string): Steps<string[]> {
    if (messages.length === 0) return [];
    const ids = messages.map(() => newMessageId());
    yield* run(
      `INSERT INTO alert_messages (id, alert_id, grant_id, type, payload, status, attempts, next_attempt_at, created_at)
       SELECT m.id, m.alert_id, m.grant_id, m.type, m.payload, 'PENDING', 0, ?::text, ?::text
       FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[]) WITH ORDINALITY AS m(id, alert_id, grant_id,
         type, payload, n)
       ORDER BY m.n`,
      at,
      at,
      ids,
      messages.map((m) => m.alertId),
      messages.map((m) => m.grantId),
      messages.map((m) => m.type),
      messages.map((m) => m.payload),
    );
    return ids;
  }

  async tryLease(holder: string, ttlMs: number): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `UPDATE alert_matcher SET holder = $1, lease_until = now() + make_interval(secs => $2::double precision / 1000)
       WHERE id = 1 AND (holder IS NULL OR holder = $1 OR lease_until IS NULL OR lease_until < now())`,
      [holder, ttlMs],
    );
    return (rowCount ?? 0) === 1;
  }

  async alertsVersion(): Promise<string> {
    return (
      await this.pool.query(
        `SELECT count(*)::text || ':' || coalesce(max(updated_at)::text, '') AS version FROM alerts`,
      )
    ).rows[0].version as string;
  }

  async told(grantIds: readonly string[]): Promise<ToldGrant[]> {
    if (grantIds.length === 0) return [];
    const { rows } = await this.pool.query(
      `SELECT ${TOLD_COLUMNS} FROM alert_grants WHERE grant_id = ANY($1::text[])`,
      [grantIds],
    );
    return rows.map(toldOf);
  }

  async commitBatch(batch: MatchedBatch, at: Date): Promise<boolean> {
    const now = at.toISOString();
    return inTransaction(this.pool, async (db) => {
      const current = (await db.query('SELECT log, seq FROM alert_matcher WHERE id = 1 FOR UPDATE')).rows[0];
      if (current.log !== batch.from.log || Number(current.seq) !== batch.from.seq) return false;
      const alive = new Set((await db.query('SELECT id FROM alerts')).rows.map((r) => r.id as string));
      await this.steps.run(
        this.insertMessages(
          batch.messages.filter((m) => alive.has(m.alertId)),
          now,
        ),
        db,
      );
      const told = batch.told.filter((t) => alive.has(t.alertId));
      if (told.length > 0) {
        await db.query(
          `INSERT INTO alert_grants (${TOLD_COLUMNS})
           SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[])
           ON CONFLICT (alert_id, grant_id) DO UPDATE SET deadline = excluded.deadline, reminded_deadline =
             excluded.reminded_deadline,
             opens_at = excluded.opens_at, opened_opens_at = excluded.opened_opens_at`,
          [
            told.map((t) => t.alertId),
            told.map((t) => t.grantId),
            told.map((t) => t.deadline),
            told.map((t) => t.remindedDeadline),
            told.map((t) => t.opensAt),
            told.map((t) => t.openedOpensAt),
          ],
        );
      }
      if (batch.forgotten.length > 0) {
        await db.query(
          'DELETE FROM alert_grants g USING unnest($1::text[], $2::text[]) AS f(alert_id, grant_id) WHERE ' +
            'g.alert_id = f.alert_id AND g.grant_id = f.grant_id',
          [batch.forgotten.map((f) => f.alertId), batch.forgotten.map((f) => f.grantId)],
        );
      }
      await db.query('UPDATE alert_matcher SET log = $1, seq = $2, updated_at = $3 WHERE id = 1', [
        batch.position.log,
        batch.position.seq,
        now,
      ]);
      return true;
    });
  }

  async dueReminders(at: Date): Promise<ToldGrant[]> {
    const { rows } = await this.pool.query(
      `SELECT g.alert_id, g.grant_id, g.deadline, g.reminded_deadline, g.opens_at, g.opened_opens_at FROM alert_grants
        g JOIN alerts a ON a.id = g.alert_id
       WHERE a.closing_days IS NOT NULL AND g.deadline IS NOT NULL AND g.deadline >= $1
         AND g.deadline::timestamptz - $1::timestamptz <= make_interval(days => a.closing_days)
         AND (g.reminded_deadline IS NULL OR g.reminded_deadline <> g.deadline)
       LIMIT 10000`,
      [at.toISOString()],
    );
    return rows.map(toldOf);
  }

  async claimDue(at: Date, limit: number, claimMs: number): Promise<DueMessage[]> {
    const now = at.toISOString();
    const until = new Date(at.getTime() + claimMs).toISOString();
    // One statement, no transaction: a window of the earliest due messages, read in claim order
    // from the index (alert_messages_due_order) without locks, handed on as an array of seqs (the
    // plan then stays a look-up per message whatever the tables' statistics say: a join of the
    // window with every alert can be planned as a scan that takes 600 ms); then those of them that can go
    // (active alert and subscription, no earlier pending message of the same alert and grant) are
    // locked, skipping rows another deliverer holds, claimed and returned with their alert's URL
    // and secrets. The conditions on the message sit at the level that locks it: a row another
    // deliverer claimed meanwhile is checked again on its new version once its lock is released
    // (PostgreSQL's recheck) and left out. The window is twice the claim: a wider one cost more
    // than it found (each row of it is checked before the LIMIT). When none of it can go (paused
    // alerts, earlier messages of the same grant), it is widened until it is the whole outbox.
    for (let window = Math.max(32, limit * 2); ; window *= 8) {
      const { rows } = await this.pool.query(
        `WITH picked AS (
           SELECT m.seq FROM alert_messages m JOIN alerts a ON a.id = m.alert_id JOIN subscriptions s ON s.id =
             a.subscription_id
           WHERE m.seq = ANY(ARRAY(
               SELECT seq FROM alert_messages WHERE status = 'PENDING' AND next_attempt_at <= $1 AND (claimed_until IS
                 NULL OR claimed_until < $1)
               ORDER BY status, next_attempt_at, seq LIMIT $3))
             AND m.status = 'PENDING' AND m.next_attempt_at <= $1 AND (m.claimed_until IS NULL OR m.claimed_until < $1)
             AND a.status = 'ACTIVE' AND s.status = 'ACTIVE'
             AND NOT EXISTS (SELECT 1 FROM alert_messages e WHERE e.alert_id = m.alert_id AND e.grant_id IS NOT
               DISTINCT FROM m.grant_id AND e.status = 'PENDING' AND e.seq < m.seq)
           ORDER BY m.next_attempt_at, m.seq LIMIT $2
           FOR UPDATE OF m SKIP LOCKED)
         UPDATE alert_messages m SET claimed_until = $4 FROM picked, alerts a
         WHERE m.seq = picked.seq AND a.id = m.alert_id
         RETURNING m.seq, m.id, m.alert_id, m.grant_id, m.payload, m.attempts, m.created_at, m.next_attempt_at, a.url,
           a.secret, a.previous_secret, a.previous_until`,
        [now, limit, window, until],
      );
      if (rows.length === 0) {
        const { rows: counted } = await this.pool.query(
          `SELECT count(*)::int AS n FROM (SELECT 1 FROM alert_messages WHERE status = 'PENDING' AND ` +
            `next_attempt_at <= $1 AND (claimed_until IS NULL OR claimed_until < $1) LIMIT $2) w`,
          [now, window + 1],
        );
        if ((counted[0].n as number) > window) continue;
      }
      // In claim order (RETURNING keeps none).
      const claimed = (rows as (DueRow & { seq: string; next_attempt_at: string })[]).sort((a, b) =>
        a.next_attempt_at < b.next_attempt_at
          ? -1
          : a.next_attempt_at > b.next_attempt_at
            ? 1
            : Number(a.seq) - Number(b.seq),
      );
      return claimed.map((r) => dueMessageOf(r, this.box, now));
    }
  }

  async releaseClaims(messageIds: readonly string[]): Promise<void> {
    if (messageIds.length === 0) return;
    await this.pool.query(
      `UPDATE alert_messages SET claimed_until = NULL WHERE id = ANY($1::text[]) AND status = 'PENDING'`,
      [messageIds],
    );
  }

  async recordAttempts(records: readonly AttemptRecord[], disableAfter: number): Promise<void> {
    if (records.length === 0) return;
    const failed = records.filter((r) => r.next.status === 'FAILED').map((r) => r.messageId);
    // Every outcome in one statement (a round trip per message would bound the deliverer); a
    // transaction only when a failure may disable an alert.
    const write = async (db: Queryable) =>
      db.query(
        `UPDATE alert_messages m SET attempts = m.attempts + 1, status = v.status, next_attempt_at =
          v.next_attempt_at, last_at = v.last_at,
           last_status = v.last_status, last_error = v.last_error, last_duration_ms = v.last_duration_ms,
             claimed_until = NULL
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::int[], $6::text[], $7::int[])
           AS v(id, status, next_attempt_at, last_at, last_status, last_error, last_duration_ms)
         WHERE m.id = v.id`,
        [
          records.map((r) => r.messageId),
          records.map((r) => r.next.status),
          records.map((r) => r.next.nextAttemptAt),
          records.map((r) => r.result.at),
          records.map((r) => r.result.statusCode),
          records.map((r) => r.result.error),
          records.map((r) => r.result.durationMs),
        ],
      );
    if (failed.length === 0) {
      await write(this.pool);
      return;
    }
    await inTransaction(this.pool, async (db) => {
      await write(db);
      const { rows } = await db.query('SELECT DISTINCT alert_id FROM alert_messages WHERE id = ANY($1::text[])', [
        failed,
      ]);
      for (const { alert_id: alertId } of rows as { alert_id: string }[]) {
        const recent = (
          await db.query(
            `SELECT status FROM alert_messages WHERE alert_id = $1 AND status IN ('DELIVERED', 'FAILED') ` +
              `ORDER BY last_at DESC, seq DESC LIMIT $2`,
            [alertId, disableAfter],
          )
        ).rows.map((r) => r.status as string);
        if (recent.length === disableAfter && recent.every((st) => st === 'FAILED')) {
          await db.query(
            `UPDATE alerts SET status = 'DISABLED', disabled_reason = $1, updated_at = $2 WHERE id = $3 AND ` +
              `status = 'ACTIVE'`,
            [disabledReason(disableAfter), new Date().toISOString(), alertId],
          );
        }
      }
    });
  }
}
