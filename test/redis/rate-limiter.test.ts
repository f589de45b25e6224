// The shared per-second limiter (RedisRateLimiter, src/ratelimit/limiter.ts) on its own, each
// method as rate-limiter-flexible tests its own: against the Redis of REDIS_URL, consume spends
// one budget that every instance shares, peek reads it without spending, refund gives a point back
// and never opens a window above the rate; with Redis unreachable, each method answers from this
// instance's in-memory share (the insurance), says so once in the log and on the link's state;
// with a Redis that comes back, the shared budget resumes and the outage's end is logged.
import { expect } from 'chai';
import { createLogger } from '../../src/log.js';
import { RedisRateLimiter } from '../../src/ratelimit/limiter.js';
import { RedisLink } from '../../src/ratelimit/redisConnection.js';
import { logLines } from '../support/logLines.js';
import {
  deleteKeys,
  describeWithRedis,
  describeWithRedisServer,
  freePort,
  REDIS_URL,
  startPrivateRedis,
  uniquePrefix,
  waitFor,
} from '../support/redis.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A logger whose lines are kept, parsed, for the test to read. */
function capturingLogger() {
  const { destination, lines } = logLines();
  return { log: createLogger('info', { destination }), lines };
}

/** Waits for `probe` to hold, failing the test when it does not within `timeoutMs`. */
async function until(probe: () => boolean, timeoutMs: number): Promise<void> {
  expect(await waitFor(probe, timeoutMs), `waited ${timeoutMs} ms for ${probe}`).to.equal(true);
}

/** Waits until the limiter's window for this second has just begun, so a test's calls fall in one window. */
async function atWindowStart(): Promise<void> {
  const intoSecond = Date.now() % 1000;
  if (intoSecond > 600) await sleep(1000 - intoSecond + 10);
}

describeWithRedis('redis: the shared per-second limiter (RedisRateLimiter), each method', function () {
  this.timeout(20_000);
  const prefix = uniquePrefix();
  const links: RedisLink[] = [];
  const link = () => {
    const made = new RedisLink(
      { url: REDIS_URL as string, keyPrefix: prefix, commandTimeoutMs: 1000 },
      capturingLogger().log,
    );
    links.push(made);
    return made;
  };
  after(async () => {
    await Promise.all(links.map((l) => l.close()));
    await deleteKeys(prefix);
  });

  it('consume: the first N calls of a second are allowed with remaining N-1 … 0, the next refused with the time to the window end; the link says redis', async () => {
    const shared = link();
    await until(() => shared.ready, 5000);
    const limiter = new RedisRateLimiter(shared, 2);
    await atWindowStart();
    const decisions = [];
    for (let i = 0; i < 4; i++) decisions.push(await limiter.consume('sub_c', 3));
    expect(decisions.map((d) => [d.allowed, d.remaining, d.limit])).to.deep.equal([
      [true, 2, 3],
      [true, 1, 3],
      [true, 0, 3],
      [false, 0, 3],
    ]);
    expect(decisions[3].resetMs).to.be.within(1, 1000);
    expect(shared.state).to.deep.equal({ limits: 'redis', degradedSince: null });
  });

  it('consume: one budget across instances (two links, two limiters) and per subscription', async () => {
    const [a, b] = [link(), link()];
    await until(() => a.ready && b.ready, 5000);
    const [first, second] = [new RedisRateLimiter(a, 2), new RedisRateLimiter(b, 2)];
    await atWindowStart();
    const allowed = [];
    for (let i = 0; i < 3; i++)
      allowed.push((await first.consume('sub_s', 4)).allowed, (await second.consume('sub_s', 4)).allowed);
    expect(allowed).to.deep.equal([true, true, true, true, false, false]);
    expect((await second.consume('sub_other', 4)).allowed).to.equal(true);
  });

  it('peek reads the shared window without spending a point; an unseen key has the whole rate', async () => {
    const shared = link();
    await until(() => shared.ready, 5000);
    const limiter = new RedisRateLimiter(shared, 2);
    await atWindowStart();
    expect(await limiter.peek('sub_p', 5)).to.deep.include({ allowed: true, remaining: 5, limit: 5 });
    await limiter.consume('sub_p', 5);
    expect((await limiter.peek('sub_p', 5)).remaining).to.equal(4);
    expect((await limiter.peek('sub_p', 5)).remaining).to.equal(4);
    for (let i = 0; i < 4; i++) await limiter.consume('sub_p', 5);
    expect(await limiter.peek('sub_p', 5)).to.deep.include({ allowed: false, remaining: 0 });
  });

  it('refund gives the point back in the same window, and never more than the rate after the window ended', async () => {
    const shared = link();
    await until(() => shared.ready, 5000);
    const limiter = new RedisRateLimiter(shared, 2);
    await atWindowStart();
    await limiter.consume('sub_r', 2);
    await limiter.consume('sub_r', 2);
    expect((await limiter.consume('sub_r', 2)).allowed).to.equal(false);
    expect((await limiter.refund('sub_r', 2)).remaining).to.be.at.most(2);
    await sleep(1100);
    await atWindowStart();
    expect((await limiter.refund('sub_r', 2)).remaining).to.equal(2);
    const spent = [];
    for (let i = 0; i < 3; i++) spent.push((await limiter.consume('sub_r', 2)).allowed);
    expect(spent).to.deep.equal([true, true, false]);
  });

  it('a new rate for a subscription (an operator override) takes effect on the next call; close() leaves the link to its owner', async () => {
    const shared = link();
    await until(() => shared.ready, 5000);
    const limiter = new RedisRateLimiter(shared, 2);
    await atWindowStart();
    await limiter.consume('sub_o', 1);
    expect((await limiter.consume('sub_o', 1)).allowed).to.equal(false);
    expect((await limiter.consume('sub_o', 3)).allowed).to.equal(true);
    await limiter.close();
    expect(shared.ready).to.equal(true);
  });
});

