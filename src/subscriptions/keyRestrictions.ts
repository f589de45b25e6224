// What a key may do, from where, until when and how fast: its scopes, origins, IP ranges, expiry
// and per-key rate. A key without a restriction of a kind is not limited by that kind (a key with
// none does everything its subscription may, as every key did before restrictions existed).
// Checking a restriction set (for grants-admin and POST /keys alike), reading one back from the
// stores' JSON column, and comparing two sets ("at most the calling key's") live here.
import ipaddr from 'ipaddr.js';
import type { ErrorDetail } from '../failures.js';
import { MAX_RATE_LIMIT } from './tiers.js';

/** Every scope a key may carry, each naming what it opens. */
export const SCOPES = [
  'grants:search',
  'grants:read',
  'grants:changes',
  'grants:export',
  'alerts:read',
  'alerts:write',
  'subscription:read',
  'keys:manage',
] as const;
export type Scope = (typeof SCOPES)[number];

/** What each scope opens, one line (the guides and the OpenAPI document list them). */
export const SCOPE_MEANING: Record<Scope, string> = {
  'grants:search': 'GET /grants and /grants/filters (MCP: search_grants, list_filter_values)',
  'grants:read': 'GET /grants/{id} and GET /grants/{id}/history (MCP: get_grant, get_grant_history)',
  'grants:changes': 'GET /grants/changes (MCP: get_changes)',
  'grants:export': 'GET /grants/export',
  'alerts:read': 'GET /alerts and its sub-resources (MCP: list_alerts)',
  'alerts:write': 'POST, PATCH and DELETE on /alerts and its sub-resources (MCP: create_alert, delete_alert)',
  'subscription:read': 'GET /subscription/usage and /subscription/limits (MCP: get_usage)',
  'keys:manage': 'GET, POST /keys and DELETE /keys/{id}',
};

export const MAX_ORIGINS = 20;
export const MAX_ORIGIN_LENGTH = 200;
export const MAX_IP_RANGES = 50;
export const MAX_KEY_NAME = 100;
/** A key may be given an expiry at most this far ahead (10 years). */
export const MAX_EXPIRY_MS = 10 * 365 * 86_400_000;
/** `grants-admin key list` flags keys that expire within this. */
export const EXPIRY_WARNING_MS = 7 * 86_400_000;

export interface KeyRestrictions {
  /** The scopes the key may use; null: every scope. */
  scopes: Scope[] | null;
  /** The exact origins (scheme://host[:port]) a browser may call from; null: any. */
  origins: string[] | null;
  /** IPv4/IPv6 CIDR ranges the request must come from; null: any address. */
  ips: string[] | null;
  /** ISO instant after which the key is refused; null: never. */
  expiresAt: string | null;
  /** Requests per second for this key, inside the subscription's rate; null: the subscription's. */
  rateLimit: number | null;
}

export const NO_RESTRICTIONS: KeyRestrictions = Object.freeze({
  scopes: null,
  origins: null,
  ips: null,
  expiresAt: null,
  rateLimit: null,
});

/** Whether a key is restricted in no way (such a key can do everything its subscription can). */
export const isUnrestricted = (r: KeyRestrictions): boolean =>
  r.scopes === null && r.origins === null && r.ips === null && r.expiresAt === null && r.rateLimit === null;

/** The JSON the stores keep (null for a key without restrictions). */
export const restrictionsToColumn = (r: KeyRestrictions): string | null =>
  isUnrestricted(r) ? null : JSON.stringify(r);

/** A stored column back as restrictions (null or unreadable JSON never widens: unreadable refuses every scope). */
export function restrictionsFromColumn(text: string | null | undefined): KeyRestrictions {
  if (text === null || text === undefined || text === '') return NO_RESTRICTIONS;
  try {
    const r = JSON.parse(text) as Partial<KeyRestrictions>;
    return Object.freeze({
      scopes: Array.isArray(r.scopes)
        ? (r.scopes.filter((s) => (SCOPES as readonly string[]).includes(s)) as Scope[])
        : null,
      origins: Array.isArray(r.origins) ? r.origins.filter((o) => typeof o === 'string') : null,
      ips: Array.isArray(r.ips) ? r.ips.filter((o) => typeof o === 'string') : null,
      expiresAt: typeof r.expiresAt === 'string' ? r.expiresAt : null,
      rateLimit: typeof r.rateLimit === 'number' ? r.rateLimit : null,
    });
  } catch {
    return Object.freeze({ ...NO_RESTRICTIONS, scopes: [] });
  }
}

/** The input of a restriction set, as POST /keys and grants-admin receive it (undefined: not given). */
interface RestrictionInput {
  scopes?: unknown;
  origins?: unknown;
  ips?: unknown;
  expiresAt?: unknown;
  rateLimit?: unknown;
}

