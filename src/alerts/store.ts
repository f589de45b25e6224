// The alerts store port: alerts, what each told its partner, the outbox of webhook messages and
// the matcher's position, whatever holds them. Two adapters implement it on the subscriptions
// database, SQLite (sqlite/alertStore.ts, the embedded default) and PostgreSQL
// (postgres/alertStore.ts), over what they share (sqlAlertStore.ts); methods answer with promises.
import type { Alert, AlertChanges, AttemptResult, Delivery, DeliveryStatus, MessageType, NewAlert } from './model.js';

/** A place in a newest-first list: the createdAt and id of the last item seen. */
export interface ListPosition {
  createdAt: string;
  id: string;
}

/** The matcher's place in the catalog's change log. */
export interface MatcherPosition {
  log: string | null;
  seq: number;
}

/** An alert as the matcher reads it. */
export interface MatchableAlert extends Alert {
  /** The matcher's position when the alert was created: it reacts to changes after it. */
  fromSeq: number;
}

/** What an alert told its partner about one grant. */
export interface ToldGrant {
  alertId: string;
  grantId: string;
  deadline: string | null;
  remindedDeadline: string | null;
  /** The grant's opensAt when it was told (grant.opened is sent when it comes). */
  opensAt: string | null;
  /** The opensAt whose grant.opened was sent (or that had passed when the grant was told): not sent again for it. */
  openedOpensAt: string | null;
}

/** A message to put in the outbox. */
export interface NewMessage {
  alertId: string;
  grantId: string | null;
  type: MessageType;
  payload: string;
}

/** One batch of the matcher's work, committed at once. */
export interface MatchedBatch {
  /**
   * The position the batch was read from: the commit happens only if the matcher is still there (no other matcher moved
   * it).
   */
  from: MatcherPosition;
  position: MatcherPosition;
  messages: NewMessage[];
  /** Grants an alert now follows (inserted or updated). */
  told: ToldGrant[];
  /** Grants an alert no longer follows. */
  forgotten: { alertId: string; grantId: string }[];
}

/** A message due for an attempt, with what the deliverer needs to send it. */
export interface DueMessage {
  id: string;
  alertId: string;
  grantId: string | null;
  payload: string;
  attempts: number;
  createdAt: string;
  url: string;
  /** The secrets to sign with, in clear: the current one, and the previous one during a rotation's overlap. */
  secrets: string[];
}

export interface AlertStore {
  count(subscriptionId: string): Promise<number>;
  /** The operator's override of the number of alerts, or null for the tier's. */
  limitOverride(subscriptionId: string): Promise<number | null>;
  /**
   * Creates an alert unless the subscription already holds `max`: null then. The count and the
   * insert are one transaction that excludes any other creation for the subscription, so
   * simultaneous creations never pass the limit.
   */
  create(subscriptionId: string, input: NewAlert, secret: string, at: Date, max: number): Promise<Alert | null>;
  list(subscriptionId: string | null, after: ListPosition | null, limit: number): Promise<Alert[]>;
  get(subscriptionId: string | null, id: string): Promise<Alert | null>;
  update(subscriptionId: string | null, id: string, changes: AlertChanges, at: Date): Promise<Alert | null>;
  delete(subscriptionId: string, id: string): Promise<boolean>;
  rotateSecret(subscriptionId: string, id: string, secret: string, at: Date, overlapMs: number): Promise<boolean>;
  /** Puts a message straight into the outbox (alert.test). */
  enqueue(message: NewMessage, at: Date): Promise<Delivery>;
  deliveries(alertId: string, after: ListPosition | null, limit: number): Promise<Delivery[]>;
  getDelivery(alertId: string, deliveryId: string): Promise<Delivery | null>;
  /** Makes a message due again now (same id); null when the alert holds no such message. */
  retry(alertId: string, deliveryId: string, at: Date): Promise<Delivery | null>;

