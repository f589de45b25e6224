// grants-admin: subscriptions and API keys, on the same DATA_DIR as the API.
import { mkdirSync } from 'node:fs';
import { hostname } from 'node:os';
import { loadConfig } from '../config.js';
import type { Feature } from '../subscriptions/tiers.js';
import { subscriptionsPath } from '../subscriptions/sqlite/database.js';
import { createLogger } from '../log.js';
import { monthKey } from '../subscriptions/month.js';
import { openStore } from '../subscriptions/openStore.js';
import { sqliteStoreExists } from '../subscriptions/sqlite/store.js';
import type { ApiKeyInfo, SubscriptionRecords, SubscriptionsStore } from '../subscriptions/store.js';
import type { AuditActor } from '../subscriptions/audit.js';
import { checkRestrictions, EXPIRY_WARNING_MS, isUnrestricted, SCOPES, type KeyRestrictions } from '../subscriptions/keyRestrictions.js';
import { migrateSqliteToPostgres, NoSqliteDatabaseError, TargetNotEmptyError, type CopyCounts } from '../subscriptions/sqliteToPostgres.js';
import {
  FEATURES,
  MAX_MONTHLY_LIMIT,
  MAX_RATE_LIMIT,
  monthlyLimitOf,
  rateLimitOf,
  STATUSES,
  TIERS,
  type Status,
  type Subscription,
  type Tier,
} from '../subscriptions/tiers.js';
import { rotateDataDirKey, SecretBox } from '../alerts/secrets.js';
import { SqliteAlertStore } from '../alerts/sqlite/alertStore.js';
import { PgAlertStore } from '../alerts/postgres/alertStore.js';
import type { PgStore } from '../subscriptions/postgres/store.js';
import type { SqliteStore } from '../subscriptions/sqlite/store.js';
import { alertCommands } from './alertCommands.js';
import { CliExit, noDatabase, runCli, stdio, UsageError, withOverrides, type Command, type Io, type ParsedArgs } from './runner.js';
import { jsonForTerminal, terminal } from '../terminalText.js';

export type { Io } from './runner.js';

export const EXIT = { ok: 0, notFound: 1, usage: 2, failed: 3 } as const;

/** The longest grace period a rotated key may keep working: 30 days. */
export const MAX_GRACE_SECONDS = 30 * 86_400;

const HELP = `Usage: grants-admin <command> [options]     (DATABASE_URL, else DATA_DIR or --data-dir, selects the database)

Subscriptions:
  subscription create --name NAME --tier STARTER|PROFESSIONAL|ENTERPRISE
                      [--monthly-limit N] [--rate-limit N] [--json]
                                  create a subscription and its first key (printed once)
  subscription list [--json]
  subscription show ID [--json]   details, keys and this month's billable calls
  subscription set-status ID ACTIVE|SUSPENDED|CANCELLED
  subscription set-limits ID [--monthly-limit N|default] [--rate-limit N|default]
  subscription set-feature ID grants.search|grants.read|grants.export|subscription.read|alerts.manage on|off

Keys:
  key create SUBSCRIPTION_ID [--name NAME] [--scopes S,S] [--origins O,O] [--ips CIDR,CIDR]
             [--expires ISO|Nd|Nh] [--rate-limit N] [--json]
                                        a new key for the subscription (printed once), with
                                        the restrictions given (none: it can do everything)
  key list SUBSCRIPTION_ID [--json]     its keys and restrictions; EXPIRES SOON / EXPIRED flags
  key rotate KEY_ID [--grace SECONDS] [--json]
                                        a new key, and the old one revoked (after SECONDS)
  key revoke KEY_ID [--force]           takes effect on the next request; --force to revoke
                                        a subscription's last active key

Alerts:
  alerts list [--subscription ID] [--json]
  alerts show ID [--json]               the alert and its latest deliveries
  alerts pause ID                       holds its deliveries until the partner resumes it

Audit:
  audit [--subscription ID] [--since ISO|Nd|Nh] [--limit N] [--json]
                                        every change to subscriptions and keys, oldest first:
                                        when, who (a key id, admin or system), what, from where

Secrets:
  secrets rotate                        re-seals the webhook signing secrets under a new key

Database:
  migrate                               applies the schema migrations not applied yet (the API
                                        also runs them at start-up) and prints the version
  migrate-from-sqlite --data-dir DIR    copies DIR/subscriptions.sqlite (subscriptions, keys,
                                        monthly records, usage, audit log) into the empty
                                        PostgreSQL database of DATABASE_URL, in one transaction

Tier and status words may be written in any case. Every command takes --data-dir DIR and
--help. Only "subscription create" and "migrate" create the SQLite database (and DATA_DIR) when
it is missing; every other command needs it. With DATABASE_URL set, every command works on that
PostgreSQL database instead.

Exit codes: 0 done; 1 unknown subscription or key, or no database; 2 bad usage or value;
3 the command failed (the database cannot be read or written, or migrate-from-sqlite's target
is not empty). Changes take effect on a running API at its next request.`;