describe('redis: the shared per-second limiter without Redis (the in-memory insurance), each method', function () {
  this.timeout(20_000);
  let link: RedisLink;
  let lines: Record<string, any>[];
  let limiter: RedisRateLimiter;
  before(async () => {
    const captured = capturingLogger();
    lines = captured.lines;
    // Nothing listens on the port: every command fails at once (the link is never ready).
    link = new RedisLink(
      { url: `redis://127.0.0.1:${await freePort()}`, keyPrefix: uniquePrefix(), commandTimeoutMs: 100 },
      captured.log,
    );
    limiter = new RedisRateLimiter(link, 2);
  });
  after(() => link.close());

  it("consume: this instance's share of the rate (10/s over 2 instances: 5), with that share as the limit", async () => {
    await atWindowStart();
    const decisions = [];
    for (let i = 0; i < 6; i++) decisions.push(await limiter.consume('sub_f', 10));
    expect(decisions.map((d) => [d.allowed, d.remaining, d.limit])).to.deep.equal([
      [true, 4, 5],
      [true, 3, 5],
      [true, 2, 5],
      [true, 1, 5],
      [true, 0, 5],
      [false, 0, 5],
    ]);
    // A rate below the number of instances still lets one call a second through.
    expect(await limiter.consume('sub_one', 1)).to.deep.include({ allowed: true, limit: 1 });
  });

  it('peek and refund answer from the same share', async () => {
    await atWindowStart();
    expect(await limiter.peek('sub_g', 10)).to.deep.include({ allowed: true, remaining: 5, limit: 5 });
    await limiter.consume('sub_g', 10);
    expect(await limiter.peek('sub_g', 10)).to.deep.include({ remaining: 4, limit: 5 });
    expect(await limiter.refund('sub_g', 10)).to.deep.include({ remaining: 5, limit: 5 });
  });

  it('the link says local-fallback since the first failure, logged once for the outage with its reason', () => {
    expect(link.state.limits).to.equal('local-fallback');
    expect(link.state.degradedSince).to.be.a('string');
    const down = lines.filter((l) => l.msg.startsWith('redis unavailable'));
    expect(down).to.have.length(1);
    expect(down[0].reason).to.be.a('string').and.not.equal('');
  });
});

describeWithRedisServer('redis: the shared per-second limiter across an outage of its Redis', function () {
  this.timeout(30_000);

  it('falls back to the share while Redis is stopped, and returns to the shared budget when it is back, logging the outage once and its end once', async () => {
    const redis = await startPrivateRedis();
    const { log, lines } = capturingLogger();
    const link = new RedisLink({ url: redis.url, keyPrefix: uniquePrefix(), commandTimeoutMs: 200 }, log);
    try {
      const limiter = new RedisRateLimiter(link, 2);
      await until(() => link.ready, 5000);
      expect((await limiter.consume('sub_x', 10)).limit).to.equal(10);
      await redis.stop('SIGKILL');
      expect((await limiter.consume('sub_x', 10)).limit).to.equal(5);
      expect((await limiter.peek('sub_x', 10)).limit).to.equal(5);
      expect(link.state.limits).to.equal('local-fallback');
      await redis.restart();
      await until(() => link.ready, 10_000);
      expect((await limiter.consume('sub_x', 10)).limit).to.equal(10);
      expect(link.state).to.deep.equal({ limits: 'redis', degradedSince: null });
      expect(lines.filter((l) => l.msg.startsWith('redis unavailable'))).to.have.length(1);
      expect(lines.filter((l) => l.msg.startsWith('redis available again'))).to.have.length(1);
    } finally {
      await link.close();
      await redis.dispose();
    }
  });
});
