// The browser tests' guard: with Chromium missing they skip outside CI, saying why, and fail in CI.
import { expect } from 'chai';
import { browserMissing, requireBrowser } from '../support/browser.js';

describe('unit: the browser tests run in CI, never skip', () => {
  const nowhere = '/nonexistent/chromium';
  const suite = () => {
    const calls = { skipped: 0 };
    return { calls, context: { skip: (() => (calls.skipped += 1)) as unknown as Mocha.Context['skip'] } };
  };

  it('a missing Chromium is named with how to install it', () => {
    expect(browserMissing(nowhere)).to.equal(
      'no Chromium at /nonexistent/chromium (install it with `npm run browser:install`)',
    );
    expect(browserMissing(process.execPath)).to.equal(null);
  });

  it('CI=true or CI=1 with Chromium missing: an error, not a skip', () => {
    for (const CI of ['true', '1']) {
      const { calls, context } = suite();
      expect(() => requireBrowser(context, { CI }, nowhere)).to.throw(/browser tests must run in CI: no Chromium/);
      expect(calls.skipped).to.equal(0);
    }
  });

  it('outside CI with Chromium missing: a skip; with it present: neither', () => {
    const missing = suite();
    requireBrowser(missing.context, {}, nowhere);
    expect(missing.calls.skipped).to.equal(1);
    const present = suite();
    requireBrowser(present.context, { CI: 'true' }, process.execPath);
    expect(present.calls.skipped).to.equal(0);
  });
});