const usage = (synopsis: string, text: string) => `Usage: grants-admin ${synopsis} [--data-dir DIR]\n\n${text}`;

/** A whole number from 1 to max (or "default" → null, where allowed); our own message otherwise. */
function positiveInt(name: string, raw: string | true | undefined, max: number, allowDefault: boolean): number | null | undefined {
  if (raw === undefined) return undefined;
  if (allowDefault && raw === 'default') return null;
  if (typeof raw !== 'string' || !/^\d{1,12}$/.test(raw) || Number(raw) < 1 || Number(raw) > max) {
    throw new UsageError(`${name} must be an integer from 1 to ${max}${allowDefault ? ' (or "default")' : ''}, not "${String(raw)}"`);
  }
  return Number(raw);
}

/** One of the allowed words; tier and status words are matched in any case. */
function oneOf<T extends string>(what: string, raw: string | true | undefined, values: readonly T[], anyCase = false): T {
  const given = typeof raw === 'string' ? (anyCase ? raw.toUpperCase() : raw) : undefined;
  if (given === undefined || !(values as readonly string[]).includes(given)) {
    throw new UsageError(`${what} must be one of ${values.join(', ')}${typeof raw === 'string' ? `, not "${raw}"` : ''}`);
  }
  return given as T;
}

const describe = (s: Subscription) => ({
  id: s.id,
  name: s.name,
  tier: s.tier,
  status: s.status,
  monthlyLimit: monthlyLimitOf(s),
  rateLimit: rateLimitOf(s),
  monthlyLimitOverride: s.monthlyLimitOverride,
  rateLimitOverride: s.rateLimitOverride,
  features: s.features,
  createdAt: s.createdAt,
});

type Shown = ReturnType<typeof describe> & { month: string; billableCallsThisMonth: number; keys: Awaited<ReturnType<SubscriptionRecords['listKeys']>> };

/** Who grants-admin is in the audit log: an operator, on this host. */
const ADMIN: AuditActor = Object.freeze({ actor: 'admin', address: hostname() });

/** An instant given as ISO 8601 or as a duration from now (30d, 12h, 45m); ahead (expiry) or back (since). */
function instantArg(name: string, raw: string | true | undefined, direction: 1 | -1): string | undefined {
  if (raw === undefined) return undefined;
  const text = typeof raw === 'string' ? raw.trim() : '';
  const relative = /^(\d{1,6})([dhm])$/.exec(text);
  if (relative !== null) {
    const unit = { d: 86_400_000, h: 3_600_000, m: 60_000 }[relative[2] as 'd' | 'h' | 'm'];
    return new Date(Date.now() + direction * Number(relative[1]) * unit).toISOString();
  }
  const at = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2}))?$/.test(text) ? Date.parse(text) : NaN;
  if (Number.isNaN(at)) throw new UsageError(`${name} must be an ISO 8601 instant (2027-01-31T00:00:00Z, or a date) or a duration such as 30d, 12h or 45m, not "${text}"`);
  return new Date(at).toISOString();
}

const listArg = (raw: string | true | undefined): string[] | undefined =>
  typeof raw === 'string' ? raw.split(',').map((v) => v.trim()).filter((v) => v !== '') : raw === true ? [] : undefined;

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
const keyLine = (k: ApiKeyInfo, now: Date): string =>
  terminal`${k.id}  ${k.prefix}…` +
  (k.name === null ? '' : terminal`  "${k.name}"`) +
  terminal`  created ${k.createdAt}  last used ${k.lastUsedAt ?? 'never'}` +
  (isUnrestricted(k.restrictions) ? '' : terminal`  ${restrictionWords(k.restrictions)}`) +
  `${expiryFlag(k.restrictions, now.getTime())}${revocation(k.revokedAt, now.toISOString())}`;

