// What both alerts stores do the same way, written once as statements (src/subscriptions/sqlSteps.ts):
// the alerts, their deliveries, reminders, openings, secrets and kept answers. Each adapter
// (sqlite/alertStore.ts, postgres/alertStore.ts) runs them with its driver and adds what truly
// differs: how messages and followed grants are written in bulk, how due messages are claimed,
// the matcher's lease and the SQL functions of its dialect.
import { all, get, run, type Steps, type StepRunner } from '../subscriptions/sqlSteps.js';
import { newAlertId, type Alert, type AlertChanges, type Delivery, type NewAlert } from './model.js';
import type { SecretBox } from './secrets.js';
import {
  ALERT_COLUMNS,
  MESSAGE_COLUMNS,
  TOLD_COLUMNS,
  alertOf,
  deliveryOf,
  keptAnswerOf,
  toldOf,
  type AlertRow,
  type KeptRow,
  type MessageRow,
  type ToldRow,
} from './rows.js';
import type {
  AlertStore,
  AnswerSecret,
  AttemptRecord,
  DueMessage,
  KeptAnswer,
  ListPosition,
  MatchableAlert,
  MatchedBatch,
  MatcherPosition,
  NewMessage,
  ToldGrant,
} from './store.js';

type Count = { n: number | string };

export abstract class SqlAlertStore implements AlertStore {
  constructor(
    protected readonly steps: StepRunner,
    protected readonly box: SecretBox,
  ) {}

  /** Puts messages in the outbox, PENDING and due at `at`, in order; their ids. */
  protected abstract insertMessages(messages: readonly NewMessage[], at: string): Steps<string[]>;

  abstract tryLease(holder: string, ttlMs: number): Promise<boolean>;
  abstract alertsVersion(): Promise<string>;
  abstract told(grantIds: readonly string[]): Promise<ToldGrant[]>;
  abstract commitBatch(batch: MatchedBatch, at: Date): Promise<boolean>;
  abstract dueReminders(at: Date): Promise<ToldGrant[]>;
  abstract claimDue(at: Date, limit: number, claimMs: number): Promise<DueMessage[]>;
  abstract releaseClaims(messageIds: readonly string[]): Promise<void>;
  abstract recordAttempts(records: readonly AttemptRecord[], disableAfter: number): Promise<void>;

  async count(subscriptionId: string): Promise<number> {
    return Number(
      (await this.steps.run(get<Count>('SELECT count(*) AS n FROM alerts WHERE subscription_id = ?', subscriptionId)))!
        .n,
    );
  }

  async limitOverride(subscriptionId: string): Promise<number | null> {
    return (
      (
        await this.steps.run(
          get<{ alert_limit: number | null }>('SELECT alert_limit FROM subscriptions WHERE id = ?', subscriptionId),
        )
      )?.alert_limit ?? null
    );
  }

  async create(subscriptionId: string, input: NewAlert, secret: string, at: Date, max: number): Promise<Alert | null> {
    const id = newAlertId();
    const now = at.toISOString();
    const sealed = this.box.seal(secret);
    const d = this.steps.dialect;
    // The subscription's row locked (a write transaction): creations for it run one at a time, each counting the last's
    // alert.
    const created = await this.steps.transaction(
      (function* (): Steps<boolean> {
        yield* get(`SELECT 1 FROM subscriptions WHERE id = ?${d.forUpdate()}`, subscriptionId);
        if (
          Number(
            (yield* get<Count>('SELECT count(*) AS n FROM alerts WHERE subscription_id = ?', subscriptionId))!.n,
          ) >= max
        )
          return false;
        yield* run(
          `INSERT INTO alerts (id, subscription_id, name, query, url, events, closing_days, status, secret, from_seq,
            created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, 'ACTIVE', ?, (SELECT seq FROM alert_matcher WHERE id = 1), ?, ?)`,
          id,
          subscriptionId,
          input.name,
          JSON.stringify(input.query),
          input.url,
          JSON.stringify(input.events),
          input.closingReminderDays,
          sealed,
          now,
          now,
        );
        return true;
      })(),
      { write: true },
    );
    return created ? this.get(subscriptionId, id) : null;
  }

  async list(subscriptionId: string | null, after: ListPosition | null, limit: number): Promise<Alert[]> {
    const t = this.steps.dialect.textParam;
    const rows = await this.steps.run(
      all<AlertRow>(
        `SELECT ${ALERT_COLUMNS} FROM alerts
         WHERE (${t} IS NULL OR subscription_id = ?) AND (${t} IS NULL OR created_at < ? OR (created_at = ? AND id < ?))
         ORDER BY created_at DESC, id DESC LIMIT ?`,
        subscriptionId,
        subscriptionId,
        after?.createdAt ?? null,
        after?.createdAt ?? null,
        after?.createdAt ?? null,
        after?.id ?? null,
        limit,
      ),
    );
    return rows.map(alertOf);
  }

