// The outage policy (storeOutage.ts) put around an opened store: what deps.ts uses when the store is
// shared (PostgreSQL). Authentication goes through the grace directory; the allowance record's calls
// are timed out and, with Redis counting, a call Redis admitted that the record could not take is
// kept in DeferredServedCalls (only if the original statement failed: one that merely timed out is
// counted when it lands); usage rows are bounded while the store is out (an answer then no longer
// waits for its row's commit); a probe notices recovery,
// which drains the deferred counts and flushes the usage rows. No restart is ever needed.
import type { StoreOutageSettings } from '../config.js';
import { ServiceUnavailableError } from '../failures.js';
import type { Logger } from '../log.js';
import { within } from '../timeLimit.js';
import type {
  AllowanceRecord,
  Awaitable,
  SubscriptionRecords,
  SubscriptionsStore,
  UsageLog,
  UsageRow,
} from './port.js';
import { SeenMonthlyCounts } from './allowanceCountsSeen.js';
import {
  BoundedUsageBuffer,
  DeferredServedCalls,
  GraceCallerDirectory,
  RecoveryProbe,
  StoreOutage,
  storeUnavailable,
  type StoreStatus,
} from './storeOutage.js';

interface StoreHealth extends StoreStatus {
  kind: string;
  /** Calls admitted through Redis waiting to be recorded. */
  deferredCalls: number;
  /** Usage rows dropped since start-up because the buffer was full. */
  usageRowsDropped: number;
}

export interface GuardedStore {
  subscriptions: SubscriptionRecords;
  usage: UsageLog;
  allowance: AllowanceRecord;
  outage: StoreOutage;
  health(): StoreHealth;
  /** Stops probing and tries, for at most the store timeout, to record the deferred counts. */
  stop(): Promise<void>;
}

const asUnavailable = (error: unknown, outage: StoreOutage): unknown =>
  error instanceof ServiceUnavailableError
    ? error
    : error instanceof Error && /timed out|ECONN|terminat|connect/i.test(error.message)
      ? storeUnavailable(outage.retryAfterSeconds)
      : error;

export function guardStore(
  store: SubscriptionsStore,
  settings: StoreOutageSettings,
  options: { countsInRedis: boolean; log: Logger },
): GuardedStore {
  const { log } = options;
  const outage = new StoreOutage({ graceMs: settings.graceSeconds * 1000, timeoutMs: settings.timeoutMs });
  const directory = new GraceCallerDirectory(store.subscriptions, outage);
  const record = store.allowance;
  const deferred = new DeferredServedCalls((s, m) => outage.guard(() => record.recordServed(s, m)), log);
  const probe = new RecoveryProbe(outage, () => store.schemaVersion(), log);
  const seen = new SeenMonthlyCounts();
  const guarded = async <T>(call: () => Awaitable<T>): Promise<T> => {
    try {
      return await outage.guard(call);
    } catch (error) {
      throw asUnavailable(error, outage);
    }
  };

  outage.onOutage(() =>
    log.warn('the subscriptions store does not answer: serving known callers during the grace period', {
      graceSeconds: settings.graceSeconds,
    }),
  );
  outage.onRecovery(async () => {
    await deferred.drain();
    await Promise.resolve(store.usage.flush()).catch(() => undefined);
  });

  const subscriptions = new Proxy(store.subscriptions, {
    get(target, prop) {
      if (prop === 'authenticate') return (key: string) => directory.authenticate(key);
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });

  const allowance: AllowanceRecord = {
    async tryConsume(s, m, limit) {
      const admission = await guarded(() => record.tryConsume(s, m, limit));
      seen.see(s, m, admission.calls);
      return admission;
    },
    async recordServed(s, m) {
      const original = Promise.resolve(record.recordServed(s, m));
      try {
        return seen.see(s, m, await outage.guard(() => original));
      } catch (error) {
        if (!options.countsInRedis || !outage.withinGrace) throw asUnavailable(error, outage);
        // Counted once: by the original statement if it lands after all, else by the deferred count.
        original.catch(() => {
          deferred.add(s, m);
          if (!outage.failing) void deferred.drain(); // it failed after the store came back
        });
        return seen.get(s, m) ?? 0;
      }
    },
    async current(s, m) {
      try {
        return seen.see(s, m, await outage.guard(() => record.current(s, m)));
      } catch (error) {
        const last = seen.get(s, m);
        if (outage.withinGrace && last !== undefined) return last;
        if (outage.withinGrace && options.countsInRedis) return 0;
        throw asUnavailable(error, outage);
      }
    },
    async floor(s, m) {
      try {
        // The floor may come from what this instance saw: it proves nothing about the store.
        return seen.see(s, m, await outage.guard(() => record.floor(s, m), false));
      } catch (error) {
        if (options.countsInRedis && outage.withinGrace) return seen.get(s, m) ?? 0;
        throw asUnavailable(error, outage);
      }
    },
    monthCounts: (month) => guarded(() => record.monthCounts(month)),
    close: () => record.close(),
  };

  const buffer = new BoundedUsageBuffer<UsageRow>(store.usage, settings.usageBufferRows, log);
  const usage = new Proxy(store.usage, {
    get(target, prop) {
      if (prop === 'record') {
        // The answer waits for the row's commit while the store answers, at most the store timeout
        // (a hung store then starts the outage); during an outage the row waits in memory instead.
        return (row: UsageRow): Awaitable<void> => {
          const written = buffer.record(row);
          if (outage.failing || written === undefined) return undefined;
          return outage.guard(() => written, false).catch(() => undefined);
        };
      }
      if (prop === 'statistics' || prop === 'dailyByEndpoint') {
        return (...args: unknown[]) =>
          guarded(() =>
            (Reflect.get(target, prop, target) as (...a: unknown[]) => Awaitable<unknown>).apply(target, args),
          );
      }
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });

  return {
    subscriptions,
    usage,
    allowance,
    outage,
    health: () => ({
      kind: store.kind,
      ...outage.status(),
      deferredCalls: deferred.pending,
      usageRowsDropped: buffer.dropped,
    }),
    async stop() {
      probe.stop();
      if (deferred.pending === 0) return;
      await within(deferred.drain(), settings.timeoutMs, () => undefined);
      if (deferred.pending > 0)
        log.error('calls admitted during the store outage could not be recorded before shutdown', {
          calls: deferred.pending,
        });
    },
  };
}
