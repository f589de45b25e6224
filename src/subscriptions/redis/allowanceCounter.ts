// The monthly allowance shared by several API instances through Redis. The store (SQLite or
// PostgreSQL) keeps counting every served call (the record); when Redis fails, the record enforces the allowance, and
// when Redis (re)connects its counters are raised to the record, so a flushed Redis grants nothing new.
import type { Logger } from '../../log.js';
import { describeError } from '../../log.js';
import type { RedisLink } from '../../ratelimit/redisConnection.js';
import { monthKey, monthResetDate } from '../month.js';
import { isPromise, type Admission, type AllowanceCounter, type AllowanceRecord } from '../port.js';

/**
 * KEYS[1] counter; ARGV limit, expiry (epoch s), floor (the store's record). A counter below the
 * record (deleted, flushed, evicted) is raised to it first. Returns {admitted, calls}.
 */
const CONSUME = `
local calls = tonumber(redis.call('GET', KEYS[1]) or '0')
local floor = tonumber(ARGV[3])
if calls < floor then
  redis.call('SET', KEYS[1], floor, 'EXAT', ARGV[2])
  calls = floor
end
if calls >= tonumber(ARGV[1]) then return {0, calls} end
calls = redis.call('INCR', KEYS[1])
redis.call('EXPIREAT', KEYS[1], ARGV[2])
return {1, calls}`;

/** KEYS[1] counter; ARGV floor, expiry. Raises the counter to at least the floor. */
const RAISE = `
local calls = tonumber(redis.call('GET', KEYS[1]) or '0')
if calls < tonumber(ARGV[1]) then redis.call('SET', KEYS[1], ARGV[1], 'EXAT', ARGV[2]) end
return calls`;

/** Counters live a week past the end of their month. */
const expiryOf = (month: string): number =>
  Math.floor(monthResetDate(new Date(`${month}-01T00:00:00.000Z`)).getTime() / 1000) + 7 * 86400;

export class RedisAllowanceCounter implements AllowanceCounter {
  constructor(
    private readonly link: RedisLink,
    private readonly record: AllowanceRecord,
    private readonly clock: () => Date,
    private readonly log: Logger,
  ) {
    link.onReady(() => void this.reconcile());
  }

  private key(subscriptionId: string, month: string): string {
    return this.link.key('month', subscriptionId, month);
  }

  /** Raises this month's Redis counters to the store's record. */
  async reconcile(): Promise<void> {
    const month = monthKey(this.clock());
    try {
      for (const { subscriptionId, calls } of await this.record.monthCounts(month)) {
        await this.link.client.eval(RAISE, 1, this.key(subscriptionId, month), calls, expiryOf(month));
      }
      this.link.markUp();
    } catch (error) {
      this.log.warn('redis allowance reconciliation failed; it runs again on reconnection', describeError(error));
      this.link.markDown((error as Error).message);
    }
  }

  async tryConsume(subscriptionId: string, month: string, limit: number): Promise<Admission> {
    if (!this.link.ready) {
      this.link.markDown(`connection ${this.link.client.status}`);
      return this.record.tryConsume(subscriptionId, month, limit);
    }
    const floor = this.record.floor(subscriptionId, month);
    const recorded = isPromise(floor) ? await floor : floor;
    let admitted: number;
    let calls: number;
    try {
      [admitted, calls] = (await this.link.client.eval(
        CONSUME,
        1,
        this.key(subscriptionId, month),
        limit,
        expiryOf(month),
        recorded,
      )) as [number, number];
      this.link.markUp();
    } catch (error) {
      this.link.markDown((error as Error).message);
      return this.record.tryConsume(subscriptionId, month, limit);
    }
    if (admitted !== 1) return { allowed: false, calls: Math.max(calls, recorded) };
    // A failure to record is not a Redis failure: it propagates (the call is refused with a 503, not
    // recounted through the record); Redis keeps that call counted, which can cost a call, never give one.
    return { allowed: true, calls: Math.max(calls, await this.record.recordServed(subscriptionId, month)) };
  }

  async current(subscriptionId: string, month: string): Promise<number> {
    const recorded = await this.record.current(subscriptionId, month);
    if (!this.link.ready) return recorded;
    try {
      const shared = Number((await this.link.client.get(this.key(subscriptionId, month))) ?? 0);
      return Math.max(shared, recorded);
    } catch (error) {
      this.link.markDown((error as Error).message);
      return recorded;
    }
  }
}
