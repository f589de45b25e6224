// The audit log: every change to a subscription or a key, whoever made it (a key through the API,
// an operator through grants-admin, the server itself for the demo subscription), when and from
// which address. Append-only (the stores refuse an UPDATE of it), kept as long as the usage log.
export interface AuditActor {
  /** A key id (a change made through the API), `admin` (grants-admin) or `system` (the server itself). */
  actor: string;
  /** The client address of an API call, the host grants-admin ran on; null when none applies. */
  address: string | null;
}

export const SYSTEM_ACTOR: AuditActor = Object.freeze({ actor: 'system', address: null });

export type AuditAction =
  | 'subscription.create'
  | 'subscription.set-status'
  | 'subscription.set-limits'
  | 'subscription.set-feature'
  | 'key.create'
  | 'key.revoke'
  | 'key.rotate';

export interface AuditEntry {
  at: string;
  subscriptionId: string | null;
  actor: string;
  address: string | null;
  action: AuditAction;
  /** The key or subscription changed. */
  target: string;
  /** What changed (never a key or a secret). */
  details: Record<string, unknown> | null;
}

export interface AuditQuery {
  subscriptionId?: string;
  /** ISO instant: entries at or after it. */
  since?: string;
  limit: number;
}

/** The row both stores hold, as the port returns it. */
export const auditFromRow = (row: Record<string, unknown>): AuditEntry => ({
  at: row.at as string,
  subscriptionId: (row.subscription_id as string | null) ?? null,
  actor: row.actor as string,
  address: (row.address as string | null) ?? null,
  action: row.action as AuditAction,
  target: row.target as string,
  details: typeof row.details === 'string' ? (JSON.parse(row.details) as Record<string, unknown>) : null,
});
