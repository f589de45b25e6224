// The reference page, the partner console and cross-origin access in a real headless Chromium,
// against a real server on a temporary DATA_DIR (test/support/browser.ts). Screenshots of each page
// go to .cache/browser/. In CI these run; elsewhere they skip when Chromium is missing.
import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { rmSync } from 'node:fs';
import { REPO_ROOT, startTestApi, tempDir, type TestApi } from '../support/api.js';
import { freePort, launch, type Launched } from '../support/processes.js';
import { launchBrowser, requireBrowser, screenshot, type Browser } from '../support/browser.js';
import { writeTinyCatalog } from '../support/catalog.js';
import { openapiDocument } from '../../src/http/openapi/document.js';

const NOW = new Date('2026-11-20T12:00:00.000Z');
const P = '/external/v1';

/** A tiny HTTP server on its own port serving one HTML page: another origin than the API's. */
async function otherOrigin(html: string): Promise<{ origin: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    res.writeHead(req.url === '/' ? 200 : 404, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end(req.url === '/' ? html : '');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections(); // the browser's keep-alive connections
      }),
  };
}

describe('browser: /docs, /console and cross-origin calls in headless Chromium', function () {
  this.timeout(180_000); // a loaded 2-core machine: Swagger UI alone can take half a minute
  let browser: Browser;

  before(async function () {
    requireBrowser(this);
    browser = await launchBrowser();
  });
  after(async function () {
    await browser?.close();
  });

  describe('/docs', function () {
    let api: TestApi;
    before(async function () {
      api = await startTestApi();
    });
    after(async function () {
      await api?.stop();
    });

    it('loads with no failed request and no console error, and lists every operation of the document', async function () {
      const { page, failures, errors } = await browser.page();
      await page.goto(`${api.url}/docs`);
      await page.waitForSelector('.opblock');
      const shown = await page.$$eval('.opblock', (blocks) => blocks.map((block) => block.id));
      const operations: string[] = [];
      const document = openapiDocument() as {
        paths: Record<string, Record<string, { operationId: string; tags: string[] }>>;
      };
      for (const methods of Object.values(document.paths)) {
        for (const op of Object.values(methods)) operations.push(`operations-${op.tags[0]}-${op.operationId}`);
      }
      // One operation per method of each route (HEAD is described in prose, not listed) and the document: 11 read
      // operations (suggest, similar and history among them), 9 of alerts, 3 of keys, the MCP endpoint and 3 of
      // CommonGrants.
      expect(operations).to.have.length(27);
      // The page lists them, and the webhooks (the events an alert POSTs) after them.
      expect(shown).to.include.members(operations);
      expect(
        shown.filter((id) => !operations.includes(id)).every((id) => id.startsWith('operations-webhooks-')),
      ).to.equal(true);
      for (const heading of ['Authentication', 'Limits and billing', 'Paging and sync', 'Your usage', 'Errors']) {
        expect(await page.locator('.info h2', { hasText: heading }).count(), heading).to.equal(1);
      }
      await screenshot(page, 'docs');
      expect(failures).to.deep.equal([]);
      expect(errors).to.deep.equal([]);
      await page.close();
    });

    it('"try it" with a pasted key sends the request to the same origin and shows a 200', async function () {
      const { page, failures, errors } = await browser.page();
      await page.goto(`${api.url}/docs`);
      await page.click('button.authorize');
      await page.fill('.modal-ux input[type=text], .modal-ux input[type=password]', api.key);
      await page.click('.modal-ux .auth-btn-wrapper button.authorize');
      await page.click('.modal-ux button.btn-done');
      await page.click('#operations-subscription-getLimits .opblock-summary');
      const answered = page.waitForResponse((response) => response.url() === `${api.url}${P}/subscription/limits`);
      await page.click('#operations-subscription-getLimits button.execute');
      const response = await answered;
      expect(response.status()).to.equal(200);
      expect(response.request().headers().authorization).to.equal(`Bearer ${api.key}`);
      const status = page
        .locator('#operations-subscription-getLimits .live-responses-table tbody .response-col_status')
        .first();
      await status.waitFor();
      expect((await status.textContent())?.trim()).to.equal('200');
      await screenshot(page, 'docs-try-it');
      expect(failures).to.deep.equal([]);
      expect(errors).to.deep.equal([]);
      await page.close();
    });
  });

  describe('/console', function () {
    let api: TestApi;
    let workDir: string;
    let now = NOW;
    before(async function () {
      workDir = tempDir('grants-console-');
      api = await startTestApi({ SEED_FILE: writeTinyCatalog(workDir) }, { clock: () => now });
    });
    beforeEach(function () {
      now = NOW;
    });
    after(async function () {
      await api?.stop();
      rmSync(workDir, { recursive: true, force: true });
    });

    /** Opens /console, submits the key, waits for the report or the error. */
    async function openConsole(key: string, days = '30') {
      const watched = await browser.page();
      await watched.page.goto(`${api.url}/console`);
      await watched.page.selectOption('#days', days);
      await watched.page.fill('#key', key);
      await watched.page.click('#show');
      await watched.page.waitForSelector('body[data-state]');
      return watched;
    }

    it('shows the tier, status, rate, features, the gauge numbers and one bar per day with heights in proportion to the calls', async function () {
      const created = api.deps.subscriptions.create({ name: 'console', tier: 'PROFESSIONAL', monthlyLimit: 40 });
      const key = created.apiKey;
      const call = async (path: string) =>
        expect((await api.request(`${P}${path}`, { key })).status, path).to.equal(200);
      // Calls on several days of this month, through the API with the injected clock...
      const month: [string, number][] = [
        ['2026-11-03T09:00:00.000Z', 4],
        ['2026-11-12T15:30:00.000Z', 9],
        ['2026-11-20T08:00:00.000Z', 3],
      ];
      for (const [at, calls] of month) {
        now = new Date(at);
        for (let i = 0; i < calls; i += 1) await call(i % 2 === 0 ? '/grants' : '/grants/filters');
      }
      // ...and last month, as seeded usage rows (they are statistics, not this month's allowance).
      const seeded: [string, number][] = [
        ['2026-10-22T10:00:00.000Z', 6],
        ['2026-10-23T10:00:00.000Z', 9],
        ['2026-10-26T10:00:00.000Z', 5],
        ['2026-10-27T10:00:00.000Z', 11],
        ['2026-10-28T10:00:00.000Z', 8],
        ['2026-10-30T10:00:00.000Z', 12],
        ['2026-10-31T10:00:00.000Z', 2],
      ];
      for (const [at, calls] of seeded) {
        for (let i = 0; i < calls; i += 1) {
          void api.deps.usage.record({
            at: new Date(at),
            subscriptionId: created.subscription.id,
            keyId: 'seeded',
            keyPrefix: 'gk_live_seed',
            endpoint: '/grants/:id',
            billable: true,
            status: 200,
            latencyMs: 1,
            requestId: `req_seeded${i}`,
          });
        }
      }
      api.deps.usage.flush();
      now = NOW;

      const { page, failures, errors } = await openConsole(key);
      expect(await page.getAttribute('body', 'data-state')).to.equal('ready');
      expect(await page.textContent('#tier')).to.equal('PROFESSIONAL');
      expect(await page.textContent('#status')).to.equal('ACTIVE');
      expect(await page.textContent('#rate')).to.equal('50 requests per second');
      const features = await page.$$eval('#features li', (items) =>
        items.map((item) => [item.getAttribute('data-feature'), item.getAttribute('data-enabled')]),
      );
      expect(features).to.have.deep.members([
        ['grants.search', 'true'],
        ['grants.read', 'true'],
        ['grants.export', 'false'],
        ['alerts.manage', 'true'],
        ['subscription.read', 'true'],
      ]);

      const used = month.reduce((n, [, calls]) => n + calls, 0);
      expect(await page.getAttribute('#gauge-used', 'data-value')).to.equal(String(used));
      expect(await page.getAttribute('#gauge-limit', 'data-value')).to.equal('40');
      expect(await page.getAttribute('#gauge-remaining', 'data-value')).to.equal(String(40 - used));
      expect(await page.textContent('#gauge-reset')).to.equal('1 December 2026');
      const fill = Number(await page.getAttribute('#gauge-fill', 'width'));
      expect(fill).to.be.closeTo((used / 40) * 400, 0.01);

      const bars = await page.$$eval('#chart rect.bar', (rects) =>
        rects.map((rect) => ({
          date: rect.getAttribute('data-date')!,
          calls: Number(rect.getAttribute('data-calls')),
          height: Number(rect.getAttribute('height')),
          drawn: rect.getBoundingClientRect().height,
        })),
      );
      expect(bars).to.have.length(30);
      expect(bars[0].date).to.equal('2026-10-22');
      expect(bars[29].date).to.equal('2026-11-20');
      const expected = new Map<string, number>([...seeded, ...month].map(([at, calls]) => [at.slice(0, 10), calls]));
      const tallest = Math.max(...expected.values());
      const tallestBar = bars.find((bar) => bar.calls === tallest)!;
      expect(tallestBar.drawn).to.be.above(100);
      for (const bar of bars) {
        expect(bar.calls, bar.date).to.equal(expected.get(bar.date) ?? 0);
        expect(bar.height / tallestBar.height, bar.date).to.be.closeTo(bar.calls / tallest, 0.001);
        expect(bar.drawn / tallestBar.drawn, bar.date).to.be.closeTo(bar.calls / tallest, 0.01);
      }
      const top = await page.$$eval('#top-endpoints li', (items) =>
        items.map((item) => [item.getAttribute('data-endpoint'), Number(item.getAttribute('data-calls'))]),
      );
      expect(top).to.deep.equal([
        ['/grants/:id', seeded.reduce((n, [, calls]) => n + calls, 0)],
        ['/grants', 9],
        ['/grants/filters', 7],
      ]);
      await screenshot(page, 'console');

      // 7 days: one bar per day of the shorter window, and the key was kept in the tab.
      await page.selectOption('#days', '7');
      await page.waitForFunction(() => document.querySelectorAll('#chart rect.bar').length === 7);
      expect(await page.evaluate(() => sessionStorage.getItem('grants-console-key'))).to.equal(key);
      expect(failures).to.deep.equal([]);
      expect(errors).to.deep.equal([]);
      await page.close();
    });

    it("lists the partner's alerts on demand with their last delivery and failures, readable at 390 px", async function () {
      const { apiKey } = api.deps.subscriptions.create({ name: 'alerts', tier: 'PROFESSIONAL' });
      const created = await fetch(`${api.url}/external/v1/alerts`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({
          name: 'Ontario clean energy',
          query: { eligibleProvinces: ['ONTARIO'] },
          url: 'https://93.184.215.14/hooks',
        }),
      });
      expect(created.status).to.equal(201);
      const { page, failures, errors } = await openConsole(apiKey);
      await page.setViewportSize({ width: 390, height: 844 });
      expect(await page.isVisible('#alerts-card')).to.equal(true);
      expect(await page.textContent('#alerts-count')).to.equal('1 of 100 alerts');
      await page.click('#load-alerts');
      await page.waitForSelector('#alerts li[data-alert]');
      const items = await page.$$eval('#alerts li[data-alert]', (lis) =>
        lis.map((li) => [li.getAttribute('data-status'), li.textContent]),
      );
      expect(items).to.have.length(1);
      expect(items[0][0]).to.equal('ACTIVE');
      expect(items[0][1]).to.contain('Ontario clean energy').and.contain('no delivery yet');
      // The chart's labels stay legible on a phone: at least 8 CSS pixels high.
      const labelHeight = await page.$eval('#chart text', (t) => t.getBoundingClientRect().height);
      expect(labelHeight).to.be.at.least(8);
      await screenshot(page, 'console-alerts-390');
      expect(failures).to.deep.equal([]);
      expect(errors).to.deep.equal([]);
      await page.close();
    });

    it("shows the key in use and its restrictions, and the subscription's keys on demand (never a key itself)", async function () {
      const created = api.deps.subscriptions.create({ name: 'keys', tier: 'PROFESSIONAL' });
      const restricted = api.deps.subscriptions.createKey(created.subscription.id, undefined, {
        name: 'Browser widget',
        restrictions: {
          scopes: ['grants:search', 'subscription:read'],
          origins: null,
          ips: null,
          expiresAt: null,
          rateLimit: 5,
        },
      });
      const { page, failures, errors } = await openConsole(restricted.apiKey);
      expect(await page.textContent('#key-prefix')).to.equal(`${restricted.apiKey.slice(0, 12)}…`);
      expect(await page.textContent('#key-restrictions')).to.equal(
        'scopes: grants:search, subscription:read · 5 requests per second of its own',
      );
      // That key lacks keys:manage: the list is refused in plain words.
      await page.click('#load-keys');
      await page.waitForSelector('#keys-error:not([hidden])');
      expect(await page.textContent('#keys-error')).to.match(/^This key is restricted: .*"keys:manage"/);
      expect(failures.join('\n')).to.match(/\/keys: HTTP 403/);
      await page.close();

      const opened = await openConsole(created.apiKey);
      expect(await opened.page.textContent('#key-restrictions')).to.match(/^Unrestricted/);
      await opened.page.click('#load-keys');
      await opened.page.waitForSelector('#keys li[data-key]');
      const items = await opened.page.$$eval('#keys li[data-key]', (lis) =>
        lis.map((li) => [li.getAttribute('data-key'), li.textContent]),
      );
      // Both keys were made at the suite's fixed clock instant: their order is by id.
      expect(items.map(([id]) => id)).to.have.members([created.keyId, restricted.keyId]);
      expect(items.find(([id]) => id === restricted.keyId)![1])
        .to.contain('Browser widget')
        .and.contain('scopes: grants:search, subscription:read');
      const html = await opened.page.content();
      expect(html).to.not.contain(restricted.apiKey.slice(12)).and.not.contain(created.apiKey.slice(12));
      await screenshot(opened.page, 'console-keys');
      expect(opened.failures).to.deep.equal([]);
      expect(opened.errors).to.deep.equal([]);
      // The first page's only console message is Chromium's note of the refused /keys call.
      expect(errors).to.deep.equal(['Failed to load resource: the server responded with a status of 403 (Forbidden)']);
      await opened.page.close();
    });

    it('a bad key shows the error in plain words', async function () {
      const { page, failures } = await openConsole('gk_live_thisKeyWasNeverIssuedToAnyone000');
      expect(await page.getAttribute('body', 'data-state')).to.equal('error');
      expect(await page.isVisible('#error')).to.equal(true);
      expect(await page.isVisible('#report')).to.equal(false);
      expect(await page.textContent('#error')).to.match(/^This key is not valid/);
      expect(failures.join('\n')).to.match(/subscription\/usage\?days=30: HTTP 401/);
      expect(await page.evaluate(() => sessionStorage.getItem('grants-console-key'))).to.equal(null);
      await screenshot(page, 'console-bad-key');
      await page.close();
    });

    it('a cancelled subscription is an error in plain words; a suspended one shows its status and what it means', async function () {
      const cancelled = api.deps.subscriptions.create({ name: 'cancelled', tier: 'STARTER' });
      api.deps.subscriptions.setStatus(cancelled.subscription.id, 'CANCELLED');
      const one = await openConsole(cancelled.apiKey);
      expect(await one.page.textContent('#error')).to.match(/subscription is cancelled/);
      await one.page.close();

      const suspended = api.deps.subscriptions.create({ name: 'suspended', tier: 'STARTER' });
      api.deps.subscriptions.setStatus(suspended.subscription.id, 'SUSPENDED');
      const two = await openConsole(suspended.apiKey);
      expect(await two.page.getAttribute('body', 'data-state')).to.equal('ready');
      expect(await two.page.textContent('#status')).to.equal('SUSPENDED');
      expect(await two.page.textContent('#status-note')).to.match(/suspended: grant searches and reads are refused/);
      expect(await two.page.textContent('#tier')).to.equal('STARTER');
      await two.page.close();
    });
    it('rate-limited: the page says to wait, in plain words', async function () {
      // At 1 request per second the page's two calls (usage, then limits) meet the limit unless a
      // second passes between them; "Show usage" again until a 429 happened.
      const limited = api.deps.subscriptions.create({ name: 'limited', tier: 'STARTER', rateLimit: 1 });
      const { page } = await openConsole(limited.apiKey);
      let refused = false;
      page.on('response', (response) => {
        if (response.status() === 429) refused = true;
      });
      for (let attempt = 0; attempt < 10 && !refused; attempt += 1) {
        await page.evaluate(() => document.body.removeAttribute('data-state'));
        await page.click('#show');
        await page.waitForSelector('body[data-state]');
      }
      expect(refused, 'no call was refused in 10 attempts').to.equal(true);
      expect(await page.getAttribute('body', 'data-state')).to.equal('error');
      expect(await page.textContent('#error')).to.match(
        /^Too many requests in the last second\. Wait [0-9]+ second\(s\) and try again\.$/,
      );
      await screenshot(page, 'console-rate-limited');
      await page.close();
    });
  });

  describe('the server process as `npm start` runs it, with the demo key', function () {
    const DEMO_KEY = 'gk_live_browserDemoKey0123456789abcdefghij';
    let server: Launched | undefined;
    let workDir: string;
    let base: string;
    before(async function () {
      workDir = tempDir('grants-browser-start-');
      const port = await freePort();
      server = launch(process.execPath, ['dist/src/main.js'], {
        cwd: REPO_ROOT,
        env: {
          ...process.env,
          REDIS_URL: '',
          DATA_DIR: workDir,
          PORT: String(port),
          HOST: '127.0.0.1',
          LOG_LEVEL: 'silent',
          DEMO_API_KEY: DEMO_KEY,
          SEED_FILE: writeTinyCatalog(workDir),
        },
      });
      await server.waitFor('stderr', /curl .*\n/, 30_000);
      base = `http://127.0.0.1:${port}`;
    });
    after(async function () {
      if (server !== undefined) {
        server.child.kill('SIGTERM');
        const stopped = await Promise.race([
          server.exited.then(() => true),
          new Promise<boolean>((r) => setTimeout(() => r(false), 10_000)),
        ]);
        if (!stopped) server.kill();
      }
      rmSync(workDir, { recursive: true, force: true });
    });

    it('/docs and /console open with no failed request, and the console shows the demo subscription', async function () {
      const docs = await browser.page();
      await docs.page.goto(`${base}/docs`);
      await docs.page.waitForSelector('#operations-grants-searchGrants');
      expect(docs.failures).to.deep.equal([]);
      expect(docs.errors).to.deep.equal([]);
      await docs.page.close();

      const { page, failures, errors } = await browser.page();
      await page.goto(`${base}/console`);
      await page.fill('#key', DEMO_KEY);
      await page.click('#show');
      await page.waitForSelector('body[data-state]');
      expect(await page.getAttribute('body', 'data-state')).to.equal('ready');
      expect(await page.textContent('#tier')).to.equal('PROFESSIONAL');
      expect(await page.getAttribute('#gauge-limit', 'data-value')).to.equal('100000');
      expect(await page.$$eval('#chart rect.bar', (rects) => rects.length)).to.equal(30);
      expect(failures).to.deep.equal([]);
      expect(errors).to.deep.equal([]);
      await page.close();
    });
  });

  describe('/console at 1280 px and at 390 px (a laptop, a phone), on the server as `npm start` runs it', function () {
    const DEMO_KEY = 'gk_live_browserWidthsKey0123456789abcdefghi';
    let server: Launched | undefined;
    let workDir: string;
    let base: string;
    before(async function () {
      workDir = tempDir('grants-browser-widths-');
      const port = await freePort();
      server = launch(process.execPath, ['dist/src/main.js'], {
        cwd: REPO_ROOT,
        env: {
          ...process.env,
          REDIS_URL: '',
          DATA_DIR: workDir,
          PORT: String(port),
          HOST: '127.0.0.1',
          LOG_LEVEL: 'silent',
          DEMO_API_KEY: DEMO_KEY,
          SEED_FILE: writeTinyCatalog(workDir),
        },
      });
      await server.waitFor('stderr', /curl .*\n/, 30_000);
      base = `http://127.0.0.1:${port}`;
      for (const path of ['/grants?open=true', '/grants/filters', '/subscription/limits']) {
        expect(
          (await fetch(`${base}${P}${path}`, { headers: { Authorization: `Bearer ${DEMO_KEY}` } })).status,
          path,
        ).to.equal(200);
      }
    });
    after(async function () {
      if (server !== undefined) {
        server.child.kill('SIGTERM');
        const stopped = await Promise.race([
          server.exited.then(() => true),
          new Promise<boolean>((r) => setTimeout(() => r(false), 10_000)),
        ]);
        if (!stopped) server.kill();
      }
      rmSync(workDir, { recursive: true, force: true });
    });

    for (const { width, height, sideBySide } of [
      { width: 1280, height: 800, sideBySide: true },
      { width: 390, height: 844, sideBySide: false },
    ]) {
      it(`at ${width} px: nothing wider than the screen, the subscription and feature cards ${sideBySide ? 'side by side' : 'stacked'}, the chart as wide as its card with labels of at least 8 px that do not overlap`, async function () {
        const { page, failures, errors } = await browser.page();
        await page.setViewportSize({ width, height });
        await page.goto(`${base}/console`);
        await page.fill('#key', DEMO_KEY);
        await page.click('#show');
        await page.waitForSelector('body[data-state="ready"]');
        const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
        expect(scrollWidth, 'no horizontal scrolling').to.be.at.most(width);
        const cards = await page.$$eval('.cards > .card:not(.wide)', (list) =>
          list.map((card) => card.getBoundingClientRect().toJSON() as DOMRect),
        );
        expect(cards).to.have.length(2);
        if (sideBySide) expect(cards[1].top).to.equal(cards[0].top);
        else expect(cards[1].top).to.be.at.least(cards[0].bottom);
        const chart = await page.$eval('#chart', (svg) => ({
          box: svg.getBoundingClientRect().toJSON() as DOMRect,
          card: svg.parentElement!.getBoundingClientRect().toJSON() as DOMRect,
        }));
        expect(chart.box.width, 'the chart fills its card').to.be.above(chart.card.width - 40);
        const labels = await page.$$eval('#chart text', (texts) =>
          texts.map((t) => t.getBoundingClientRect().toJSON() as DOMRect),
        );
        const dates = labels
          .filter((label) => label.top > chart.box.top + chart.box.height - 30)
          .sort((a, b) => a.left - b.left);
        expect(dates.length, 'some dates are labelled').to.be.at.least(3);
        for (const label of labels) expect(label.height, 'label height').to.be.at.least(8);
        for (let i = 1; i < dates.length; i += 1)
          expect(dates[i].left, `date label ${i} clear of the one before`).to.be.at.least(dates[i - 1].right);
        expect(dates.at(-1)!.right, 'the last date inside the chart').to.be.at.most(chart.box.right + 0.5);
        await screenshot(page, `console-${width}`);
        expect(failures).to.deep.equal([]);
        expect(errors).to.deep.equal([]);
        await page.close();
      });
    }
  });

  describe('cross-origin calls with fetch', function () {
    let api: TestApi;
    let allowed: Awaited<ReturnType<typeof otherOrigin>>;
    let refused: Awaited<ReturnType<typeof otherOrigin>>;
    const page = '<!doctype html><title>partner app</title><p>partner app</p>';

    before(async function () {
      allowed = await otherOrigin(page);
      refused = await otherOrigin(page);
      api = await startTestApi({ CORS_ORIGINS: allowed.origin });
    });
    after(async function () {
      await api?.stop();
      await allowed?.close();
      await refused?.close();
    });

    /**
     * Runs fetch() in a page of `origin` against the API with the key; the status and readable headers, or the error.
     */
    async function fetchFrom(origin: string, key: string = api.key) {
      const { page: tab } = await browser.page();
      await tab.goto(`${origin}/`);
      const result = await tab.evaluate(
        async ({ url, key }) => {
          try {
            // no-store: each call asks the API (a cached answer of another key would be revalidated, not refused).
            const response = await fetch(url, { headers: { Authorization: `Bearer ${key}` }, cache: 'no-store' });
            const headers: Record<string, string | null> = {};
            for (const name of [
              'X-Request-Id',
              'RateLimit-Policy',
              'RateLimit',
              'X-RateLimit-Limit',
              'X-RateLimit-Remaining',
              'X-RateLimit-Reset',
            ]) {
              headers[name] = response.headers.get(name);
            }
            return { status: response.status, headers, total: (await response.json()).pagination.total as number };
          } catch (error) {
            return { error: String(error) };
          }
        },
        { url: `${api.url}${P}/grants?limit=1`, key },
      );
      await tab.close();
      return result;
    }

    it('an allowed origin reads the answer, X-Request-Id and the rate-limit headers', async function () {
      const result = await fetchFrom(allowed.origin);
      expect(result).to.have.property('status', 200);
      const { headers, total } = result as { headers: Record<string, string | null>; total: number };
      expect(total).to.be.above(0);
      expect(headers['X-Request-Id']).to.match(/^req_[A-Za-z0-9_-]{24}$/);
      expect(headers['X-RateLimit-Limit']).to.match(/^[0-9]+$/);
      expect(headers['X-RateLimit-Remaining']).to.match(/^[0-9]+$/);
      expect(headers['X-RateLimit-Reset']).to.match(/^[0-9]+$/);
      expect(headers['RateLimit-Policy']).to.be.a('string').and.not.equal('');
      expect(headers.RateLimit).to.be.a('string').and.not.equal('');
    });

    it('another origin is refused by the browser', async function () {
      const result = await fetchFrom(refused.origin);
      expect(result)
        .to.have.property('error')
        .that.matches(/TypeError: Failed to fetch/);
    });

    it("an origin outside CORS_ORIGINS that a key lists reads the answers made with that key, and no other key's", async function () {
      const listing = api.deps.subscriptions.createKey(api.subscriptionId, undefined, {
        name: 'page key',
        restrictions: {
          scopes: ['grants:search'],
          origins: [refused.origin],
          ips: null,
          expiresAt: null,
          rateLimit: null,
        },
      });
      const result = await fetchFrom(refused.origin, listing.apiKey);
      expect(result).to.have.property('status', 200);
      expect((result as { headers: Record<string, string | null> }).headers['X-Request-Id']).to.match(/^req_/);
      // The harness key lists no origin: from that page the browser keeps its answer from the page.
      expect(await fetchFrom(refused.origin))
        .to.have.property('error')
        .that.matches(/TypeError: Failed to fetch/);
      // And the listing key, from the origin the deployment allows but it does not list, is refused too.
      expect(await fetchFrom(allowed.origin, listing.apiKey))
        .to.have.property('error')
        .that.matches(/TypeError: Failed to fetch/);
      api.deps.subscriptions.revokeKey(listing.keyId);
    });
  });
});