  async get(subscriptionId: string | null, id: string): Promise<Alert | null> {
    const row = await this.steps.run(
      get<AlertRow>(
        `SELECT ${ALERT_COLUMNS} FROM alerts WHERE id = ? AND (${this.steps.dialect.textParam} IS NULL OR ` +
          `subscription_id = ?)`,
        id,
        subscriptionId,
        subscriptionId,
      ),
    );
    return row === undefined ? null : alertOf(row);
  }

  async update(subscriptionId: string | null, id: string, changes: AlertChanges, at: Date): Promise<Alert | null> {
    const current = await this.get(subscriptionId, id);
    if (current === null) return null;
    const next = { ...current, ...changes };
    const reason = next.status === 'DISABLED' ? current.disabledReason : null;
    await this.steps.run(
      run(
        'UPDATE alerts SET name = ?, query = ?, url = ?, events = ?, closing_days = ?, status = ?, ' +
          'disabled_reason = ?, updated_at = ? WHERE id = ?',
        next.name,
        JSON.stringify(next.query),
        next.url,
        JSON.stringify(next.events),
        next.closingReminderDays,
        next.status,
        reason,
        at.toISOString(),
        id,
      ),
    );
    return this.get(subscriptionId, id);
  }

  async delete(subscriptionId: string, id: string): Promise<boolean> {
    return this.steps.transaction(
      (function* (): Steps<boolean> {
        const deleted =
          (yield* run('DELETE FROM alerts WHERE id = ? AND subscription_id = ?', id, subscriptionId)) === 1;
        // Its secrets kept for Idempotency-Key replays go with it.
        if (deleted) yield* run('UPDATE idempotency_keys SET secret = NULL WHERE alert_id = ?', id);
        return deleted;
      })(),
    );
  }

  async rotateSecret(
    subscriptionId: string,
    id: string,
    secret: string,
    at: Date,
    overlapMs: number,
  ): Promise<boolean> {
    const changed = await this.steps.run(
      run(
        'UPDATE alerts SET previous_secret = secret, previous_until = ?, secret = ?, updated_at = ? WHERE id = ? ' +
          'AND subscription_id = ?',
        new Date(at.getTime() + overlapMs).toISOString(),
        this.box.seal(secret),
        at.toISOString(),
        id,
        subscriptionId,
      ),
    );
    return changed === 1;
  }

  async enqueue(message: NewMessage, at: Date): Promise<Delivery> {
    const [id] = await this.steps.transaction(this.insertMessages([message], at.toISOString()));
    return (await this.getDelivery(message.alertId, id))!;
  }

  async deliveries(alertId: string, after: ListPosition | null, limit: number): Promise<Delivery[]> {
    const rows = await this.steps.run(
      all<MessageRow>(
        `SELECT ${MESSAGE_COLUMNS} FROM alert_messages
         WHERE alert_id = ? AND (${this.steps.dialect.textParam} IS NULL OR seq < coalesce((SELECT seq FROM
           alert_messages WHERE id = ?), 0))
         ORDER BY seq DESC LIMIT ?`,
        alertId,
        after?.id ?? null,
        after?.id ?? null,
        limit,
      ),
    );
    return rows.map(deliveryOf);
  }

  async getDelivery(alertId: string, deliveryId: string): Promise<Delivery | null> {
    const row = await this.steps.run(
      get<MessageRow>(
        `SELECT ${MESSAGE_COLUMNS} FROM alert_messages WHERE id = ? AND alert_id = ?`,
        deliveryId,
        alertId,
      ),
    );
    return row === undefined ? null : deliveryOf(row);
  }

  async retry(alertId: string, deliveryId: string, at: Date): Promise<Delivery | null> {
    const changed = await this.steps.run(
      run(
        `UPDATE alert_messages SET status = 'PENDING', next_attempt_at = ?, claimed_until = NULL WHERE id = ` +
          `? AND alert_id = ?`,
        at.toISOString(),
        deliveryId,
        alertId,
      ),
    );
    return changed === 1 ? this.getDelivery(alertId, deliveryId) : null;
  }

  async matcherPosition(): Promise<MatcherPosition> {
    const row = (await this.steps.run(
      get<{ log: string | null; seq: number | string }>('SELECT log, seq FROM alert_matcher WHERE id = 1'),
    ))!;
    return { log: row.log, seq: Number(row.seq) };
  }

  async matchableAlerts(): Promise<MatchableAlert[]> {
    return (await this.steps.run(all<AlertRow>(`SELECT ${ALERT_COLUMNS} FROM alerts ORDER BY created_at, id`))).map(
      alertOf,
    );
  }

