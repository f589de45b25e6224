// A grant's history: the versions the indexer records when a run changes a grant, and the one
// definition of what changed between two versions of a grant (the diff the history, the changes
// feed and the alerts' events all carry). Pure.
import { GRANT_FIELDS, type Grant } from './grant.js';

/** What a version did to its grant. */
export const VERSION_TYPES = ['created', 'updated', 'deleted'] as const;
export type VersionType = (typeof VERSION_TYPES)[number];

/** One field an update changed: its value before and after (as the grant holds it: null when unknown). */
export interface FieldChange {
  field: keyof Grant;
  from: unknown;
  to: unknown;
}

/**
 * One version as an engine keeps it: its place in the change log's sequence, when, what, and the fields an update
 * changed (null otherwise).
 */
export interface GrantVersion {
  seq: number;
  changedAt: string;
  type: VersionType;
  changes: FieldChange[] | null;
}

/** One page of a grant's history as an engine reads it. */
export interface HistoryPage {
  /** False when neither the catalog nor the history holds the id. */
  known: boolean;
  /** Newest first: up to limit + 1 (one more says there are more). */
  versions: GrantVersion[];
}

/** A field's value as compared and reported: an absent field (a document stored before the field existed) is null. */
const valueOf = (grant: Partial<Grant>, field: keyof Grant): unknown => grant[field] ?? null;

/**
 * The fields whose values differ between two versions of one grant, in the order of the stored
 * document (GRANT_FIELDS), each with its value before and after. Values are compared as their
 * JSON (lists in their order, objects field by field).
 */
function diffGrants(before: Partial<Grant>, after: Partial<Grant>): FieldChange[] {
  const changes: FieldChange[] = [];
  for (const field of GRANT_FIELDS) {
    const from = valueOf(before, field);
    const to = valueOf(after, field);
    if (JSON.stringify(from) !== JSON.stringify(to)) changes.push({ field, from, to });
  }
  return changes;
}

/**
 * The version a change makes, from the grant before it (null: the catalog did not hold it) and
 * after it (null: removed); null when nothing about the grant changed.
 */
export function versionOf(
  before: Partial<Grant> | null,
  after: Partial<Grant> | null,
): Pick<GrantVersion, 'type' | 'changes'> | null {
  if (after === null) return before === null ? null : { type: 'deleted', changes: null };
  if (before === null) return { type: 'created', changes: null };
  const changes = diffGrants(before, after);
  return changes.length === 0 ? null : { type: 'updated', changes };
}

/** A version as served: when, what, and the fields an update changed. */
export const versionJson = (version: GrantVersion): string =>
  `{"changedAt":${JSON.stringify(version.changedAt)},"type":${JSON.stringify(version.type)},` +
  `"changes":${JSON.stringify(version.changes)}}`;
