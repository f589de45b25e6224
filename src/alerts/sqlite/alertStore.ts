// The SQLite adapter of the alerts store port, in the subscriptions database (migration 7 of
// src/subscriptions/sqlite/database.ts): the shared operations of ../sqlAlertStore.ts, and what
// SQLite does its own way (a statement per message or grant, no lease: the processes of one
// machine take the file's write lock in turn). Signing secrets are stored sealed (src/alerts/secrets.ts).
import type { Db } from '../../subscriptions/sqlite/database.js';
import { SqliteSteps } from '../../subscriptions/sqlite/steps.js';
import { all, get, run, type Steps } from '../../subscriptions/sqlSteps.js';
import { newMessageId } from '../model.js';
import type { SecretBox } from '../secrets.js';
import { TOLD_COLUMNS, disabledReason, dueMessageOf, toldOf, type DueRow, type ToldRow } from '../rows.js';
import { SqlAlertStore } from '../sqlAlertStore.js';
import type { AttemptRecord, DueMessage, MatchedBatch, MatcherPosition, NewMessage, ToldGrant } from '../store.js';

export class SqliteAlertStore extends SqlAlertStore {
  declare protected readonly steps: SqliteSteps;

  constructor(db: Db, box: SecretBox) {
    super(new SqliteSteps(db), box);
  }

  protected *insertMessages(messages: readonly NewMessage[], at: string): Steps<string[]> {
    const ids: string[] = [];
    for (const m of messages) {
      const id = newMessageId();
      yield* run(
        `INSERT INTO alert_messages (id, alert_id, grant_id, type, payload, status, attempts, ` +
          `next_attempt_at, created_at) VALUES (?, ?, ?, ?, ?, 'PENDING', 0, ?, ?)`,
        id,
        m.alertId,
        m.grantId,
        m.type,
        m.payload,
        at,
        at,
      );
      ids.push(id);
    }
    return ids;
  }

  /**
   * The processes of one machine share the file: the compare-and-set of commitBatch keeps them apart, no lease is
   * needed.
   */
  async tryLease(): Promise<boolean> {
    return true;
  }

  async alertsVersion(): Promise<string> {
    return this.steps.run(
      get<{ version: string }>(`SELECT count(*) || ':' || coalesce(max(updated_at), '') AS version FROM alerts`),
    )!.version;
  }

  async told(grantIds: readonly string[]): Promise<ToldGrant[]> {
    if (grantIds.length === 0) return [];
    return this.steps
      .run(
        all<ToldRow>(
          `SELECT ${TOLD_COLUMNS} FROM alert_grants WHERE grant_id IN (SELECT value FROM json_each(?))`,
          JSON.stringify(grantIds),
        ),
      )
      .map(toldOf);
  }

  async commitBatch(batch: MatchedBatch, at: Date): Promise<boolean> {
    const now = at.toISOString();
    const insertMessages = (messages: NewMessage[]) => this.insertMessages(messages, now);
    return this.steps.transaction(
      (function* (): Steps<boolean> {
        const current = (yield* get<MatcherPosition>('SELECT log, seq FROM alert_matcher WHERE id = 1'))!;
        if (current.log !== batch.from.log || current.seq !== batch.from.seq) return false;
        // An alert deleted while the batch was being matched takes no message.
        const alive = new Set((yield* all<{ id: string }>('SELECT id FROM alerts')).map((r) => r.id));
        yield* insertMessages(batch.messages.filter((m) => alive.has(m.alertId)));
        for (const t of batch.told.filter((told) => alive.has(told.alertId))) {
          yield* run(
            `INSERT INTO alert_grants (${TOLD_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)
             ON CONFLICT (alert_id, grant_id) DO UPDATE SET deadline = excluded.deadline, reminded_deadline =
               excluded.reminded_deadline,
               opens_at = excluded.opens_at, opened_opens_at = excluded.opened_opens_at`,
            t.alertId,
            t.grantId,
            t.deadline,
            t.remindedDeadline,
            t.opensAt,
            t.openedOpensAt,
          );
        }
        for (const f of batch.forgotten)
          yield* run('DELETE FROM alert_grants WHERE alert_id = ? AND grant_id = ?', f.alertId, f.grantId);
        yield* run(
          'UPDATE alert_matcher SET log = ?, seq = ?, updated_at = ? WHERE id = 1',
          batch.position.log,
          batch.position.seq,
          now,
        );
        return true;
      })(),
      { write: true },
    );
  }

