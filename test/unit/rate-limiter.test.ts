// The rate-limit wrapper (src/ratelimit/limiter.ts) on its own, each method as rate-limiter-flexible
// tests its own: consume spends and refuses, peek reads without spending, refund gives a point back
// and never opens a window above the rate; a store failure is told apart from a refusal. This is the
// in-memory limiter; the shared one and its insurance are tested the same way against Redis in
// test/redis/rate-limiter.test.ts.
import { expect } from 'chai';
import { RateLimiterMemory, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { consumeOne, limiterCache, MemoryRateLimiter, peekAt, refundOne } from '../../src/ratelimit/limiter.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('unit: the per-second limiter (rate-limiter-flexible wrapper)', () => {
  it('consume: the first N calls of a second are allowed with remaining N-1 … 0, the next refused with the time to the window end', async () => {
    const limiter = new MemoryRateLimiter();
    const decisions = [];
    for (let i = 0; i < 4; i++) decisions.push(await limiter.consume('sub_a', 3));
    expect(decisions.map((d) => [d.allowed, d.remaining, d.limit])).to.deep.equal([
      [true, 2, 3],
      [true, 1, 3],
      [true, 0, 3],
      [false, 0, 3],
    ]);
    expect(decisions[3].resetMs).to.be.within(1, 1000);
  });

  it('one budget per subscription: another subscription is not touched', async () => {
    const limiter = new MemoryRateLimiter();
    for (let i = 0; i < 2; i++) await limiter.consume('sub_a', 2);
    expect((await limiter.consume('sub_a', 2)).allowed).to.equal(false);
    expect((await limiter.consume('sub_b', 2)).allowed).to.equal(true);
  });

  it('peek reads the window without spending a point; an unseen key has the whole rate', async () => {
    const limiter = new MemoryRateLimiter();
    expect(await limiter.peek('sub_p', 5)).to.deep.include({ allowed: true, remaining: 5, limit: 5 });
    await limiter.consume('sub_p', 5);
    expect((await limiter.peek('sub_p', 5)).remaining).to.equal(4);
    expect((await limiter.peek('sub_p', 5)).remaining).to.equal(4);
    for (let i = 0; i < 4; i++) await limiter.consume('sub_p', 5);
    expect(await limiter.peek('sub_p', 5)).to.deep.include({ allowed: false, remaining: 0 });
  });

  it('refund gives the point back in the same window, and never more than the rate after the window ended', async () => {
    const limiter = new MemoryRateLimiter();
    await limiter.consume('sub_r', 2);
    await limiter.consume('sub_r', 2);
    expect((await limiter.consume('sub_r', 2)).allowed).to.equal(false);
    expect((await limiter.refund('sub_r', 2)).remaining).to.be.at.most(2);
    await sleep(1100);
    // The window ended: a refund there must not open a window with a point more than the rate.
    const after = await limiter.refund('sub_r', 2);
    expect(after.remaining).to.equal(2);
    const spent = [];
    for (let i = 0; i < 3; i++) spent.push((await limiter.consume('sub_r', 2)).allowed);
    expect(spent).to.deep.equal([true, true, false]);
  });

  it('a new rate for a subscription (an operator override) takes effect on the next call; the budget resets each second', async () => {
    const limiter = new MemoryRateLimiter();
    await limiter.consume('sub_o', 1);
    expect((await limiter.consume('sub_o', 1)).allowed).to.equal(false);
    expect((await limiter.consume('sub_o', 3)).allowed).to.equal(true);
    await sleep(1100);
    expect((await limiter.consume('sub_o', 1)).allowed).to.equal(true);
  });

  it('limiterCache builds one limiter per rate value and reuses it', () => {
    let built = 0;
    const cache = limiterCache((points) => {
      built += 1;
      return new RateLimiterMemory({ points, duration: 1 });
    });
    expect(cache(5)).to.equal(cache(5));
    expect(cache(6)).to.not.equal(cache(5));
    expect(built).to.equal(2);
  });

  it('a store failure is rethrown by consume, peek and refund (the caller applies its failure policy), never read as a refusal', async () => {
    const broken = {
      consume: async () => {
        throw new Error('store down');
      },
      get: async () => {
        throw new Error('store down');
      },
      reward: async () => {
        throw new Error('store down');
      },
    } as unknown as RateLimiterAbstract;
    for (const call of [
      () => consumeOne(broken, 'k', 1),
      () => peekAt(broken, 'k', 1),
      () => refundOne(broken, 'k', 1),
    ]) {
      let thrown: unknown = null;
      await call().catch((e) => (thrown = e));
      expect((thrown as Error)?.message).to.equal('store down');
    }
  });
});
