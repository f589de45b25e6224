// The webhook address check, as creation (urlProblem) and every delivery (checkTarget) run it:
// hosts only a private network answers, names that spell an address, every spelling of a
// non-public address refused by both; public hosts kept; a refusal names no address a lookup gave.
import { expect } from 'chai';
import { checkTarget, TargetRefused, urlProblem, type Resolver } from '../../src/alerts/targets.js';
import { ACCEPTED_TARGETS, PUBLIC_ADDRESS, REFUSED_TARGETS } from '../support/webhookTargets.js';

const policy = { allowHttp: false, allowPrivate: false };
const resolvesTo =
  (address: string): Resolver =>
  async () => [{ address, family: address.includes(':') ? 6 : 4 }];

describe('alerts: the webhook address check (creation and delivery)', () => {
  it('refuses every host only a private network answers, every name spelling an address, every non-public address: at creation and at delivery', async () => {
    for (const url of REFUSED_TARGETS) {
      expect(urlProblem(url, policy), url)
        .to.be.a('string')
        .and.match(/^must point to a public host, not to /);
      // The delivery refuses it before any lookup: even a name that would resolve to a public address.
      let refused: unknown = null;
      await checkTarget(url, policy, resolvesTo(PUBLIC_ADDRESS)).catch((e) => (refused = e));
      expect(refused, url).to.be.instanceOf(TargetRefused);
    }
  });

  it('keeps public hosts, at creation and at delivery', async () => {
    for (const url of ACCEPTED_TARGETS) {
      expect(urlProblem(url, policy), url).to.equal(null);
      const checked = await checkTarget(url, policy, resolvesTo(PUBLIC_ADDRESS));
      expect(checked.url.href, url).to.equal(new URL(url).href);
    }
  });

  it('with private targets allowed (development), the names and addresses are kept', async () => {
    for (const url of ['https://localhost./x', 'https://[::127.0.0.1]/x', 'https://10.0.3.7.nip.io/x'])
      expect(urlProblem(url, { allowHttp: false, allowPrivate: true }), url).to.equal(null);
  });

  it('a refusal says why in words and names no address the lookup gave', async () => {
    for (const [address, kind] of [
      ['10.0.3.7', 'private'],
      ['127.0.0.1', 'loopback'],
      ['169.254.169.254', 'link-local'],
      ['fd00::7', 'unique-local'],
      ['::ffff:10.0.3.7', 'private'],
    ]) {
      let refused: Error | null = null;
      await checkTarget('https://hooks.partner.example/x', policy, resolvesTo(address)).catch((e) => (refused = e));
      expect(refused, address).to.be.instanceOf(TargetRefused);
      const message = (refused as unknown as Error).message;
      expect(message).to.equal(
        `the host "hooks.partner.example" resolves to a ${kind} address, which webhooks may not reach`,
      );
      expect(message).to.not.match(/\d+\.\d+\.\d+\.\d+|[0-9a-f]*:[0-9a-f]*:/i);
    }
  });
});
