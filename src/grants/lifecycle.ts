// A grant's lifecycle: its status at a given time, derived from `opensAt` and `deadline`, never
// stored (a status would go stale the moment a date passes). FORECASTED until `opensAt`, OPEN
// from then until `deadline` (inclusive), CLOSED after it. The indexer refuses an `opensAt` after
// the `deadline`, so the three never overlap. Pure.
import type { GrantStatus } from './schema.js';

/** A grant's status at `now` (epoch milliseconds), from its dates as epoch milliseconds (null: none). */
export function statusAt(opensAt: number | null, deadline: number | null, now: number): GrantStatus {
  if (deadline !== null && deadline < now) return 'CLOSED';
  if (opensAt !== null && opensAt > now) return 'FORECASTED';
  return 'OPEN';
}

// `undefined` too: a document stored before grants had `opensAt` lacks the field.
const epoch = (iso: string | null | undefined): number | null =>
  iso === null || iso === undefined ? null : Date.parse(iso);

/** A grant's status at `now`, from its dates as the catalog holds them (ISO 8601 UTC; an absent `opensAt` is null). */
export const grantStatus = (grant: { opensAt: string | null; deadline: string | null }, now: number): GrantStatus =>
  statusAt(epoch(grant.opensAt), epoch(grant.deadline), now);

/**
 * A date field's value in a grant's JSON text, read without parsing the rest: `,"name":` outside a
 * string can only be the field itself (inside a JSON string every quote is escaped), and a date
 * is null or a quoted instant. Undefined when the text has no such field.
 */
function dateIn(json: string, name: string): string | null | undefined {
  const at = json.lastIndexOf(`,"${name}":`);
  if (at < 0) return undefined;
  const start = at + name.length + 4;
  if (json.startsWith('null', start)) return null;
  return json.slice(start + 1, json.indexOf('"', start + 1));
}

/**
 * A stored grant's JSON text as served at `now`: the same text with `"status"` added last
 * (before the closing brace), so the search path splices it without a parse and re-serialisation.
 * A document stored before grants had `opensAt` gains `"opensAt":null` in its place (before `deadline`).
 */
export function servedGrantJson(json: string, now: number): string {
  const opensAt = dateIn(json, 'opensAt');
  const deadline = dateIn(json, 'deadline') ?? null;
  const status = grantStatus({ opensAt: opensAt ?? null, deadline }, now);
  let text = json.slice(0, json.lastIndexOf('}'));
  if (opensAt === undefined) {
    const at = text.lastIndexOf(',"deadline":');
    if (at >= 0) text = `${text.slice(0, at)},"opensAt":null${text.slice(at)}`;
  }
  return `${text},"status":"${status}"}`;
}