/** A key's revocation as a word: '' while it works, "REVOKED FROM <time>" during a rotation's grace, else "REVOKED <time>". */
const revocation = (at: string | null, now: string) => (at === null ? '' : at > now ? `  REVOKED FROM ${at}` : `  REVOKED ${at}`);

/** `subscription show` for a person: one labelled line per fact, then one line per key. */
function summary(shown: Shown, now: string): string[] {
  const source = (override: number | null) => (override === null ? 'tier default' : 'override');
  const features = FEATURES.map((f) => `${f} ${shown.features[f] ? 'on' : 'off'}`).join(', ');
  const lines = [
    terminal`${shown.id}  ${shown.name}`,
    `  tier           ${shown.tier}`,
    `  status         ${shown.status}`,
    `  rate limit     ${shown.rateLimit}/s (${source(shown.rateLimitOverride)})`,
    `  monthly limit  ${shown.monthlyLimit} (${source(shown.monthlyLimitOverride)})`,
    `  this month     ${shown.billableCallsThisMonth} billable calls in ${shown.month}, ${Math.max(0, shown.monthlyLimit - shown.billableCallsThisMonth)} left`,
    `  features       ${features}`,
    `  created        ${shown.createdAt}`,
    `  keys           ${shown.keys.length === 0 ? 'none' : shown.keys.length}`,
  ];
  for (const k of shown.keys) lines.push(`    ${keyLine(k, new Date(now))}`);
  return lines;
}

/** The store of this run (PostgreSQL with DATABASE_URL, else SQLite in DATA_DIR), opened only when a command needs it. */
class Session {
  opened: SubscriptionsStore | undefined;
  constructor(readonly env: NodeJS.ProcessEnv) {}

  /** Opens the store; `create` makes the SQLite database (and DATA_DIR) when missing, otherwise a missing one is an error. */
  async open(values: ParsedArgs['values'], create: boolean): Promise<{ store: SubscriptionRecords; opened: SubscriptionsStore }> {
    const config = loadConfig(withOverrides(this.env, values));
    if (config.databaseUrl === null) {
      if (!create && !sqliteStoreExists(config.dataDir)) throw new CliExit(noDatabase(subscriptionsPath(config.dataDir)), EXIT.notFound);
      if (create) mkdirSync(config.dataDir, { recursive: true });
    }
    this.opened = await openStore(config, createLogger('silent'), { listen: false });
    return { store: this.opened.subscriptions, opened: this.opened };
  }

  async close(): Promise<void> {
    await this.opened?.close();
  }
}

async function mustExist(store: SubscriptionRecords, id: string): Promise<Subscription> {
  const found = await store.get(id);
  if (found === null) throw new CliExit(`no subscription has the id "${id}"`, EXIT.notFound);
  return found;
}

