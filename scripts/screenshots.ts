// npm run screenshots: the screenshots of the partner console and of the search page shown in the
// README and the partner guide (docs/images/console-1280.png, console-390.png, search-1280.png and
// search-390.png), taken from a real server: the API process as
// `npm start` runs it (node dist/src/main.js) on a free port, a temporary data folder seeded with the
// bundled fixtures, and a demo key. The key makes the README's first requests (a search of open
// grants, the filter values, one grant, an export, its usage and limits), then headless Chromium
// (Debian's, as the browser tests use) opens /console at 1280 and at 390 CSS pixels wide, shows the
// report and saves each full page; then, with a restricted key the demo key makes (grants:search and
// grants:read, limited to the server's origin), opens /search at both widths, searches, and saves
// what the screen shows. Needs Chromium (`npm run browser:install`); not part of npm test.
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT, tempDir } from '../test/support/api.js';
import { browserMissing, launchBrowser } from '../test/support/browser.js';
import { freePort, launch } from '../test/support/processes.js';

const OUT = path.join(REPO_ROOT, 'docs/images');
const DEMO_KEY = 'gk_live_screenshotDemoKey0123456789abcdefgh';
/** What the search page's pictures show searched. */
const SEARCHED = 'clean energy';
const WIDTHS = [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
];

async function main(): Promise<void> {
  const missing = browserMissing();
  if (missing !== null) throw new Error(missing);
  const dataDir = tempDir('grants-screenshots-');
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const server = launch(process.execPath, [path.join(REPO_ROOT, 'dist/src/main.js')], {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      DEMO_API_KEY: DEMO_KEY,
      LOG_LEVEL: 'info',
      LOG_FORMAT: 'json',
      REDIS_URL: '',
      DATABASE_URL: '',
      SEARCH_ENGINE: 'sqlite',
    },
  });
  try {
    await server.waitFor('stdout', /"msg":"grants API listening"/, 180_000);
    const call = async (pathAndQuery: string) => {
      const res = await fetch(`${base}/external/v1${pathAndQuery}`, {
        headers: { Authorization: `Bearer ${DEMO_KEY}` },
      });
      if (res.status !== 200) throw new Error(`${pathAndQuery}: ${res.status} ${await res.text()}`);
      return res.text();
    };
    const first = JSON.parse(
      await call('/grants?open=true&search=quebec&eligibleProvinces=QUEBEC,ONTARIO&limit=5'),
    ) as { data: { id: string }[] };
    await call('/grants?open=true&sort=deadline&limit=20');
    await call('/grants/filters');
    await call(`/grants/${first.data[0].id}`);
    await call('/grants/export?format=csv&open=true&eligibleProvinces=ONTARIO');
    await call('/subscription/usage?days=7');
    await call('/subscription/limits');

    mkdirSync(OUT, { recursive: true });
    const browser = await launchBrowser();
    try {
      for (const size of WIDTHS) {
        const { page, failures, errors } = await browser.page();
        await page.setViewportSize(size);
        await page.goto(`${base}/console`);
        await page.fill('#key', DEMO_KEY);
        await page.click('#show');
        await page.waitForSelector('body[data-state="ready"]');
        if (failures.length > 0 || errors.length > 0)
          throw new Error(`the console failed at ${size.width} px: ${[...failures, ...errors].join('; ')}`);
        const file = path.join(OUT, `console-${size.width}.png`);
        await page.screenshot({ path: file, fullPage: true });
        process.stdout.write(`wrote ${path.relative(REPO_ROOT, file)}\n`);
        await page.close();
      }
      const pageKey = await fetch(`${base}/external/v1/keys`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${DEMO_KEY}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({
          name: 'Search page',
          scopes: ['grants:search', 'grants:read'],
          origins: [base],
          rateLimit: 10,
        }),
      });
      if (pageKey.status !== 201) throw new Error(`POST /keys: ${pageKey.status} ${await pageKey.text()}`);
      const { apiKey } = ((await pageKey.json()) as { data: { apiKey: string } }).data;
      for (const size of WIDTHS) {
        const { page, failures, errors } = await browser.page();
        await page.setViewportSize(size);
        await page.goto(`${base}/search?q=${encodeURIComponent(SEARCHED)}`);
        await page.fill('#key', apiKey);
        await page.click('#use-key');
        await page.waitForSelector('body[data-state="ready"]');
        if (failures.length > 0 || errors.length > 0)
          throw new Error(`the search page failed at ${size.width} px: ${[...failures, ...errors].join('; ')}`);
        const file = path.join(OUT, `search-${size.width}.png`);
        await page.screenshot({ path: file });
        process.stdout.write(`wrote ${path.relative(REPO_ROOT, file)}\n`);
        await page.close();
      }
    } finally {
      await browser.close();
    }
  } finally {
    server.child.kill('SIGTERM');
    await Promise.race([server.exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
    server.kill();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`screenshots: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
