// grants-admin: subscriptions and API keys, on the same DATA_DIR as the API.
import { mkdirSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../config.js';
import type { Feature } from '../subscriptions/tiers.js';
import { openSubscriptionsDb, subscriptionsPath, type Db } from '../subscriptions/database.js';
import { monthKey } from '../subscriptions/month.js';
import { SubscriptionStore } from '../subscriptions/subscriptionStore.js';
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
import { SqliteAllowanceCounter } from '../subscriptions/allowance.js';

export const EXIT = { ok: 0, notFound: 1, usage: 2 } as const;

const HELP = `Usage: grants-admin <command> [options]     (DATA_DIR or --data-dir selects the database)

Subscriptions:
  subscription create --name NAME --tier STARTER|PROFESSIONAL|ENTERPRISE
                      [--monthly-limit N] [--rate-limit N] [--json]
                                  create a subscription and its first key (printed once)
  subscription list [--json]
  subscription show ID [--json]   details, keys and this month's billable calls
  subscription set-status ID ACTIVE|SUSPENDED|CANCELLED
  subscription set-limits ID [--monthly-limit N|default] [--rate-limit N|default]
  subscription set-feature ID grants.search|grants.read|subscription.read on|off

Keys:
  key create SUBSCRIPTION_ID [--json]   a new key for the subscription (printed once)
  key list SUBSCRIPTION_ID [--json]
  key revoke KEY_ID                     takes effect on the next request

Exit codes: 0 done; 1 unknown subscription or key; 2 bad usage or value.
Changes take effect on a running API at its next request.`;

export interface Io {
  out: (line: string) => void;
  err: (line: string) => void;
}

const stdio: Io = { out: (l) => process.stdout.write(`${l}\n`), err: (l) => process.stderr.write(`${l}\n`) };

class UsageError extends Error {}
class NotFoundError extends Error {}

function positiveInt(name: string, raw: string | undefined, max: number, allowDefault: boolean): number | null | undefined {
  if (raw === undefined) return undefined;
  if (allowDefault && raw === 'default') return null;
  if (!/^\d{1,12}$/.test(raw) || Number(raw) < 1 || Number(raw) > max) {
    throw new UsageError(`${name} must be an integer from 1 to ${max}${allowDefault ? ' (or "default")' : ''}, not "${raw}"`);
  }
  return Number(raw);
}

function oneOf<T extends string>(what: string, raw: string | undefined, values: readonly T[]): T {
  if (raw === undefined || !(values as readonly string[]).includes(raw)) {
    throw new UsageError(`${what} must be one of ${values.join(', ')}${raw === undefined ? '' : `, not "${raw}"`}`);
  }
  return raw as T;
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

export async function runAdmin(argv: string[], env: NodeJS.ProcessEnv = process.env, io: Io = stdio): Promise<number> {
  const [group, command, ...rest] = argv;
  if (group === undefined || group === '--help' || group === '-h' || group === 'help' || command === '--help' || command === '-h') {
    io.out(HELP);
    return group === undefined ? EXIT.usage : EXIT.ok;
  }
  let db: Db | undefined;
  try {
    const { values, positionals } = parseArgs({
      args: rest,
      options: {
        name: { type: 'string' },
        tier: { type: 'string' },
        'monthly-limit': { type: 'string' },
        'rate-limit': { type: 'string' },
        json: { type: 'boolean', default: false },
        'data-dir': { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
      allowPositionals: true,
    });
    if (values.help) {
      io.out(HELP);
      return EXIT.ok;
    }
    const config = loadConfig(values['data-dir'] === undefined ? env : { ...env, DATA_DIR: values['data-dir'] });
    mkdirSync(config.dataDir, { recursive: true });
    db = openSubscriptionsDb(subscriptionsPath(config.dataDir));
    const store = new SubscriptionStore(db);
    const json = values.json ?? false;
    const arg = (index: number, what: string): string => {
      const value = positionals[index];
      if (value === undefined) throw new UsageError(`missing ${what}`);
      return value;
    };
    const expectArgs = (count: number) => {
      if (positionals.length > count) throw new UsageError(`unexpected argument "${positionals[count]}"`);
    };
    const mustExist = (id: string): Subscription => {
      const found = store.get(id);
      if (found === null) throw new NotFoundError(`no subscription has the id "${id}"`);
      return found;
    };

    switch (`${group} ${command}`) {
      case 'subscription create': {
        expectArgs(0);
        const name = values.name?.trim();
        if (!name || name.length > 200) throw new UsageError('--name is required (1 to 200 characters)');
        const tier = oneOf<Tier>('--tier', values.tier, TIERS);
        const created = store.create({
          name,
          tier,
          monthlyLimit: positiveInt('--monthly-limit', values['monthly-limit'], MAX_MONTHLY_LIMIT, false),
          rateLimit: positiveInt('--rate-limit', values['rate-limit'], MAX_RATE_LIMIT, false),
        });
        if (json) {
          io.out(JSON.stringify({ subscriptionId: created.subscription.id, keyId: created.keyId, apiKey: created.apiKey, subscription: describe(created.subscription) }));
        } else {
          io.out(`created subscription ${created.subscription.id} (${name}, ${tier})`);
          io.out(`API key ${created.keyId} (shown only now; store it safely):\n  ${created.apiKey}`);
        }
        return EXIT.ok;
      }
      case 'subscription list': {
        expectArgs(0);
        const all = store.list().map(describe);
        if (json) io.out(JSON.stringify(all));
        else if (all.length === 0) io.out('no subscriptions');
        else for (const s of all) io.out(`${s.id}  ${s.tier.padEnd(12)} ${s.status.padEnd(9)} ${String(s.rateLimit).padStart(6)}/s ${String(s.monthlyLimit).padStart(10)}/month  ${s.name}`);
        return EXIT.ok;
      }
      case 'subscription show': {
        const id = arg(0, 'SUBSCRIPTION_ID');
        expectArgs(1);
        const s = mustExist(id);
        const month = monthKey(new Date());
        const shown = { ...describe(s), month, billableCallsThisMonth: new SqliteAllowanceCounter(db).currentSync(s.id, month), keys: store.listKeys(s.id) };
        io.out(json ? JSON.stringify(shown) : JSON.stringify(shown, null, 2));
        return EXIT.ok;
      }
      case 'subscription set-status': {
        const id = arg(0, 'SUBSCRIPTION_ID');
        const status = oneOf<Status>('status', positionals[1], STATUSES);
        expectArgs(2);
        mustExist(id);
        store.setStatus(id, status);
        io.out(`subscription ${id} is now ${status}`);
        return EXIT.ok;
      }
      case 'subscription set-limits': {
        const id = arg(0, 'SUBSCRIPTION_ID');
        expectArgs(1);
        const monthlyLimit = positiveInt('--monthly-limit', values['monthly-limit'], MAX_MONTHLY_LIMIT, true);
        const rateLimit = positiveInt('--rate-limit', values['rate-limit'], MAX_RATE_LIMIT, true);
        if (monthlyLimit === undefined && rateLimit === undefined) throw new UsageError('give --monthly-limit and/or --rate-limit');
        mustExist(id);
        store.setLimits(id, { monthlyLimit, rateLimit });
        const s = mustExist(id);
        io.out(`subscription ${id}: ${monthlyLimitOf(s)} calls a month, ${rateLimitOf(s)} requests per second`);
        return EXIT.ok;
      }
      case 'subscription set-feature': {
        const id = arg(0, 'SUBSCRIPTION_ID');
        const feature = oneOf<Feature>('feature', positionals[1], FEATURES);
        const state = oneOf('state', positionals[2], ['on', 'off'] as const);
        expectArgs(3);
        mustExist(id);
        store.setFeature(id, feature, state === 'on');
        io.out(`subscription ${id}: ${feature} ${state}`);
        return EXIT.ok;
      }
      case 'key create': {
        const id = arg(0, 'SUBSCRIPTION_ID');
        expectArgs(1);
        mustExist(id);
        const { keyId, apiKey } = store.createKey(id);
        if (json) io.out(JSON.stringify({ subscriptionId: id, keyId, apiKey }));
        else io.out(`API key ${keyId} for ${id} (shown only now; store it safely):\n  ${apiKey}`);
        return EXIT.ok;
      }
      case 'key list': {
        const id = arg(0, 'SUBSCRIPTION_ID');
        expectArgs(1);
        mustExist(id);
        const keys = store.listKeys(id);
        if (json) io.out(JSON.stringify(keys));
        else for (const k of keys) io.out(`${k.id}  ${k.prefix}…  created ${k.createdAt}  last used ${k.lastUsedAt ?? 'never'}${k.revokedAt ? `  REVOKED ${k.revokedAt}` : ''}`);
        return EXIT.ok;
      }
      case 'key revoke': {
        const keyId = arg(0, 'KEY_ID');
        expectArgs(1);
        const key = store.getKey(keyId);
        if (key === null) throw new NotFoundError(`no key has the id "${keyId}"`);
        if (!store.revokeKey(keyId)) {
          io.out(`key ${keyId} was already revoked at ${key.revokedAt}`);
          return EXIT.ok;
        }
        io.out(`key ${keyId} revoked`);
        return EXIT.ok;
      }
      default:
        throw new UsageError(`unknown command "${[group, command].filter(Boolean).join(' ')}"`);
    }
  } catch (error) {
    if (error instanceof NotFoundError) {
      io.err(`grants-admin: ${error.message}`);
      return EXIT.notFound;
    }
    if (error instanceof UsageError || error instanceof ConfigError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      io.err(`grants-admin: ${(error as Error).message}\nRun "grants-admin --help" for usage.`);
      return EXIT.usage;
    }
    io.err(`grants-admin: failed: ${(error as Error).message}`);
    return 3;
  } finally {
    db?.close();
  }
}