function commands(session: Session, io: Io): Command[] {
  const common = { 'data-dir': 'string' } as const;
  const json = { ...common, json: 'boolean' } as const;
  const openAlerts = async (values: ParsedArgs['values']) => {
    const { opened } = await session.open(values, false);
    const config = loadConfig(withOverrides(session.env, values));
    if (opened.kind !== 'sqlite' && config.alerts.secretsKey === null) throw new CliExit('with DATABASE_URL, set SECRETS_KEY (the API instances\' key) to work on alerts', EXIT.usage);
    const box = config.alerts.secretsKey === null ? SecretBox.inDataDir(config.dataDir).box : SecretBox.fromKeys(config.alerts.secretsKey, ...config.alerts.secretsKeyPrevious);
    const store = opened.kind === 'sqlite' ? new SqliteAlertStore((opened as SqliteStore).db, box) : new PgAlertStore((opened as PgStore).pool, box);
    return { store, config };
  };
  return [
    ...alertCommands(async (values) => (await openAlerts(values)).store, io, EXIT.notFound),
    {
      name: 'secrets rotate',
      usage: usage(
        'secrets rotate',
        'Re-seals every webhook signing secret under a new key, in one transaction. Embedded default: a new\n' +
          'DATA_DIR/secrets.key is made (the old one kept as secrets.key.previous). With SECRETS_KEY: set it to\n' +
          'the new key and SECRETS_KEY_PREVIOUS to the old one, on the instances and here, then run this; after it\n' +
          'SECRETS_KEY_PREVIOUS may be removed. Prints how many alerts were re-sealed, never a key or a secret.',
      ),
      options: { 'data-dir': 'string' },
      run: async ({ values }) => {
        const { store, config } = await openAlerts(values);
        const count =
          config.alerts.secretsKey === null
            ? await rotateDataDirKey(config.dataDir, (box) => store.resealSecrets(box))
            : await store.resealSecrets(SecretBox.fromKeys(config.alerts.secretsKey, ...config.alerts.secretsKeyPrevious));
        io.out(`re-sealed the signing secrets of ${count} alert${count === 1 ? '' : 's'} under the ${config.alerts.secretsKey === null ? 'new DATA_DIR/secrets.key' : 'SECRETS_KEY'}`);
        return EXIT.ok;
      },
    },
    {
      name: 'subscription create',
      usage: usage(
        'subscription create --name NAME --tier STARTER|PROFESSIONAL|ENTERPRISE [--monthly-limit N] [--rate-limit N] [--json]',
        'Creates an ACTIVE subscription and its first API key, printed once (--json: one object with\nsubscriptionId, keyId, apiKey and the subscription). Creates DATA_DIR and the database if needed.',
      ),
      options: { ...json, name: 'string', tier: 'string', 'monthly-limit': 'string', 'rate-limit': 'string' },
      run: async ({ values }) => {
        const name = typeof values.name === 'string' ? values.name.trim() : '';
        if (!name || name.length > 200) throw new UsageError('--name is required (1 to 200 characters)');
        const tier = oneOf<Tier>('--tier', values.tier, TIERS, true);
        const monthlyLimit = positiveInt('--monthly-limit', values['monthly-limit'], MAX_MONTHLY_LIMIT, false);
        const rateLimit = positiveInt('--rate-limit', values['rate-limit'], MAX_RATE_LIMIT, false);
        const { store } = await session.open(values, true);
        const created = await store.create({ name, tier, monthlyLimit, rateLimit }, ADMIN);
        if (values.json) {
          io.out(jsonForTerminal({ subscriptionId: created.subscription.id, keyId: created.keyId, apiKey: created.apiKey, subscription: describe(created.subscription) }));
        } else {
          io.out(terminal`created subscription ${created.subscription.id} (${name}, ${tier})`);
          io.out(`API key ${created.keyId} (shown only now; store it safely):\n  ${created.apiKey}`);
        }
        return EXIT.ok;
      },
    },
    {
      name: 'subscription list',
      usage: usage('subscription list [--json]', 'A header row, then one line per subscription: id, tier, status, rate, monthly allowance, name.'),
      options: json,
      run: async ({ values }) => {
        const { store } = await session.open(values, false);
        const all = (await store.list()).map(describe);
        if (values.json) io.out(jsonForTerminal(all));
        else if (all.length === 0) io.out('no subscriptions');
        else {
          const idWidth = Math.max(2, ...all.map((s) => s.id.length));
          const row = (id: string, tier: string, status: string, rate: string, monthly: string, name: string) =>
            terminal`${id.padEnd(idWidth)}  ${tier.padEnd(12)} ${status.padEnd(9)} ${rate.padStart(8)} ${monthly.padStart(16)}  ${name}`;
          io.out(row('ID', 'TIER', 'STATUS', 'RATE', 'MONTHLY', 'NAME'));
          for (const s of all) io.out(row(s.id, s.tier, s.status, `${s.rateLimit}/s`, `${s.monthlyLimit}/month`, s.name));
        }
        return EXIT.ok;
      },
    },
    {
      name: 'subscription show',
      usage: usage(
        'subscription show ID [--json]',
        "The subscription's details, its keys (never the keys themselves) and this month's billable calls, as labelled lines\n(--json: one object).",
      ),
      options: json,
      args: ['SUBSCRIPTION_ID'],
      run: async ({ values, args: [id] }) => {
        const { store, opened } = await session.open(values, false);
        const s = await mustExist(store, id);
        const month = monthKey(new Date());
        const shown = { ...describe(s), month, billableCallsThisMonth: await opened.allowance.current(s.id, month), keys: await store.listKeys(s.id) };
        if (values.json) io.out(jsonForTerminal(shown));
        else for (const line of summary(shown, new Date().toISOString())) io.out(line);
        return EXIT.ok;
      },
    },
    {
      name: 'subscription set-status',
      usage: usage('subscription set-status ID ACTIVE|SUSPENDED|CANCELLED', 'SUSPENDED: grant endpoints answer 403; CANCELLED: everything 403. Any case is accepted.'),
      options: common,
      args: ['SUBSCRIPTION_ID', 'STATUS'],
      run: async ({ values, args: [id, raw] }) => {
        const status = oneOf<Status>('status', raw, STATUSES, true);
        const { store } = await session.open(values, false);
        await mustExist(store, id);
        await store.setStatus(id, status, ADMIN);
        io.out(`subscription ${id} is now ${status}`);
        return EXIT.ok;
      },
    },
    {
      name: 'subscription set-limits',
      usage: usage('subscription set-limits ID [--monthly-limit N|default] [--rate-limit N|default]', 'Overrides the tier\'s monthly allowance and/or per-second rate; "default" goes back to the tier\'s.'),
      options: { ...common, 'monthly-limit': 'string', 'rate-limit': 'string' },
      args: ['SUBSCRIPTION_ID'],
      run: async ({ values, args: [id] }) => {
        const monthlyLimit = positiveInt('--monthly-limit', values['monthly-limit'], MAX_MONTHLY_LIMIT, true);
        const rateLimit = positiveInt('--rate-limit', values['rate-limit'], MAX_RATE_LIMIT, true);
        if (monthlyLimit === undefined && rateLimit === undefined) throw new UsageError('give --monthly-limit and/or --rate-limit');
        const { store } = await session.open(values, false);
        await mustExist(store, id);
        await store.setLimits(id, { monthlyLimit, rateLimit }, ADMIN);
        const s = await mustExist(store, id);
        io.out(`subscription ${id}: ${monthlyLimitOf(s)} calls a month, ${rateLimitOf(s)} requests per second`);
        return EXIT.ok;
      },
    },
    {
      name: 'subscription set-feature',
      usage: usage('subscription set-feature ID grants.search|grants.read|grants.export|subscription.read|alerts.manage on|off', 'Switches one feature of the subscription on or off.'),
      options: common,
      args: ['SUBSCRIPTION_ID', 'FEATURE', 'STATE'],
      run: async ({ values, args: [id, rawFeature, rawState] }) => {
        const feature = oneOf<Feature>('feature', rawFeature, FEATURES);
        const state = oneOf('state', rawState, ['on', 'off'] as const);
        const { store } = await session.open(values, false);
        await mustExist(store, id);
        await store.setFeature(id, feature, state === 'on', ADMIN);
        io.out(`subscription ${id}: ${feature} ${state}`);
        return EXIT.ok;
      },
    },
    {
      name: 'key create',
      usage: usage(
        'key create SUBSCRIPTION_ID [--name NAME] [--scopes S,S] [--origins O,O] [--ips CIDR,CIDR] [--expires ISO|Nd|Nh] [--rate-limit N] [--json]',
        `A new key for the subscription, printed once (--json: subscriptionId, keyId, apiKey, restrictions).
Without restrictions the key can do everything the subscription can. Each one given narrows it:
  --scopes      what it may call: ${SCOPES.join(', ')}
  --origins     the exact origins (https://partner.example) a browser may call from
  --ips         the IPv4/IPv6 addresses or CIDR ranges it may be used from
  --expires     when it stops working: an ISO 8601 instant, or 30d, 12h, 45m from now
  --rate-limit  its own requests per second, at most the subscription's rate`,
      ),
      options: { ...json, name: 'string', scopes: 'string', origins: 'string', ips: 'string', expires: 'string', 'rate-limit': 'string' },
      args: ['SUBSCRIPTION_ID'],
      run: async ({ values, args: [id] }) => {
        const name = typeof values.name === 'string' ? values.name.trim() : undefined;
        if (name !== undefined && (name === '' || name.length > 100)) throw new UsageError('--name must be 1 to 100 characters');
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
        if (problems.length > 0) throw new UsageError(problems.map((p) => `--${p.parameter === 'expiresAt' ? 'expires' : p.parameter === 'rateLimit' ? 'rate-limit' : p.parameter} ${p.message}`).join('; '));
        const { store } = await session.open(values, false);
        const s = await mustExist(store, id);
        if (restrictions.rateLimit !== null && restrictions.rateLimit > rateLimitOf(s)) {
          throw new UsageError(`--rate-limit may not exceed the subscription's rate (${rateLimitOf(s)} per second)`);
        }
        const { keyId, apiKey } = await store.createKey(id, undefined, { name: name ?? null, restrictions }, ADMIN);
        if (values.json) io.out(jsonForTerminal({ subscriptionId: id, keyId, apiKey, restrictions }));
        else io.out(`API key ${keyId} for ${id} (${isUnrestricted(restrictions) ? '' : `${restrictionWords(restrictions)}; `}shown only now; store it safely):\n  ${apiKey}`);
        return EXIT.ok;
      },
    },
    {
      name: 'key list',
      usage: usage(
        'key list SUBSCRIPTION_ID [--json]',
        "The subscription's keys: id, prefix, name, created, last used, restrictions, and when revoked (or when a rotated\nkey stops working). Keys that expire within 7 days are flagged EXPIRES SOON, those past their expiry EXPIRED.",
      ),
      options: json,
      args: ['SUBSCRIPTION_ID'],
      run: async ({ values, args: [id] }) => {
        const { store } = await session.open(values, false);
        await mustExist(store, id);
        const keys = await store.listKeys(id);
        const now = new Date();
        if (values.json) {
          io.out(jsonForTerminal(keys.map((k) => ({ ...k, expiresSoon: expiryFlag(k.restrictions, now.getTime()) === '  EXPIRES SOON', expired: expiryFlag(k.restrictions, now.getTime()) === '  EXPIRED' }))));
        } else for (const k of keys) io.out(keyLine(k, now));
        return EXIT.ok;
      },
    },
    {
      name: 'audit',
      usage: usage(
        'audit [--subscription ID] [--since ISO|Nd|Nh] [--limit N] [--json]',
        `Every change to subscriptions and keys, oldest first (at most --limit, default 1000): when, who (the key
that made it through the API, admin for grants-admin, system for the server itself), what, on which
subscription and key or subscription, and from which address (the client's, or the host grants-admin ran on).
--since takes an ISO 8601 instant or a duration back from now (7d, 12h).`,
      ),
      options: { ...json, subscription: 'string', since: 'string', limit: 'string' },
      run: async ({ values }) => {
        const since = instantArg('--since', values.since, -1);
        const limit = positiveInt('--limit', values.limit, 100_000, false) ?? 1000;
        if (values.subscription !== undefined && typeof values.subscription !== 'string') throw new UsageError('--subscription needs a subscription id');
        const { store } = await session.open(values, false);
        const entries = await store.audit({ subscriptionId: values.subscription as string | undefined, since, limit });
        if (values.json) io.out(jsonForTerminal(entries));
        else if (entries.length === 0) io.out('no audit entries');
        else {
          for (const e of entries) {
            io.out(terminal`${e.at}  ${e.actor.padEnd(12)} ${e.action.padEnd(25)} ${e.subscriptionId ?? '-'}  ${e.target}  from ${e.address ?? '-'}` + (e.details === null ? '' : `  ${jsonForTerminal(e.details)}`));
          }
        }
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
      options: { ...json, grace: 'string' },
      args: ['KEY_ID'],
      run: async ({ values, args: [keyId] }) => {
        const grace = values.grace;
        if (grace !== undefined && (typeof grace !== 'string' || !/^\d{1,8}$/.test(grace) || Number(grace) > MAX_GRACE_SECONDS)) {
          throw new UsageError(`--grace must be a number of seconds from 0 to ${MAX_GRACE_SECONDS}, not "${String(grace)}"`);
        }
        const { store } = await session.open(values, false);
        const key = await store.getKey(keyId);
        if (key === null) throw new CliExit(`no key has the id "${keyId}"`, EXIT.notFound);
        const rotated = await store.rotateKey(keyId, grace === undefined ? 0 : Number(grace), ADMIN);
        if (rotated === null) throw new CliExit(`key ${keyId} was already revoked at ${key.revokedAt}; use "key create ${key.subscriptionId}" for a new one`, EXIT.notFound);
        if (values.json) {
          io.out(jsonForTerminal({ subscriptionId: rotated.subscriptionId, keyId: rotated.keyId, apiKey: rotated.apiKey, oldKeyId: keyId, oldKeyRevokedAt: rotated.oldKeyRevokedAt }));
        } else {
          io.out(`API key ${rotated.keyId} for ${rotated.subscriptionId} (shown only now; store it safely):\n  ${rotated.apiKey}`);
          io.out(grace === undefined || grace === '0' ? `key ${keyId} revoked` : `key ${keyId} stays valid until ${rotated.oldKeyRevokedAt}, then is revoked`);
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
      options: { ...common, force: 'boolean' },
      args: ['KEY_ID'],
      run: async ({ values, args: [keyId] }) => {
        const { store } = await session.open(values, false);
        const key = await store.getKey(keyId);
        if (key === null) throw new CliExit(`no key has the id "${keyId}"`, EXIT.notFound);
        if (key.revokedAt === null && !values.force && await store.lastingKeys(key.subscriptionId) === 1) {
          throw new UsageError(
            `key ${keyId} is the last active key of ${key.subscriptionId}: revoking it locks the partner out; add --force, or use "key rotate ${keyId}"`,
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
    {
      name: 'migrate',
      usage: usage(
        'migrate',
        'Applies the schema migrations not applied yet to the database (DATABASE_URL, else the SQLite file in\nDATA_DIR, created when missing) and prints the schema version. The API runs them at start-up too.',
      ),
      options: common,
      run: async ({ values }) => {
        const { opened } = await session.open(values, true);
        io.out(`${opened.kind} store at schema version ${await opened.schemaVersion()}`);
        return EXIT.ok;
      },
    },
    {
      name: 'migrate-from-sqlite',
      usage: usage(
        'migrate-from-sqlite',
        'Copies an embedded deployment\'s subscriptions database (DIR/subscriptions.sqlite: subscriptions, keys\n' +
          '(hashed, with their restrictions), monthly records, the usage log, the per-day counts and the audit log)\ninto the PostgreSQL database of ' +
          'DATABASE_URL, in one transaction. The target must hold no subscription and no monthly record: run it\n' +
          'once, before pointing the API at PostgreSQL; a second run copies nothing and says why.',
      ),
      options: { ...common, json: 'boolean' },
      run: async ({ values }) => {
        const config = loadConfig(withOverrides(session.env, values));
        if (config.databaseUrl === null) throw new UsageError('migrate-from-sqlite needs DATABASE_URL (the PostgreSQL database to copy into)');
        let copied: CopyCounts;
        try {
          copied = await migrateSqliteToPostgres(config.dataDir, config.databaseUrl);
        } catch (error) {
          if (error instanceof NoSqliteDatabaseError) throw new CliExit(noDatabase(error.file), EXIT.notFound);
          if (error instanceof TargetNotEmptyError) throw new CliExit(error.message, EXIT.failed);
          throw error;
        }
        if (values.json) io.out(jsonForTerminal(copied));
        else {
          io.out(
            `copied ${copied.subscriptions} subscription(s), ${copied.apiKeys} key(s), ${copied.monthlyRecords} monthly record(s), ` +
              `${copied.usageRows} usage row(s), ${copied.dailyRows} per-day count(s) and ${copied.auditRows} audit entr${copied.auditRows === 1 ? 'y' : 'ies'} into PostgreSQL`,
          );
        }
        return EXIT.ok;
      },
    },
  ];
}

export async function runAdmin(argv: string[], env: NodeJS.ProcessEnv = process.env, io: Io = stdio): Promise<number> {
  const session = new Session(env);
  try {
    return await runCli({ program: 'grants-admin', help: HELP, exits: EXIT, commands: commands(session, io) }, argv, io);
  } finally {
    await session.close();
  }
}
