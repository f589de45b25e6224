// grants-admin key …: create a subscription's keys with their restrictions, list, rotate and revoke them.
import {
  checkRestrictions,
  EXPIRY_WARNING_MS,
  isUnrestricted,
  SCOPES,
  type KeyRestrictions,
} from '../../subscriptions/keyRestrictions.js';
import type { ApiKeyInfo } from '../../subscriptions/port.js';
import { MAX_RATE_LIMIT, rateLimitOf } from '../../subscriptions/tiers.js';
import { jsonForTerminal, terminal } from '../../terminalText.js';
import { CliExit, UsageError, type Command, type Io } from '../runner.js';
import { instantArg, listArg, positiveInt } from './arguments.js';
import { ADMIN, COMMON, EXIT, JSON_OPTIONS, mustExist, usage, type Session } from './session.js';

/** The longest grace period a rotated key may keep working: 30 days. */
const MAX_GRACE_SECONDS = 30 * 86_400;
/** The command-line option of a restriction parameter whose name differs from it. */
const OPTION_OF: Record<string, string> = { expiresAt: 'expires', rateLimit: 'rate-limit' };

/** A key's restrictions in a few words. */
function restrictionWords(r: KeyRestrictions): string {
  if (isUnrestricted(r)) return 'unrestricted';
  const parts: string[] = [];
  if (r.scopes !== null) parts.push(`scopes ${r.scopes.join(',')}`);
  if (r.origins !== null) parts.push(`origins ${r.origins.join(',')}`);
  if (r.ips !== null) parts.push(`ips ${r.ips.join(',')}`);
  if (r.rateLimit !== null) parts.push(`${r.rateLimit}/s`);
  if (r.expiresAt !== null) parts.push(`expires ${r.expiresAt}`);
  return parts.join('; ');
}

/** EXPIRED, EXPIRES SOON (within a week) or nothing. */
function expiryFlag(r: KeyRestrictions, now: number): string {
  if (r.expiresAt === null) return '';
  const at = Date.parse(r.expiresAt);
  return at <= now ? '  EXPIRED' : at - now <= EXPIRY_WARNING_MS ? '  EXPIRES SOON' : '';
}

/** One line of a key: id, prefix, name, created, last use, restrictions (when it has any), flags. */
export const keyLine = (k: ApiKeyInfo, now: Date): string =>
  terminal`${k.id}  ${k.prefix}…` +
  (k.name === null ? '' : terminal`  "${k.name}"`) +
  terminal`  created ${k.createdAt}  last used ${k.lastUsedAt ?? 'never'}` +
  (isUnrestricted(k.restrictions) ? '' : terminal`  ${restrictionWords(k.restrictions)}`) +
  `${expiryFlag(k.restrictions, now.getTime())}${revocation(k.revokedAt, now.toISOString())}`;

/**
 * A key's revocation as a word: '' while it works, "REVOKED FROM <time>" during a rotation's grace, else "REVOKED
 * <time>".
 */
const revocation = (at: string | null, now: string) =>
  at === null ? '' : at > now ? `  REVOKED FROM ${at}` : `  REVOKED ${at}`;

