// The SQLite adapter of the alerts store port, in the subscriptions database (migration 7 of
// src/subscriptions/sqlite/database.ts). Signing secrets are stored sealed (src/alerts/secrets.ts).
import type Database from 'better-sqlite3';
import type { Db } from '../../subscriptions/sqlite/database.js';
import { newAlertId, newMessageId, type Alert, type AlertChanges, type Delivery, type NewAlert } from '../model.js';
import type { SecretBox } from '../secrets.js';
import { ALERT_COLUMNS, MESSAGE_COLUMNS, TOLD_COLUMNS, alertOf, deliveryOf, disabledReason, dueMessageOf, keptAnswerOf, toldOf, type AlertRow, type DueRow, type KeptRow, type MessageRow, type ToldRow } from '../rows.js';
import type { AlertStore, AnswerSecret, AttemptRecord, DueMessage, ListPosition, MatchableAlert, MatchedBatch, MatcherPosition, KeptAnswer, NewMessage, ToldGrant } from '../store.js';

export class SqliteAlertStore implements AlertStore {
  private readonly statements = new Map<string, Database.Statement>();

  constructor(
    private readonly db: Db,
    private readonly box: SecretBox,
  ) {}

  /** The statement of `sql`, prepared once (preparing costs more than running most of these). */
  private prepared(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (statement === undefined) this.statements.set(sql, (statement = this.db.prepare(sql)));
    return statement;
  }

  async count(subscriptionId: string): Promise<number> {
    return this.prepared('SELECT count(*) FROM alerts WHERE subscription_id = ?').pluck().get(subscriptionId) as number;
  }

  async limitOverride(subscriptionId: string): Promise<number | null> {
    return (this.prepared('SELECT alert_limit FROM subscriptions WHERE id = ?').pluck().get(subscriptionId) as number | null | undefined) ?? null;
  }

  async create(subscriptionId: string, input: NewAlert, secret: string, at: Date, max: number): Promise<Alert | null> {
    const id = newAlertId();
    const now = at.toISOString();
    const sealed = this.box.seal(secret);
    // IMMEDIATE: the write lock is held from the count on, so another connection's creation waits.
    const created = this.db.transaction(() => {
      if ((this.prepared('SELECT count(*) FROM alerts WHERE subscription_id = ?').pluck().get(subscriptionId) as number) >= max) return false;
      this
        .prepared(
          `INSERT INTO alerts (id, subscription_id, name, query, url, events, closing_days, status, secret, from_seq, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, 'ACTIVE', ?, (SELECT seq FROM alert_matcher WHERE id = 1), ?, ?)`,
        )
        .run(id, subscriptionId, input.name, JSON.stringify(input.query), input.url, JSON.stringify(input.events), input.closingReminderDays, sealed, now, now);
      return true;
    }).immediate();
    return created ? this.get(subscriptionId, id) : null;
  }

  async list(subscriptionId: string | null, after: ListPosition | null, limit: number): Promise<Alert[]> {
    const rows = this
      .prepared(
        `SELECT ${ALERT_COLUMNS} FROM alerts
         WHERE (:sub IS NULL OR subscription_id = :sub) AND (:at IS NULL OR created_at < :at OR (created_at = :at AND id < :id))
         ORDER BY created_at DESC, id DESC LIMIT :limit`,
      )
      .all({ sub: subscriptionId, at: after?.createdAt ?? null, id: after?.id ?? null, limit }) as AlertRow[];
    return rows.map(alertOf);
  }

  async get(subscriptionId: string | null, id: string): Promise<Alert | null> {
    const row = this.prepared(`SELECT ${ALERT_COLUMNS} FROM alerts WHERE id = ? AND (? IS NULL OR subscription_id = ?)`).get(id, subscriptionId, subscriptionId) as AlertRow | undefined;
    return row === undefined ? null : alertOf(row);
  }

  async update(subscriptionId: string | null, id: string, changes: AlertChanges, at: Date): Promise<Alert | null> {
    const current = await this.get(subscriptionId, id);
    if (current === null) return null;
    const next = { ...current, ...changes };
    const reason = next.status === 'DISABLED' ? current.disabledReason : null;
    this
      .prepared('UPDATE alerts SET name = ?, query = ?, url = ?, events = ?, closing_days = ?, status = ?, disabled_reason = ?, updated_at = ? WHERE id = ?')
      .run(next.name, JSON.stringify(next.query), next.url, JSON.stringify(next.events), next.closingReminderDays, next.status, reason, at.toISOString(), id);
    return this.get(subscriptionId, id);
  }