/** `origin` as it is written in an Origin header (scheme://host[:port], no path), or null. */
function exactOrigin(text: string): string | null {
  if (text.length > MAX_ORIGIN_LENGTH) return null;
  try {
    const url = new URL(text);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
    return url.origin === text ? text : null;
  } catch {
    return null;
  }
}

/** A CIDR range (or a single address, taken as /32 or /128) in its normal form (its network address), or null. */
export function normalCidr(text: string): string | null {
  if (text.length > 64) return null;
  const [address, bitsText, extra] = text.split('/');
  if (extra !== undefined || !(ipaddr.IPv4.isValidFourPartDecimal(address) || ipaddr.IPv6.isValid(address)))
    return null;
  const kind = ipaddr.parse(address).kind();
  const max = kind === 'ipv4' ? 32 : 128;
  const bits = bitsText === undefined ? max : /^\d{1,3}$/.test(bitsText) ? Number(bitsText) : NaN;
  if (!(bits >= 0 && bits <= max)) return null;
  const network =
    kind === 'ipv4'
      ? ipaddr.IPv4.networkAddressFromCIDR(`${address}/${bits}`)
      : ipaddr.IPv6.networkAddressFromCIDR(`${address}/${bits}`);
  return `${network.toString()}/${bits}`;
}

/** An address as ipaddr.js reads it, an IPv4-mapped IPv6 address as IPv4; null if it is none. */
function parseAddress(address: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  if (!ipaddr.isValid(address)) return null;
  return ipaddr.process(address);
}

/** Whether `address` lies in one of the CIDR ranges. */
export function inRanges(address: string, ranges: readonly string[]): boolean {
  const parsed = parseAddress(address);
  if (parsed === null) return false;
  return ranges.some((range) => {
    try {
      const cidr = ipaddr.parseCIDR(range);
      return cidr[0].kind() === parsed.kind() && parsed.match(cidr);
    } catch {
      return false;
    }
  });
}

/** Whether the range `inner` lies wholly inside one of `outer`. */
function rangeWithin(inner: string, outer: readonly string[]): boolean {
  const [address, bits] = ipaddr.parseCIDR(inner);
  return outer.some((range) => {
    const cidr = ipaddr.parseCIDR(range);
    return cidr[0].kind() === address.kind() && bits >= cidr[1] && address.match(cidr);
  });
}

function list(value: unknown, field: string, max: number, details: ErrorDetail[]): string[] | undefined {
  if (!Array.isArray(value) || value.length === 0 || value.length > max || value.some((v) => typeof v !== 'string')) {
    details.push({ parameter: field, message: `must be a list of 1 to ${max} strings` });
    return undefined;
  }
  return value as string[];
}

/**
 * Checks a restriction input; the restrictions (a kind not given: unrestricted) and every problem,
 * each named by its field. `now` bounds the expiry (it must lie ahead, at most ten years).
 */
export function checkRestrictions(
  input: RestrictionInput,
  now: Date,
): { restrictions: KeyRestrictions; problems: ErrorDetail[] } {
  const problems: ErrorDetail[] = [];
  const out: KeyRestrictions = { ...NO_RESTRICTIONS };
  if (input.scopes !== undefined) {
    const scopes = list(input.scopes, 'scopes', SCOPES.length, problems);
    if (scopes !== undefined) {
      const unknown = scopes.filter((s) => !(SCOPES as readonly string[]).includes(s));
      if (unknown.length > 0)
        problems.push({
          parameter: 'scopes',
          message:
            `must name scopes among ${SCOPES.join(', ')} (not ` +
            `${unknown.map((s) => `"${s.slice(0, 40)}"`).join(', ')})`,
        });
      else out.scopes = SCOPES.filter((s) => scopes.includes(s));
    }
  }
  if (input.origins !== undefined) {
    const origins = list(input.origins, 'origins', MAX_ORIGINS, problems);
    if (origins !== undefined) {
      const bad = origins.filter((o) => exactOrigin(o) === null);
      if (bad.length > 0)
        problems.push({
          parameter: 'origins',
          message:
            `must be exact origins such as https://partner.example (scheme, host and port only; not ` +
            `${bad.map((o) => `"${o.slice(0, 60)}"`).join(', ')})`,
        });
      else out.origins = [...new Set(origins)];
    }
  }
  if (input.ips !== undefined) {
    const ips = list(input.ips, 'ips', MAX_IP_RANGES, problems);
    if (ips !== undefined) {
      const normal = ips.map(normalCidr);
      const bad = ips.filter((_, i) => normal[i] === null);
      if (bad.length > 0)
        problems.push({
          parameter: 'ips',
          message:
            `must be IPv4 or IPv6 addresses or CIDR ranges such as 203.0.113.0/24 or 2001:db8::/32 (not ` +
            `${bad.map((o) => `"${o.slice(0, 60)}"`).join(', ')})`,
        });
      else out.ips = [...new Set(normal as string[])];
    }
  }
  if (input.expiresAt !== undefined) {
    const text = input.expiresAt;
    const at =
      typeof text === 'string' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/.test(text)
        ? Date.parse(text)
        : NaN;
    if (Number.isNaN(at))
      problems.push({
        parameter: 'expiresAt',
        message: 'must be an ISO 8601 date-time with a time zone, such as 2027-01-31T00:00:00Z',
      });
    else if (at <= now.getTime()) problems.push({ parameter: 'expiresAt', message: 'must lie in the future' });
    else if (at - now.getTime() > MAX_EXPIRY_MS)
      problems.push({ parameter: 'expiresAt', message: 'must lie at most ten years ahead' });
    else out.expiresAt = new Date(at).toISOString();
  }
  if (input.rateLimit !== undefined) {
    const n = input.rateLimit;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > MAX_RATE_LIMIT)
      problems.push({ parameter: 'rateLimit', message: `must be an integer from 1 to ${MAX_RATE_LIMIT}` });
    else out.rateLimit = n;
  }
  return { restrictions: Object.freeze(out), problems };
}