/** grants-admin's key commands, on the stores of `session`, printing to `io`. */
export function keyCommands(session: Session, io: Io): Command[] {
  return [
    {
      name: 'key create',
      usage: usage(
        'key create SUBSCRIPTION_ID [--name NAME] [--scopes S,S] [--origins O,O] [--ips CIDR,CIDR] [--expires ' +
          'ISO|Nd|Nh] [--rate-limit N] [--json]',
        `A new key for the subscription, printed once (--json: subscriptionId, keyId, apiKey, restrictions).
Without restrictions the key can do everything the subscription can. Each one given narrows it:
  --scopes      what it may call: ${SCOPES.join(', ')}
  --origins     the exact origins (https://partner.example) a browser may call from
  --ips         the IPv4/IPv6 addresses or CIDR ranges it may be used from
  --expires     when it stops working: an ISO 8601 instant, or 30d, 12h, 45m from now
  --rate-limit  its own requests per second, at most the subscription's rate`,
      ),
      options: {
        ...JSON_OPTIONS,
        name: 'string',
        scopes: 'string',
        origins: 'string',
        ips: 'string',
        expires: 'string',
        'rate-limit': 'string',
      },
      args: ['SUBSCRIPTION_ID'],
      run: async ({ values, args: [id] }) => {
        const name = typeof values.name === 'string' ? values.name.trim() : undefined;
        if (name !== undefined && (name === '' || name.length > 100))
          throw new UsageError('--name must be 1 to 100 characters');
        const rateLimit = positiveInt('--rate-limit', values['rate-limit'], MAX_RATE_LIMIT, false);
        const { restrictions, problems } = checkRestrictions(
          {
            scopes: listArg(values.scopes),
            origins: listArg(values.origins),
            ips: listArg(values.ips),
            expiresAt: instantArg('--expires', values.expires, 1),
            rateLimit: rateLimit ?? undefined,
          },
          new Date(),
        );
        if (problems.length > 0)
          throw new UsageError(
            problems.map((p) => `--${OPTION_OF[p.parameter] ?? p.parameter} ${p.message}`).join('; '),
          );
        const { store } = await session.open(values, false);
        const s = await mustExist(store, id);
        if (restrictions.rateLimit !== null && restrictions.rateLimit > rateLimitOf(s)) {
          throw new UsageError(`--rate-limit may not exceed the subscription's rate (${rateLimitOf(s)} per second)`);
        }
        const { keyId, apiKey } = await store.createKey(id, undefined, { name: name ?? null, restrictions }, ADMIN);
        if (values.json) io.out(jsonForTerminal({ subscriptionId: id, keyId, apiKey, restrictions }));
        else
          io.out(
            `API key ${keyId} for ${id} ` +
              `(${isUnrestricted(restrictions) ? '' : `${restrictionWords(restrictions)}; `}shown only now; ` +
              `store it safely):\n  ${apiKey}`,
          );
        return EXIT.ok;
      },
    },
    {
      name: 'key list',
      usage: usage(
        'key list SUBSCRIPTION_ID [--json]',
        "The subscription's keys: id, prefix, name, created, last used, restrictions, and when revoked (or " +
          'when a rotated\nkey stops working). Keys that expire within 7 days are flagged EXPIRES SOON, those ' +
          'past their expiry EXPIRED.',
      ),
      options: JSON_OPTIONS,
      args: ['SUBSCRIPTION_ID'],
      run: async ({ values, args: [id] }) => {
        const { store } = await session.open(values, false);
        await mustExist(store, id);
        const keys = await store.listKeys(id);
        const now = new Date();
        if (values.json) {
          io.out(
            jsonForTerminal(
              keys.map((k) => ({
                ...k,
                expiresSoon: expiryFlag(k.restrictions, now.getTime()) === '  EXPIRES SOON',
                expired: expiryFlag(k.restrictions, now.getTime()) === '  EXPIRED',
              })),
            ),
          );
        } else for (const k of keys) io.out(keyLine(k, now));
        return EXIT.ok;
      },
    },
    {
      name: 'key rotate',
      usage: usage(
        'key rotate KEY_ID [--grace SECONDS] [--json]',
        `Creates a new key for the key's subscription (printed once) and revokes the old key in the same
step: at once, or with --grace SECONDS (0 to ${MAX_GRACE_SECONDS}) that many seconds later, so the
partner can switch without a gap. --json: subscriptionId, keyId, apiKey, oldKeyId, oldKeyRevokedAt.`,
      ),
      options: { ...JSON_OPTIONS, grace: 'string' },
      args: ['KEY_ID'],
      run: async ({ values, args: [keyId] }) => {
        const grace = values.grace;
        if (
          grace !== undefined &&
          (typeof grace !== 'string' || !/^\d{1,8}$/.test(grace) || Number(grace) > MAX_GRACE_SECONDS)
        ) {
          throw new UsageError(
            `--grace must be a number of seconds from 0 to ${MAX_GRACE_SECONDS}, not "${String(grace)}"`,
          );
        }
        const { store } = await session.open(values, false);
        const key = await store.getKey(keyId);
        if (key === null) throw new CliExit(`no key has the id "${keyId}"`, EXIT.notFound);
        const rotated = await store.rotateKey(keyId, grace === undefined ? 0 : Number(grace), ADMIN);
        if (rotated === null)
          throw new CliExit(
            `key ${keyId} was already revoked at ${key.revokedAt}; use "key create ${key.subscriptionId}" ` +
              `for a new one`,
            EXIT.notFound,
          );
        if (values.json) {
          io.out(
            jsonForTerminal({
              subscriptionId: rotated.subscriptionId,
              keyId: rotated.keyId,
              apiKey: rotated.apiKey,
              oldKeyId: keyId,
              oldKeyRevokedAt: rotated.oldKeyRevokedAt,
            }),
          );
        } else {
          io.out(
            `API key ${rotated.keyId} for ${rotated.subscriptionId} (shown only now; store it safely):\n  ` +
              `${rotated.apiKey}`,
          );
          io.out(
            grace === undefined || grace === '0'
              ? `key ${keyId} revoked`
              : `key ${keyId} stays valid until ${rotated.oldKeyRevokedAt}, then is revoked`,
          );
        }
        return EXIT.ok;
      },
    },
    {
      name: 'key revoke',
      usage: usage(
        'key revoke KEY_ID [--force]',
        `Revokes the key at once: the API refuses it from its next request. Revoking the last active key
of a subscription locks its partner out, so it needs --force (or use "key rotate").`,
      ),
      options: { ...COMMON, force: 'boolean' },
      args: ['KEY_ID'],
      run: async ({ values, args: [keyId] }) => {
        const { store } = await session.open(values, false);
        const key = await store.getKey(keyId);
        if (key === null) throw new CliExit(`no key has the id "${keyId}"`, EXIT.notFound);
        if (key.revokedAt === null && !values.force && (await store.lastingKeys(key.subscriptionId)) === 1) {
          throw new UsageError(
            `key ${keyId} is the last active key of ${key.subscriptionId}: revoking it locks the partner ` +
              `out; add --force, or use "key rotate ${keyId}"`,
          );
        }
        if (!(await store.revokeKey(keyId, ADMIN))) {
          io.out(`key ${keyId} was already revoked at ${key.revokedAt}`);
          return EXIT.ok;
        }
        io.out(`key ${keyId} revoked`);
        return EXIT.ok;
      },
    },
  ];
}