  async delete(subscriptionId: string, id: string): Promise<boolean> {
    return this.db.transaction(() => {
      const deleted = this.prepared('DELETE FROM alerts WHERE id = ? AND subscription_id = ?').run(id, subscriptionId).changes === 1;
      // Its secrets kept for Idempotency-Key replays go with it.
      if (deleted) this.prepared('UPDATE idempotency_keys SET secret = NULL WHERE alert_id = ?').run(id);
      return deleted;
    })();
  }

  async rotateSecret(subscriptionId: string, id: string, secret: string, at: Date, overlapMs: number): Promise<boolean> {
    const result = this
      .prepared('UPDATE alerts SET previous_secret = secret, previous_until = ?, secret = ?, updated_at = ? WHERE id = ? AND subscription_id = ?')
      .run(new Date(at.getTime() + overlapMs).toISOString(), this.box.seal(secret), at.toISOString(), id, subscriptionId);
    return result.changes === 1;
  }

  private insertMessages(messages: readonly NewMessage[], at: string): string[] {
    const insert = this.prepared(
      `INSERT INTO alert_messages (id, alert_id, grant_id, type, payload, status, attempts, next_attempt_at, created_at) VALUES (?, ?, ?, ?, ?, 'PENDING', 0, ?, ?)`,
    );
    return messages.map((m) => {
      const id = newMessageId();
      insert.run(id, m.alertId, m.grantId, m.type, m.payload, at, at);
      return id;
    });
  }

  async enqueue(message: NewMessage, at: Date): Promise<Delivery> {
    const [id] = this.db.transaction(() => this.insertMessages([message], at.toISOString()))();
    return (await this.getDelivery(message.alertId, id))!;
  }

  async deliveries(alertId: string, after: ListPosition | null, limit: number): Promise<Delivery[]> {
    const afterSeq = after === null ? null : ((this.prepared('SELECT seq FROM alert_messages WHERE id = ?').pluck().get(after.id) as number | undefined) ?? 0);
    const rows = this
      .prepared(`SELECT ${MESSAGE_COLUMNS} FROM alert_messages WHERE alert_id = ? AND (? IS NULL OR seq < ?) ORDER BY seq DESC LIMIT ?`)
      .all(alertId, afterSeq, afterSeq, limit) as MessageRow[];
    return rows.map(deliveryOf);
  }

  async getDelivery(alertId: string, deliveryId: string): Promise<Delivery | null> {
    const row = this.prepared(`SELECT ${MESSAGE_COLUMNS} FROM alert_messages WHERE id = ? AND alert_id = ?`).get(deliveryId, alertId) as MessageRow | undefined;
    return row === undefined ? null : deliveryOf(row);
  }

  async retry(alertId: string, deliveryId: string, at: Date): Promise<Delivery | null> {
    const changed = this
      .prepared(`UPDATE alert_messages SET status = 'PENDING', next_attempt_at = ?, claimed_until = NULL WHERE id = ? AND alert_id = ?`)
      .run(at.toISOString(), deliveryId, alertId).changes;
    return changed === 1 ? this.getDelivery(alertId, deliveryId) : null;
  }

  async matcherPosition(): Promise<MatcherPosition> {
    return this.prepared('SELECT log, seq FROM alert_matcher WHERE id = 1').get() as MatcherPosition;
  }

  /** The processes of one machine share the file: the compare-and-set of commitBatch keeps them apart, no lease is needed. */
  async tryLease(): Promise<boolean> {
    return true;
  }

  async matchableAlerts(): Promise<MatchableAlert[]> {
    return (this.prepared(`SELECT ${ALERT_COLUMNS} FROM alerts ORDER BY created_at, id`).all() as AlertRow[]).map(alertOf);
  }

  async alertsVersion(): Promise<string> {
    return this.prepared(`SELECT count(*) || ':' || coalesce(max(updated_at), '') FROM alerts`).pluck().get() as string;
  }

  async told(grantIds: readonly string[]): Promise<ToldGrant[]> {
    if (grantIds.length === 0) return [];
    const rows = this
      .prepared(`SELECT ${TOLD_COLUMNS} FROM alert_grants WHERE grant_id IN (SELECT value FROM json_each(?))`)
      .all(JSON.stringify(grantIds)) as ToldRow[];
    return rows.map(toldOf);
  }

  private upsertTold(told: readonly ToldGrant[]): void {
    const upsert = this.prepared(
      `INSERT INTO alert_grants (${TOLD_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (alert_id, grant_id) DO UPDATE SET deadline = excluded.deadline, reminded_deadline = excluded.reminded_deadline,
         opens_at = excluded.opens_at, opened_opens_at = excluded.opened_opens_at`,
    );
    for (const t of told) upsert.run(t.alertId, t.grantId, t.deadline, t.remindedDeadline, t.opensAt, t.openedOpensAt);
  }

