// grants-admin subscription …: create, list, show a subscription, and change its status, limits and features.
import { monthKey } from '../../subscriptions/month.js';
import type { SubscriptionRecords } from '../../subscriptions/port.js';
import {
  FEATURES,
  MAX_MONTHLY_LIMIT,
  MAX_RATE_LIMIT,
  monthlyLimitOf,
  rateLimitOf,
  STATUSES,
  TIERS,
  type Feature,
  type Status,
  type Subscription,
  type Tier,
} from '../../subscriptions/tiers.js';
import { jsonForTerminal, terminal } from '../../terminalText.js';
import { UsageError, type Command, type Io } from '../runner.js';
import { oneOf, positiveInt } from './arguments.js';
import { keyLine } from './keyCommands.js';
import { ADMIN, COMMON, EXIT, JSON_OPTIONS, mustExist, usage, type Session } from './session.js';

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

type Shown = ReturnType<typeof describe> & {
  month: string;
  billableCallsThisMonth: number;
  keys: Awaited<ReturnType<SubscriptionRecords['listKeys']>>;
};

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
    `  this month     ${shown.billableCallsThisMonth} billable calls in ${shown.month}, ` +
      `${Math.max(0, shown.monthlyLimit - shown.billableCallsThisMonth)} left`,
    `  features       ${features}`,
    `  created        ${shown.createdAt}`,
    `  keys           ${shown.keys.length === 0 ? 'none' : shown.keys.length}`,
  ];
  for (const k of shown.keys) lines.push(`    ${keyLine(k, new Date(now))}`);
  return lines;
}

/** grants-admin's subscription commands, on the stores of `session`, printing to `io`. */
export function subscriptionCommands(session: Session, io: Io): Command[] {
  return [
    {
      name: 'subscription create',
      usage: usage(
        'subscription create --name NAME --tier STARTER|PROFESSIONAL|ENTERPRISE [--monthly-limit N] ' +
          '[--rate-limit N] [--json]',
        'Creates an ACTIVE subscription and its first API key, printed once (--json: one object ' +
          'with\nsubscriptionId, keyId, apiKey and the subscription). Creates DATA_DIR and the database if needed.',
      ),
      options: { ...JSON_OPTIONS, name: 'string', tier: 'string', 'monthly-limit': 'string', 'rate-limit': 'string' },
      run: async ({ values }) => {
        const name = typeof values.name === 'string' ? values.name.trim() : '';
        if (!name || name.length > 200) throw new UsageError('--name is required (1 to 200 characters)');
        const tier = oneOf<Tier>('--tier', values.tier, TIERS, true);
        const monthlyLimit = positiveInt('--monthly-limit', values['monthly-limit'], MAX_MONTHLY_LIMIT, false);
        const rateLimit = positiveInt('--rate-limit', values['rate-limit'], MAX_RATE_LIMIT, false);
        const { store } = await session.open(values, true);
        const created = await store.create({ name, tier, monthlyLimit, rateLimit }, ADMIN);
        if (values.json) {
          io.out(
            jsonForTerminal({
              subscriptionId: created.subscription.id,
              keyId: created.keyId,
              apiKey: created.apiKey,
              subscription: describe(created.subscription),
            }),
          );
        } else {
          io.out(terminal`created subscription ${created.subscription.id} (${name}, ${tier})`);
          io.out(`API key ${created.keyId} (shown only now; store it safely):\n  ${created.apiKey}`);
        }
        return EXIT.ok;
      },
    },
    {
      name: 'subscription list',
      usage: usage(
        'subscription list [--json]',
        'A header row, then one line per subscription: id, tier, status, rate, monthly allowance, name.',
      ),
      options: JSON_OPTIONS,
      run: async ({ values }) => {
        const { store } = await session.open(values, false);
        const all = (await store.list()).map(describe);
        if (values.json) io.out(jsonForTerminal(all));
        else if (all.length === 0) io.out('no subscriptions');
        else {
          const idWidth = Math.max(2, ...all.map((s) => s.id.length));
          const row = (id: string, tier: string, status: string, rate: string, monthly: string, name: string) =>
            terminal`${id.padEnd(idWidth)}  ${tier.padEnd(12)} ${status.padEnd(9)} ` +
            terminal`${rate.padStart(8)} ${monthly.padStart(16)}  ${name}`;
          io.out(row('ID', 'TIER', 'STATUS', 'RATE', 'MONTHLY', 'NAME'));
          for (const s of all)
            io.out(row(s.id, s.tier, s.status, `${s.rateLimit}/s`, `${s.monthlyLimit}/month`, s.name));
        }
        return EXIT.ok;
      },
    },
    {
      name: 'subscription show',
      usage: usage(
        'subscription show ID [--json]',
        "The subscription's details, its keys (never the keys themselves) and this month's billable calls, " +
          'as labelled lines\n(--json: one object).',
      ),
      options: JSON_OPTIONS,
      args: ['SUBSCRIPTION_ID'],
      run: async ({ values, args: [id] }) => {
        const { store, opened } = await session.open(values, false);
        const s = await mustExist(store, id);
        const month = monthKey(new Date());
        const shown = {
          ...describe(s),
          month,
          billableCallsThisMonth: await opened.allowance.current(s.id, month),
          keys: await store.listKeys(s.id),
        };
        if (values.json) io.out(jsonForTerminal(shown));
        else for (const line of summary(shown, new Date().toISOString())) io.out(line);
        return EXIT.ok;
      },
    },
    {
      name: 'subscription set-status',
      usage: usage(
        'subscription set-status ID ACTIVE|SUSPENDED|CANCELLED',
        'SUSPENDED: grant endpoints answer 403; CANCELLED: everything 403. Any case is accepted.',
      ),
      options: COMMON,
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
      usage: usage(
        'subscription set-limits ID [--monthly-limit N|default] [--rate-limit N|default]',
        'Overrides the tier\'s monthly allowance and/or per-second rate; "default" goes back to the tier\'s.',
      ),
      options: { ...COMMON, 'monthly-limit': 'string', 'rate-limit': 'string' },
      args: ['SUBSCRIPTION_ID'],
      run: async ({ values, args: [id] }) => {
        const monthlyLimit = positiveInt('--monthly-limit', values['monthly-limit'], MAX_MONTHLY_LIMIT, true);
        const rateLimit = positiveInt('--rate-limit', values['rate-limit'], MAX_RATE_LIMIT, true);
        if (monthlyLimit === undefined && rateLimit === undefined)
          throw new UsageError('give --monthly-limit and/or --rate-limit');
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
      usage: usage(
        'subscription set-feature ID grants.search|grants.read|grants.export|subscription.read|alerts.manage on|off',
        'Switches one feature of the subscription on or off.',
      ),
      options: COMMON,
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
  ];
}