  async dueReminders(at: Date): Promise<ToldGrant[]> {
    const now = at.toISOString();
    const rows = this.steps.run(
      all<ToldRow>(
        `SELECT g.alert_id, g.grant_id, g.deadline, g.reminded_deadline, g.opens_at, g.opened_opens_at FROM
          alert_grants g JOIN alerts a ON a.id = g.alert_id
         WHERE a.closing_days IS NOT NULL AND g.deadline IS NOT NULL AND g.deadline >= ?
           AND julianday(g.deadline) - julianday(?) <= a.closing_days
           AND (g.reminded_deadline IS NULL OR g.reminded_deadline <> g.deadline)
         LIMIT 10000`,
        now,
        now,
      ),
    );
    return rows.map(toldOf);
  }

  async claimDue(at: Date, limit: number, claimMs: number): Promise<DueMessage[]> {
    const now = at.toISOString();
    const until = new Date(at.getTime() + claimMs).toISOString();
    const rows = this.steps.transaction(
      (function* (): Steps<DueRow[]> {
        const found = yield* all<DueRow>(
          `SELECT m.id, m.alert_id, m.grant_id, m.payload, m.attempts, m.created_at, a.url, a.secret,
            a.previous_secret, a.previous_until
           FROM alert_messages m JOIN alerts a ON a.id = m.alert_id JOIN subscriptions s ON s.id = a.subscription_id
           WHERE m.status = 'PENDING' AND m.next_attempt_at <= ? AND a.status = 'ACTIVE' AND s.status = 'ACTIVE'
             AND (m.claimed_until IS NULL OR m.claimed_until < ?)
             AND NOT EXISTS (SELECT 1 FROM alert_messages e WHERE e.alert_id = m.alert_id AND e.grant_id IS m.grant_id
               AND e.status = 'PENDING' AND e.seq < m.seq)
           ORDER BY m.next_attempt_at, m.seq LIMIT ?`,
          now,
          now,
          limit,
        );
        for (const r of found) yield* run('UPDATE alert_messages SET claimed_until = ? WHERE id = ?', until, r.id);
        return found;
      })(),
      { write: true },
    );
    return rows.map((r) => dueMessageOf(r, this.box, now));
  }

  async releaseClaims(messageIds: readonly string[]): Promise<void> {
    this.steps.transaction(
      (function* (): Steps<void> {
        for (const id of messageIds)
          yield* run(`UPDATE alert_messages SET claimed_until = NULL WHERE id = ? AND status = 'PENDING'`, id);
      })(),
    );
  }

  async recordAttempts(records: readonly AttemptRecord[], disableAfter: number): Promise<void> {
    this.steps.transaction(
      (function* (): Steps<void> {
        for (const { messageId, result, next } of records) {
          yield* run(
            `UPDATE alert_messages SET attempts = attempts + 1, status = ?, next_attempt_at = ?, last_at = ` +
              `?, last_status = ?, last_error = ?, last_duration_ms = ?, claimed_until = NULL WHERE id = ?`,
            next.status,
            next.nextAttemptAt,
            result.at,
            result.statusCode,
            result.error,
            result.durationMs,
            messageId,
          );
          if (next.status !== 'FAILED') continue;
          const message = yield* get<{ alert_id: string }>(
            'SELECT alert_id FROM alert_messages WHERE id = ?',
            messageId,
          );
          if (message === undefined) continue;
          const recent = yield* all<{ status: string }>(
            `SELECT status FROM alert_messages WHERE alert_id = ? AND status IN ('DELIVERED', 'FAILED') ` +
              `ORDER BY last_at DESC, seq DESC LIMIT ?`,
            message.alert_id,
            disableAfter,
          );
          if (recent.length === disableAfter && recent.every((r) => r.status === 'FAILED')) {
            yield* run(
              `UPDATE alerts SET status = 'DISABLED', disabled_reason = ?, updated_at = ? WHERE id = ? AND ` +
                `status = 'ACTIVE'`,
              disabledReason(disableAfter),
              result.at,
              message.alert_id,
            );
          }
        }
      })(),
    );
  }
}