  matcherPosition(): Promise<MatcherPosition>;
  /**
   * Takes or renews the matcher's lease for `holder` (one matcher at a time in a fleet); true when
   * `holder` holds it for the next `ttlMs`. A holder that dies loses it when the lease runs out.
   */
  tryLease(holder: string, ttlMs: number): Promise<boolean>;
  /** Every alert, whatever its status (a paused alert's events wait in the outbox). */
  matchableAlerts(): Promise<MatchableAlert[]>;
  /** Changes whenever an alert is created, changed or deleted: the matcher reads the alerts again only then. */
  alertsVersion(): Promise<string>;
  told(grantIds: readonly string[]): Promise<ToldGrant[]>;
  /**
   * Writes the batch's messages and told grants and moves the position, all or nothing; false when the position had
   * moved (another matcher's batch won).
   */
  commitBatch(batch: MatchedBatch, at: Date): Promise<boolean>;
  /**
   * Followed grants whose deadline falls within their alert's reminder days of `at`, not yet reminded for that
   * deadline.
   */
  dueReminders(at: Date): Promise<ToldGrant[]>;
  commitReminders(messages: NewMessage[], reminded: ToldGrant[], at: Date): Promise<void>;
  /** Followed grants whose opensAt has come by `at`, grant.opened not yet sent for that opensAt. */
  dueOpenings(at: Date): Promise<ToldGrant[]>;
  /** Writes the grant.opened messages and marks each grant's opensAt as announced, in one transaction. */
  commitOpenings(messages: NewMessage[], opened: ToldGrant[], at: Date): Promise<void>;

  /**
   * Claims messages due at `at` for `claimMs` (the earliest pending one per alert and grant, of
   * active alerts of active subscriptions, not claimed by anyone): no other deliverer takes them
   * until the claim runs out, which it does only if this one dies mid-attempt.
   */
  claimDue(at: Date, limit: number, claimMs: number): Promise<DueMessage[]>;
  /** Gives claimed messages that were not attempted back at once (a deliverer stopping, or holding them too long). */
  releaseClaims(messageIds: readonly string[]): Promise<void>;
  /**
   * Records an attempt; `next` is the next attempt's time, or null when the message is finished. Disables the alert
   * after a run of failures.
   */
  /**
   * Records attempts in one transaction: each message's outcome and next attempt; an alert whose
   * last `disableAfter` finished messages all FAILED becomes DISABLED.
   */
  recordAttempts(records: readonly AttemptRecord[], disableAfter: number): Promise<void>;
  /** Re-seals every signing secret (current and previous) with `box`, in one transaction; returns how many alerts. */
  resealSecrets(box: { open(sealed: string): string; seal(plain: string): string }): Promise<number>;
  /** Messages waiting (PENDING), for the metrics. */
  outboxDepth(): Promise<number>;

  /** The answer kept for an Idempotency-Key (within `sinceIso`), or null. */
  idempotent(subscriptionId: string, key: string, sinceIso: string): Promise<KeptAnswer | null>;
  /**
   * Keeps an answer for an Idempotency-Key. `body` holds no secret: the signing secret the answer
   * carried, if any, comes apart in `secret` and is kept sealed, until its alert is deleted.
   */
  rememberIdempotent(
    subscriptionId: string,
    key: string,
    fingerprint: string,
    status: number,
    body: string,
    at: Date,
    secret: AnswerSecret | null,
  ): Promise<void>;
}

/** The signing secret an answer carried, and the alert it belongs to. */
export interface AnswerSecret {
  alertId: string;
  secret: string;
}

/** An answer kept for an Idempotency-Key. */
export interface KeptAnswer {
  fingerprint: string;
  status: number;
  /** The answer without its secret. */
  body: string;
  /** The alert whose secret the answer carried; null when it carried none. */
  alertId: string | null;
  /** That secret, opened; null when it carried none or the alert has been deleted since. */
  secret: string | null;
}

/** One attempt's outcome, to record. */
export interface AttemptRecord {
  messageId: string;
  result: AttemptResult;
  next: { status: DeliveryStatus; nextAttemptAt: string | null };
}
