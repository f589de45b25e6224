// Highlights as a partner's page uses them, in a real headless Chromium: the highlights of a search
// over a grant whose text holds a script and an image with an onerror handler, inserted with
// innerHTML as they come, show the marks and the text of the tags, and run nothing; the same text
// inserted raw does run (so the check can fail). Screenshot in .cache/browser/.
import { expect } from 'chai';
import { launchBrowser, requireBrowser, screenshot, type Browser } from '../support/browser.js';
import { GRANTS_PATH as G, startCatalogApi, stopCatalogApi } from '../support/catalog.js';
import { HIGHLIGHT_GRANTS, HIGHLIGHT_IDS, HOSTILE_SCRIPT } from '../support/highlightCatalog.js';
import type { TestApi } from '../support/api.js';

const PAGE =
  '<!doctype html><html><head><meta charset="utf-8"><title>Results</title></head><body><main ' +
  'id="results"></main></body></html>';

describe('browser: highlights inserted as HTML in headless Chromium', function () {
  this.timeout(180_000);
  let browser: Browser;
  let api: TestApi;

  before(async function () {
    requireBrowser(this);
    browser = await launchBrowser();
    api = await startCatalogApi(HIGHLIGHT_GRANTS, { prefix: 'highlights-browser-' });
  });
  after(async function () {
    await browser?.close();
    await stopCatalogApi(api);
  });

  /** A page with the given HTML strings inserted with innerHTML, one article each; what ran and what shows. */
  async function insert(htmls: string[]) {
    const { page } = await browser.page();
    await page.setContent(PAGE);
    await page.evaluate((items) => {
      const main = document.getElementById('results')!;
      for (const html of items) {
        const article = document.createElement('article');
        article.innerHTML = html;
        main.appendChild(article);
      }
    }, htmls);
    // An image that fails to load reports its error asynchronously: give it the time to.
    await page.waitForTimeout(1000);
    return {
      page,
      pwned: await page.evaluate(() => (window as unknown as { __pwned?: boolean }).__pwned === true),
      marks: await page.$$eval('#results mark', (marks) => marks.map((m) => m.textContent)),
      elements: await page.$$eval('#results *', (all) => [...new Set(all.map((e) => e.tagName.toLowerCase()))].sort()),
      text: await page.$eval('#results', (main) => main.textContent ?? ''),
    };
  }

  it('shows the marks and the script as text, and runs nothing', async () => {
    const res = await api.request(
      `${G}?search=solar%20arts%20script&matching=last&highlight=title,description&fields=id`,
    );
    expect(res.status, res.text).to.equal(200);
    const hostile = (res.body.data as { id: string; highlights: { title: string; description: string } }[]).find(
      (g) => g.id === HIGHLIGHT_IDS.hostile,
    )!;
    const shown = await insert([hostile.highlights.title, hostile.highlights.description]);
    await screenshot(shown.page, 'highlights-escaped');
    expect(shown.pwned).to.equal(false);
    expect(shown.elements).to.deep.equal(['article', 'mark']);
    expect(shown.marks).to.deep.equal(['Arts', 'script', 'script', 'Solar', 'arts']);
    expect(shown.text).to.contain(HOSTILE_SCRIPT);
    expect(shown.text).to.contain('Arts <b>Bold</b> & "Quoted" Fund');
  });

  it('the same text inserted raw does run: the check above can fail', async () => {
    const raw = HIGHLIGHT_GRANTS.find((g) => g.id === HIGHLIGHT_IDS.hostile)!.description as string;
    expect((await insert([raw])).pwned).to.equal(true);
  });
});