  async commitBatch(batch: MatchedBatch, at: Date): Promise<boolean> {
    const now = at.toISOString();
    const forget = this.prepared('DELETE FROM alert_grants WHERE alert_id = ? AND grant_id = ?');
    return this.db.transaction(() => {
      const current = this.prepared('SELECT log, seq FROM alert_matcher WHERE id = 1').get() as MatcherPosition;
      if (current.log !== batch.from.log || current.seq !== batch.from.seq) return false;
      // An alert deleted while the batch was being matched takes no message.
      const alive = new Set(this.prepared('SELECT id FROM alerts').pluck().all() as string[]);
      this.insertMessages(batch.messages.filter((m) => alive.has(m.alertId)), now);
      this.upsertTold(batch.told.filter((t) => alive.has(t.alertId)));
      for (const f of batch.forgotten) forget.run(f.alertId, f.grantId);
      this.prepared('UPDATE alert_matcher SET log = ?, seq = ?, updated_at = ? WHERE id = 1').run(batch.position.log, batch.position.seq, now);
      return true;
    }).immediate();
  }

  async dueReminders(at: Date): Promise<ToldGrant[]> {
    const rows = this
      .prepared(
        `SELECT g.alert_id, g.grant_id, g.deadline, g.reminded_deadline, g.opens_at, g.opened_opens_at FROM alert_grants g JOIN alerts a ON a.id = g.alert_id
         WHERE a.closing_days IS NOT NULL AND g.deadline IS NOT NULL AND g.deadline >= :now
           AND julianday(g.deadline) - julianday(:now) <= a.closing_days
           AND (g.reminded_deadline IS NULL OR g.reminded_deadline <> g.deadline)
         LIMIT 10000`,
      )
      .all({ now: at.toISOString() }) as ToldRow[];
    return rows.map(toldOf);
  }

  async commitReminders(messages: NewMessage[], reminded: ToldGrant[], at: Date): Promise<void> {
    const mark = this.prepared('UPDATE alert_grants SET reminded_deadline = ? WHERE alert_id = ? AND grant_id = ? AND deadline IS ?');
    this.db.transaction(() => {
      this.insertMessages(messages, at.toISOString());
      for (const r of reminded) mark.run(r.deadline, r.alertId, r.grantId, r.deadline);
    }).immediate();
  }

  async dueOpenings(at: Date): Promise<ToldGrant[]> {
    const rows = this
      .prepared(
        `SELECT ${TOLD_COLUMNS} FROM alert_grants
         WHERE opens_at IS NOT NULL AND opens_at <= :now AND (opened_opens_at IS NULL OR opened_opens_at <> opens_at)
         LIMIT 10000`,
      )
      .all({ now: at.toISOString() }) as ToldRow[];
    return rows.map(toldOf);
  }

  async commitOpenings(messages: NewMessage[], opened: ToldGrant[], at: Date): Promise<void> {
    const mark = this.prepared('UPDATE alert_grants SET opened_opens_at = ? WHERE alert_id = ? AND grant_id = ? AND opens_at IS ?');
    this.db.transaction(() => {
      this.insertMessages(messages, at.toISOString());
      for (const o of opened) mark.run(o.opensAt, o.alertId, o.grantId, o.opensAt);
    }).immediate();
  }

  async claimDue(at: Date, limit: number, claimMs: number): Promise<DueMessage[]> {
    const now = at.toISOString();
    const claim = this.prepared('UPDATE alert_messages SET claimed_until = ? WHERE id = ?');
    const rows = this.db.transaction(() => {
      const found = this
      .prepared(
        `SELECT m.id, m.alert_id, m.grant_id, m.payload, m.attempts, m.created_at, a.url, a.secret, a.previous_secret, a.previous_until
         FROM alert_messages m JOIN alerts a ON a.id = m.alert_id JOIN subscriptions s ON s.id = a.subscription_id
         WHERE m.status = 'PENDING' AND m.next_attempt_at <= :now AND a.status = 'ACTIVE' AND s.status = 'ACTIVE'
           AND (m.claimed_until IS NULL OR m.claimed_until < :now)
           AND NOT EXISTS (SELECT 1 FROM alert_messages e WHERE e.alert_id = m.alert_id AND e.grant_id IS m.grant_id AND e.status = 'PENDING' AND e.seq < m.seq)
         ORDER BY m.next_attempt_at, m.seq LIMIT :limit`,
      )
      .all({ now, limit }) as DueRow[];
      const until = new Date(at.getTime() + claimMs).toISOString();
      for (const r of found) claim.run(until, r.id);
      return found;
    }).immediate();
    return rows.map((r) => dueMessageOf(r, this.box, now));
  }