/**
 * `wanted` narrowed to what `caller` may hand on: a kind `wanted` leaves open takes the caller's
 * restriction. Returns the result and, for each kind `wanted` asks wider than the caller, a problem.
 */
export function withinCaller(
  wanted: KeyRestrictions,
  caller: KeyRestrictions,
): { restrictions: KeyRestrictions; wider: ErrorDetail[] } {
  const wider: ErrorDetail[] = [];
  const scopes = wanted.scopes ?? caller.scopes;
  if (caller.scopes !== null && wanted.scopes !== null) {
    const extra = wanted.scopes.filter((s) => !caller.scopes!.includes(s));
    if (extra.length > 0)
      wider.push({
        parameter: 'scopes',
        message: `may not include ${extra.join(', ')}: the calling key lacks ${extra.length === 1 ? 'it' : 'them'}`,
      });
  }
  const origins = wanted.origins ?? caller.origins;
  if (caller.origins !== null && wanted.origins !== null) {
    const extra = wanted.origins.filter((o) => !caller.origins!.includes(o));
    if (extra.length > 0)
      wider.push({
        parameter: 'origins',
        message: `may only list origins of the calling key (${caller.origins.join(', ')})`,
      });
  }
  const ips = wanted.ips ?? caller.ips;
  if (caller.ips !== null && wanted.ips !== null && !wanted.ips.every((r) => rangeWithin(r, caller.ips!))) {
    wider.push({ parameter: 'ips', message: `must lie within the calling key's ranges (${caller.ips.join(', ')})` });
  }
  const expiresAt = wanted.expiresAt ?? caller.expiresAt;
  if (caller.expiresAt !== null && wanted.expiresAt !== null && wanted.expiresAt > caller.expiresAt) {
    wider.push({
      parameter: 'expiresAt',
      message: `may not be later than the calling key's expiry (${caller.expiresAt})`,
    });
  }
  const rateLimit = wanted.rateLimit ?? caller.rateLimit;
  if (caller.rateLimit !== null && wanted.rateLimit !== null && wanted.rateLimit > caller.rateLimit) {
    wider.push({
      parameter: 'rateLimit',
      message: `may not exceed the calling key's rate (${caller.rateLimit} per second)`,
    });
  }
  return { restrictions: Object.freeze({ scopes, origins, ips, expiresAt, rateLimit }), wider };
}

/** Whether every right of `key` is also the caller's (a key may only manage keys no mightier than itself). */
export const isWithin = (key: KeyRestrictions, caller: KeyRestrictions): boolean =>
  withinCaller(key, caller).wider.length === 0 &&
  (caller.scopes === null || key.scopes !== null) &&
  (caller.origins === null || key.origins !== null) &&
  (caller.ips === null || key.ips !== null) &&
  (caller.expiresAt === null || key.expiresAt !== null) &&
  (caller.rateLimit === null || key.rateLimit !== null);

/** The scopes a key holds (every scope when unrestricted). */
export const hasScope = (r: KeyRestrictions, scope: Scope): boolean => r.scopes === null || r.scopes.includes(scope);

/** Whether the key's expiry has passed at `now`. */
export const isExpired = (r: KeyRestrictions, now: Date): boolean =>
  r.expiresAt !== null && Date.parse(r.expiresAt) <= now.getTime();

/** The origins listed by the working keys among stored rows (restrictions column, revocation), at `now`. */
export function listedOrigins(
  rows: readonly { restrictions: string | null; revoked_at: string | null }[],
  now: Date,
): ReadonlySet<string> {
  const origins = new Set<string>();
  for (const row of rows) {
    if (row.revoked_at !== null && row.revoked_at <= now.toISOString()) continue;
    const r = restrictionsFromColumn(row.restrictions);
    if (r.origins === null || isExpired(r, now)) continue;
    for (const origin of r.origins) origins.add(origin);
  }
  return origins;
}

/** How long the set of listed origins is kept before it is read again (at most). */
export const LISTED_ORIGINS_TTL_MS = 1000;
