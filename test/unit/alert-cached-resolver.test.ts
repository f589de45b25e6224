// The deliverer's DNS answers kept per host for a few seconds: reused within the TTL, asked again
// after it, a failure never kept, and every delivery's check still applied to the kept answer.
import { expect } from 'chai';
import { cachedResolver } from '../../src/alerts/cachedResolver.js';
import { checkTarget, TargetRefused, type Resolver } from '../../src/alerts/targets.js';

describe('alerts: the cached resolver', () => {
  const counting = (answer: () => Promise<{ address: string; family: number }[]>) => {
    const asked: string[] = [];
    const resolve: Resolver = (host) => {
      asked.push(host);
      return answer();
    };
    return { asked, resolve };
  };

  it('asks once per host within the TTL, shares a lookup under way, and asks again after the TTL', async () => {
    const { asked, resolve } = counting(async () => [{ address: '93.184.215.14', family: 4 }]);
    const cached = cachedResolver(resolve, 50);
    const [a, b] = await Promise.all([cached('hooks.example.com'), cached('hooks.example.com')]);
    expect(a).to.deep.equal([{ address: '93.184.215.14', family: 4 }]);
    expect(b).to.deep.equal(a);
    await cached('hooks.example.com');
    await cached('other.example.com');
    expect(asked).to.deep.equal(['hooks.example.com', 'other.example.com']);
    await new Promise((resolve) => setTimeout(resolve, 80));
    await cached('hooks.example.com');
    expect(asked).to.deep.equal(['hooks.example.com', 'other.example.com', 'hooks.example.com']);
  });

  it('does not keep a failure: the next delivery asks again', async () => {
    let fail = true;
    const { asked, resolve } = counting(async () => {
      if (fail) throw new Error('ENOTFOUND');
      return [{ address: '93.184.215.14', family: 4 }];
    });
    const cached = cachedResolver(resolve, 60_000);
    let error: unknown = null;
    await cached('hooks.example.com').catch((e) => (error = e));
    expect(error).to.be.instanceOf(Error);
    fail = false;
    expect(await cached('hooks.example.com')).to.deep.equal([{ address: '93.184.215.14', family: 4 }]);
    expect(asked).to.have.length(2);
  });

  it('a kept answer is still checked at every delivery (a private address is refused each time)', async () => {
    const { asked, resolve } = counting(async () => [{ address: '10.0.0.7', family: 4 }]);
    const cached = cachedResolver(resolve, 60_000);
    for (let i = 0; i < 3; i++) {
      let refused: unknown = null;
      await checkTarget('https://hooks.partner.example/x', { allowHttp: false, allowPrivate: false }, cached).catch(
        (e) => (refused = e),
      );
      expect(refused).to.be.instanceOf(TargetRefused);
    }
    expect(asked).to.have.length(1);
    const allowed = await checkTarget(
      'https://hooks.partner.example/x',
      { allowHttp: false, allowPrivate: true },
      cached,
    );
    expect(allowed.address).to.equal('10.0.0.7');
  });
});