  async releaseClaims(messageIds: readonly string[]): Promise<void> {
    const release = this.prepared(`UPDATE alert_messages SET claimed_until = NULL WHERE id = ? AND status = 'PENDING'`);
    this.db.transaction(() => {
      for (const id of messageIds) release.run(id);
    })();
  }

  async recordAttempts(records: readonly AttemptRecord[], disableAfter: number): Promise<void> {
    this.db.transaction(() => {
      for (const { messageId, result, next } of records) {
        this.prepared(
          `UPDATE alert_messages SET attempts = attempts + 1, status = ?, next_attempt_at = ?, last_at = ?, last_status = ?, last_error = ?, last_duration_ms = ?, claimed_until = NULL WHERE id = ?`,
        ).run(next.status, next.nextAttemptAt, result.at, result.statusCode, result.error, result.durationMs, messageId);
        if (next.status !== 'FAILED') continue;
        const alertId = this.prepared('SELECT alert_id FROM alert_messages WHERE id = ?').pluck().get(messageId) as string | undefined;
        if (alertId === undefined) continue;
        const recent = this.prepared(`SELECT status FROM alert_messages WHERE alert_id = ? AND status IN ('DELIVERED', 'FAILED') ORDER BY last_at DESC, seq DESC LIMIT ?`)
          .pluck()
          .all(alertId, disableAfter) as string[];
        if (recent.length === disableAfter && recent.every((st) => st === 'FAILED')) {
          this.prepared(`UPDATE alerts SET status = 'DISABLED', disabled_reason = ?, updated_at = ? WHERE id = ? AND status = 'ACTIVE'`).run(disabledReason(disableAfter), result.at, alertId);
        }
      }
    })();
  }

  async resealSecrets(box: { open(sealed: string): string; seal(plain: string): string }): Promise<number> {
    const rows = this.prepared('SELECT id, secret, previous_secret FROM alerts').all() as { id: string; secret: string; previous_secret: string | null }[];
    const update = this.prepared('UPDATE alerts SET secret = ?, previous_secret = ? WHERE id = ?');
    const kept = this.prepared('SELECT subscription_id, key, secret FROM idempotency_keys WHERE secret IS NOT NULL');
    const updateKept = this.prepared('UPDATE idempotency_keys SET secret = ? WHERE subscription_id = ? AND key = ?');
    this.db.transaction(() => {
      for (const r of rows) update.run(box.seal(box.open(r.secret)), r.previous_secret === null ? null : box.seal(box.open(r.previous_secret)), r.id);
      for (const k of kept.all() as { subscription_id: string; key: string; secret: string }[]) updateKept.run(box.seal(box.open(k.secret)), k.subscription_id, k.key);
    }).immediate();
    return rows.length;
  }

  async outboxDepth(): Promise<number> {
    return this.prepared(`SELECT count(*) FROM alert_messages WHERE status = 'PENDING'`).pluck().get() as number;
  }

  async idempotent(subscriptionId: string, key: string, sinceIso: string): Promise<KeptAnswer | null> {
    const row = this
      .prepared('SELECT fingerprint, status, body, alert_id, secret FROM idempotency_keys WHERE subscription_id = ? AND key = ? AND created_at >= ?')
      .get(subscriptionId, key, sinceIso) as KeptRow | undefined;
    return row === undefined ? null : keptAnswerOf(row, this.box);
  }

  async rememberIdempotent(subscriptionId: string, key: string, fingerprint: string, status: number, body: string, at: Date, secret: AnswerSecret | null): Promise<void> {
    // A secret whose alert is gone by now (deleted meanwhile) is not kept.
    this
      .prepared(
        `INSERT INTO idempotency_keys (subscription_id, key, fingerprint, status, body, created_at, alert_id, secret)
         VALUES (:sub, :key, :fingerprint, :status, :body, :at, :alert, (SELECT :secret WHERE EXISTS (SELECT 1 FROM alerts WHERE id = :alert)))
         ON CONFLICT (subscription_id, key) DO UPDATE SET fingerprint = excluded.fingerprint, status = excluded.status, body = excluded.body,
           created_at = excluded.created_at, alert_id = excluded.alert_id, secret = excluded.secret`,
      )
      .run({ sub: subscriptionId, key, fingerprint, status, body, at: at.toISOString(), alert: secret?.alertId ?? null, secret: secret === null ? null : this.box.seal(secret.secret) });
  }
}