  /**
   * Writes the messages and marks each grant's value as announced (`column` = the grant's `value`), in one transaction.
   */
  private async commitAnnounced(
    messages: NewMessage[],
    marks: { alertId: string; grantId: string; value: string | null }[],
    column: 'reminded_deadline' | 'opened_opens_at',
    of: 'deadline' | 'opens_at',
    at: Date,
  ): Promise<void> {
    const insert = this.insertMessages(messages, at.toISOString());
    const same = this.steps.dialect.nullSafeEquals;
    await this.steps.transaction(
      (function* (): Steps<void> {
        yield* insert;
        for (const m of marks)
          yield* run(
            `UPDATE alert_grants SET ${column} = ? WHERE alert_id = ? AND grant_id = ? AND ${of} ${same} ?`,
            m.value,
            m.alertId,
            m.grantId,
            m.value,
          );
      })(),
      { write: true },
    );
  }

  async commitReminders(messages: NewMessage[], reminded: ToldGrant[], at: Date): Promise<void> {
    await this.commitAnnounced(
      messages,
      reminded.map((r) => ({ alertId: r.alertId, grantId: r.grantId, value: r.deadline })),
      'reminded_deadline',
      'deadline',
      at,
    );
  }

  async dueOpenings(at: Date): Promise<ToldGrant[]> {
    const rows = await this.steps.run(
      all<ToldRow>(
        `SELECT ${TOLD_COLUMNS} FROM alert_grants
         WHERE opens_at IS NOT NULL AND opens_at <= ? AND (opened_opens_at IS NULL OR opened_opens_at <> opens_at)
         LIMIT 10000`,
        at.toISOString(),
      ),
    );
    return rows.map(toldOf);
  }

  async commitOpenings(messages: NewMessage[], opened: ToldGrant[], at: Date): Promise<void> {
    await this.commitAnnounced(
      messages,
      opened.map((o) => ({ alertId: o.alertId, grantId: o.grantId, value: o.opensAt })),
      'opened_opens_at',
      'opens_at',
      at,
    );
  }

  async resealSecrets(box: { open(sealed: string): string; seal(plain: string): string }): Promise<number> {
    const d = this.steps.dialect;
    const reseal = (sealed: string): string => box.seal(box.open(sealed));
    return this.steps.transaction(
      (function* (): Steps<number> {
        const rows = yield* all<{ id: string; secret: string; previous_secret: string | null }>(
          `SELECT id, secret, previous_secret FROM alerts${d.forUpdate()}`,
        );
        for (const r of rows)
          yield* run(
            'UPDATE alerts SET secret = ?, previous_secret = ? WHERE id = ?',
            reseal(r.secret),
            r.previous_secret === null ? null : reseal(r.previous_secret),
            r.id,
          );
        const kept = yield* all<{ subscription_id: string; key: string; secret: string }>(
          `SELECT subscription_id, key, secret FROM idempotency_keys WHERE secret IS NOT NULL${d.forUpdate()}`,
        );
        for (const k of kept)
          yield* run(
            'UPDATE idempotency_keys SET secret = ? WHERE subscription_id = ? AND key = ?',
            reseal(k.secret),
            k.subscription_id,
            k.key,
          );
        return rows.length;
      })(),
      { write: true },
    );
  }

  async outboxDepth(): Promise<number> {
    return Number(
      (await this.steps.run(get<Count>(`SELECT count(*) AS n FROM alert_messages WHERE status = 'PENDING'`)))!.n,
    );
  }

  async idempotent(subscriptionId: string, key: string, sinceIso: string): Promise<KeptAnswer | null> {
    const row = await this.steps.run(
      get<KeptRow>(
        'SELECT fingerprint, status, body, alert_id, secret FROM idempotency_keys WHERE subscription_id = ? AND ' +
          'key = ? AND created_at >= ?',
        subscriptionId,
        key,
        sinceIso,
      ),
    );
    return row === undefined ? null : keptAnswerOf(row, this.box);
  }

  async rememberIdempotent(
    subscriptionId: string,
    key: string,
    fingerprint: string,
    status: number,
    body: string,
    at: Date,
    secret: AnswerSecret | null,
  ): Promise<void> {
    const alertId = secret?.alertId ?? null;
    // A secret whose alert is gone by now (deleted meanwhile) is not kept.
    await this.steps.run(
      run(
        `INSERT INTO idempotency_keys (subscription_id, key, fingerprint, status, body, created_at, alert_id, secret)
         VALUES (?, ?, ?, ?, ?, ?, ?, (SELECT ${this.steps.dialect.textParam} WHERE EXISTS (SELECT 1 FROM alerts WHERE
           id = ?)))
         ON CONFLICT (subscription_id, key) DO UPDATE SET fingerprint = excluded.fingerprint, status =
           excluded.status, body = excluded.body,
           created_at = excluded.created_at, alert_id = excluded.alert_id, secret = excluded.secret`,
        subscriptionId,
        key,
        fingerprint,
        status,
        body,
        at.toISOString(),
        alertId,
        secret === null ? null : this.box.seal(secret.secret),
        alertId,
      ),
    );
  }
}
