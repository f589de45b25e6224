// "Try it out" on /docs, out of the box: the server as `npm start` runs it on the bundled fixture
// catalog with its demo key, the reference page authorized with that key, and every operation of
// the document executed as the page fills it in (the parameters' and bodies' examples). An
// operation on one alert, delivery or key follows the flow its `id` parameter describes: the id
// is pasted from the answer of the operation that made it (createAlert, testAlert, createKey), the
// rest stays as filled in. Each must show a 2xx on the page, and the alert and delivery lists the
// alert and message made before them. In CI these run; elsewhere they skip
// when Chromium is missing.
import { expect } from 'chai';
import { rmSync } from 'node:fs';
import type { Locator, Page } from 'playwright-core';
import { REPO_ROOT, tempDir } from '../support/api.js';
import { freePort, launch, type Launched } from '../support/processes.js';
import { launchBrowser, requireBrowser, screenshot, type Browser } from '../support/browser.js';
import { openapiDocument } from '../../src/http/openapi/document.js';

/** Where an id parameter's value comes from: the `data.id` of an earlier operation's answer. */
const PASTED: Record<string, Record<string, string>> = {
  getAlert: { id: 'createAlert' },
  updateAlert: { id: 'createAlert' },
  listAlertDeliveries: { id: 'createAlert' },
  testAlert: { id: 'createAlert' },
  retryAlertDelivery: { id: 'createAlert', deliveryId: 'testAlert' },
  rotateAlertSecret: { id: 'createAlert' },
  deleteAlert: { id: 'createAlert' },
  revokeKey: { id: 'createKey' },
};

/** Every operation, in an order where each id exists when it is used (the deletions last of their kind). */
const ORDER = [
  'searchGrants',
  'suggestGrants',
  'getGrantFilters',
  'getGrantChanges',
  'exportGrants',
  'getGrant',
  'getSimilarGrants',
  'getGrantHistory',
  'listCommonGrantsOpportunities',
  'searchCommonGrantsOpportunities',
  'getCommonGrantsOpportunity',
  'getUsage',
  'getLimits',
  'createAlert',
  'listAlerts',
  'getAlert',
  'updateAlert',
  'testAlert',
  'listAlertDeliveries',
  'retryAlertDelivery',
  'rotateAlertSecret',
  'deleteAlert',
  'listKeys',
  'createKey',
  'revokeKey',
  'postMcpMessage',
  'getOpenapiDocument',
];

/** The lists that must show what was made before them (as the page fills them in: no cursor past it). */
const LISTED: Record<string, string> = { listAlerts: 'createAlert', listAlertDeliveries: 'testAlert' };

/** The answer's JSON as the page shows it. */
async function shownAnswer(block: Locator): Promise<{ data?: { id?: string } | { id: string }[] }> {
  const text = await block.locator('.live-responses-table .response-col_description pre').first().textContent();
  return JSON.parse(text ?? 'null') as { data?: { id?: string } | { id: string }[] };
}

/** Opens the operation, pastes the ids it needs, executes it and returns the status the page shows. */
async function execute(
  page: Page,
  tag: string,
  operationId: string,
  ids: Map<string, string>,
): Promise<{ status: string; block: Locator }> {
  const block = page.locator(`#operations-${tag}-${operationId}`);
  await block.locator('.opblock-summary').first().click();
  const tryOut = block.locator('button.try-out__btn', { hasText: 'Try it out' });
  if ((await tryOut.count()) > 0) await tryOut.click();
  for (const [param, from] of Object.entries(PASTED[operationId] ?? {})) {
    const id = ids.get(from);
    if (id === undefined) return { status: `no ${param}: ${from} answered none`, block };
    await block.locator(`tr[data-param-name="${param}"] input`).fill(id);
  }
  await block.locator('button.execute').click();
  const status = block.locator('.live-responses-table tbody .response-col_status').first();
  await status.waitFor();
  return { status: (await status.textContent())?.trim() ?? '', block };
}

describe('browser: every operation of /docs answers 2xx as "Try it out" fills it in, with the demo key on the bundled catalog', function () {
  this.timeout(1_800_000); // 21 operations of Swagger UI on a loaded 2-core machine
  const DEMO_KEY = 'gk_live_browserTryItKey0123456789abcdefghij';
  let browser: Browser | undefined;
  let server: Launched | undefined;
  let workDir: string;
  let base: string;

  before(async function () {
    requireBrowser(this);
    workDir = tempDir('grants-browser-try-');
    const port = await freePort();
    // No SEED_FILE: the bundled fixture catalog, as a first `npm start` seeds it.
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
      },
    });
    await server.waitFor('stderr', /curl .*\n/, 60_000);
    base = `http://127.0.0.1:${port}`;
    browser = await launchBrowser();
  });
  after(async function () {
    await browser?.close();
    if (server !== undefined) {
      server.child.kill('SIGTERM');
      const stopped = await Promise.race([
        server.exited.then(() => true),
        new Promise<boolean>((r) => setTimeout(() => r(false), 10_000)),
      ]);
      if (!stopped) server.kill();
    }
    if (workDir) rmSync(workDir, { recursive: true, force: true });
  });

  it('executes every operation, in order, each showing a 2xx', async function () {
    const tags = new Map<string, string>();
    const document = openapiDocument() as {
      paths: Record<string, Record<string, { operationId: string; tags: string[] }>>;
    };
    for (const methods of Object.values(document.paths))
      for (const op of Object.values(methods)) tags.set(op.operationId, op.tags[0]);
    expect(ORDER, 'every operation of the document, once').to.have.members([...tags.keys()]);

    const { page, failures, errors } = await browser!.page();
    await page.goto(`${base}/docs`);
    await page.click('button.authorize');
    await page.fill('.modal-ux input[type=text], .modal-ux input[type=password]', DEMO_KEY);
    await page.click('.modal-ux .auth-btn-wrapper button.authorize');
    await page.click('.modal-ux button.btn-done');

    const ids = new Map<string, string>();
    const statuses: Record<string, string> = {};
    for (const operationId of ORDER) {
      const { status, block } = await execute(page, tags.get(operationId)!, operationId, ids);
      statuses[operationId] = status;
      if (
        /^2\d\d$/.test(status) &&
        (operationId === 'createAlert' || operationId === 'testAlert' || operationId === 'createKey')
      ) {
        const { data } = await shownAnswer(block);
        if (data !== undefined && !Array.isArray(data) && data.id !== undefined) ids.set(operationId, data.id);
      }
      if (/^2\d\d$/.test(status) && LISTED[operationId] !== undefined) {
        const { data } = await shownAnswer(block);
        const made = ids.get(LISTED[operationId]);
        if (!Array.isArray(data) || !data.some((item) => item.id === made))
          statuses[operationId] = `${status} without the ${LISTED[operationId]} id ${made}`;
      }
      // Closed again, so that the page stays small.
      await block.locator('.opblock-summary').first().click();
    }
    await screenshot(page, 'docs-try-every-operation');
    expect(
      Object.entries(statuses).filter(([, status]) => !/^2\d\d$/.test(status)),
      'operations without a 2xx',
    ).to.deep.equal([]);
    expect(failures).to.deep.equal([]);
    expect(errors).to.deep.equal([]);
    await page.close();
  });
});
