// The search page partners copy (/search) in a real headless Chromium at 1280 and 390 px, against
// the API on the bundled fixture catalog with a restricted key (grants:search and grants:read,
// limited to the page's origin), as a partner would hand it out: a typo and its suggestions with
// the arrow keys, "did you mean" followed, the API's highlighted snippets, a facet, the next page,
// a grant and its similar grants; an axe-core run on each view finds no serious or critical
// violation. Screenshots go to .cache/browser/. In CI these run; elsewhere they skip when
// Chromium is missing.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { startTestApi, type TestApi } from '../support/api.js';
import { launchBrowser, requireBrowser, screenshot, type Browser, type WatchedPage } from '../support/browser.js';
import { grantRecord, startCatalogApi, stopCatalogApi } from '../support/catalog.js';

const NOW = new Date('2026-11-23T09:00:00.000Z');
const P = '/external/v1';
const FACETS = 'eligibleProvinces,fundingType,targetBeneficiaries,funderType';
const FIELDS = 'id,title,funder,deadline,opensAt,status,fundingType,amountMin,amountMax,currency';
const MARKED = 'highlight=title,description,funder&crop=description:40';
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface Violation {
  id: string;
  impact: string;
  targets: string[];
}

/**
 * Runs axe-core in the page (evaluated through the browser's debugging protocol, which the page's
 * content security policy does not govern) and returns the serious and critical violations.
 */
async function seriousViolations(page: Page): Promise<Violation[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE);
  return page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run(
            context: Document,
          ): Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }>;
        };
      }
    ).axe;
    const { violations } = await axe.run(document);
    return violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => ({ id: v.id, impact: v.impact, targets: v.nodes.map((n) => n.target.join(' ')) }));
  });
}

const ready = (page: Page) => page.waitForSelector('body[data-state="ready"]');

describe('browser: the search page (/search) in headless Chromium', function () {
  this.timeout(180_000);
  let browser: Browser;
  let api: TestApi;
  let key: string;

  /** The API's answer with the page's key (each request checked against the OpenAPI document). */
  async function answer(pathAndQuery: string) {
    const res = await api.request(`${P}${pathAndQuery}`, { key });
    expect(res.status, pathAndQuery).to.equal(200);
    return res.body as {
      data: any[];
      pagination: { total: number; totalPages: number };
      facets?: Record<string, { value: string; count: number }[]>;
      suggestion?: { search: string; total: number } | null;
    };
  }

  before(async function () {
    requireBrowser(this);
    browser = await launchBrowser();
    api = await startTestApi({}, { clock: () => NOW });
    key = api.deps.subscriptions.createKey(api.subscriptionId, undefined, {
      name: 'search page',
      restrictions: {
        scopes: ['grants:search', 'grants:read'],
        origins: [api.url],
        ips: null,
        expiresAt: null,
        rateLimit: null,
      },
    }).apiKey;
  });
  after(async function () {
    await browser?.close();
    await api?.stop();
  });

  /** /search (or an address of it) at a width, with the key pasted and the first answer shown. */
  async function openSearch(width: number, address = '/search'): Promise<WatchedPage> {
    const watched = await browser.page();
    await watched.page.setViewportSize({ width, height: width > 800 ? 800 : 844 });
    await watched.page.goto(`${api.url}${address}`);
    await watched.page.fill('#key', key);
    await watched.page.click('#use-key');
    await ready(watched.page);
    return watched;
  }
  const shownIds = (page: Page, list = '#grants') =>
    page.$$eval(`${list} > li`, (items) => items.map((item) => (item as HTMLElement).dataset.id));
  /** HTML as this browser writes it back once parsed (entities and quotes its own way). */
  const asParsed = (page: Page, html: string) =>
    page.evaluate((text) => {
      const template = document.createElement('template');
      template.innerHTML = text;
      return template.innerHTML;
    }, html);

  for (const width of [1280, 390]) {
    describe(`at ${width} px`, function () {
      it('a typo: suggestions as it is typed, the arrow keys and Escape; "did you mean" followed; the API\'s marks; a facet; the next page', async function () {
        const { page, failures, errors } = await openSearch(width);
        // Open grants first: with no words, the open grants closing soonest.
        const first = await answer(`/grants?open=true&sort=deadline&page=1&limit=10&fields=id`);
        expect(await shownIds(page)).to.deep.equal(first.data.map((g) => g.id));
        expect(await page.textContent('#status')).to.equal(
          `${first.pagination.total} grants, closing soonest first, page 1 of ${first.pagination.totalPages}.`,
        );
        expect(await page.isChecked('#open')).to.equal(true);

        // Typing a typo shows the API's suggestions for it, as a listbox the combobox controls.
        const typo = 'indigenus';
        await page.click('#q');
        await page.keyboard.type(typo, { delay: 40 });
        const suggested = await answer(`/grants/suggest?q=${typo}&open=true&limit=6`);
        expect(suggested.data.length, 'the API suggests something for the typo').to.be.above(0);
        await page.waitForSelector('#suggestions:not([hidden]) [role=option]');
        await page.waitForFunction(
          (n) => document.querySelectorAll('#suggestions [role=option]').length === n,
          suggested.data.length,
        );
        const options = await page.$$eval('#suggestions [role=option]', (items) =>
          items.map((item) => (item as HTMLElement).dataset.value),
        );
        expect(options).to.deep.equal(suggested.data.map((s: { text: string }) => s.text));
        expect(await page.getAttribute('#q', 'aria-expanded')).to.equal('true');
        expect(await page.getAttribute('#q', 'aria-controls')).to.equal('suggestions');
        expect(await page.textContent('#suggestions-status')).to.match(/^\d+ suggestions?$/);
        const activeOption = () =>
          page.evaluate(() => {
            const id = document.getElementById('q')!.getAttribute('aria-activedescendant');
            const selected = [...document.querySelectorAll('#suggestions [aria-selected=true]')].map((o) => o.id);
            return { id, selected, focus: document.activeElement?.id };
          });
        const n = options.length;
        await page.keyboard.press('ArrowDown');
        expect(await activeOption()).to.deep.equal({ id: 'suggestion-0', selected: ['suggestion-0'], focus: 'q' });
        await page.keyboard.press('ArrowDown');
        expect(await activeOption()).to.deep.equal({
          id: `suggestion-${1 % n}`,
          selected: [`suggestion-${1 % n}`],
          focus: 'q',
        });
        await page.keyboard.press('ArrowUp');
        expect(await activeOption()).to.deep.equal({ id: 'suggestion-0', selected: ['suggestion-0'], focus: 'q' });
        expect(await seriousViolations(page), 'axe, suggestions open').to.deep.equal([]);
        await screenshot(page, `search-suggestions-${width}`);
        // Escape closes the list and leaves the text as typed.
        await page.keyboard.press('Escape');
        expect(await page.isHidden('#suggestions')).to.equal(true);
        expect(await page.getAttribute('#q', 'aria-expanded')).to.equal('false');
        expect(await page.getAttribute('#q', 'aria-activedescendant')).to.equal(null);
        expect(await page.inputValue('#q')).to.equal(typo);

        // Enter searches the typo as typed: nothing, and "did you mean" with the API's respelling.
        await page.keyboard.press('Enter');
        await ready(page);
        const missed = await answer(`/grants?search=${typo}&open=true&limit=0`);
        expect(missed.pagination.total).to.equal(0);
        const respelled = missed.suggestion!;
        expect(respelled.search).to.equal('indigenous');
        expect(await page.textContent('#status')).to.equal(`No grants found for “${typo}”.`);
        expect(await page.isVisible('#did-you-mean')).to.equal(true);
        expect(await page.textContent('#did-you-mean-link')).to.equal(respelled.search);
        expect(await page.textContent('#did-you-mean-count')).to.equal(`(${respelled.total} grants)`);

        // Followed: the respelled search, its total, and the API's highlighted snippets as they are.
        await page.click('#did-you-mean-link');
        await ready(page);
        expect(new URL(page.url()).searchParams.get('q')).to.equal(respelled.search);
        expect(await page.inputValue('#q')).to.equal(respelled.search);
        expect(await page.isHidden('#did-you-mean')).to.equal(true);
        const found = await answer(
          `/grants?search=${respelled.search}&open=true&page=1&limit=10&facets=${FACETS}&fields=${FIELDS}&${MARKED}`,
        );
        expect(found.pagination.total).to.equal(respelled.total);
        expect(await page.textContent('#status')).to.equal(
          `${respelled.total} grants for “${respelled.search}”, page 1 of ${found.pagination.totalPages}.`,
        );
        expect(await shownIds(page)).to.deep.equal(found.data.map((g) => g.id));
        const shown = await page.$$eval('#grants > li', (items) =>
          items.map((item) => ({
            title: item.querySelector('h3 a')!.innerHTML,
            funder: item.querySelector('.funder')!.innerHTML,
            snippet: item.querySelector('.snippet')?.innerHTML ?? null,
          })),
        );
        for (const [i, grant] of found.data.entries()) {
          expect(shown[i].title, grant.id).to.equal(await asParsed(page, grant.highlights.title));
          expect(shown[i].funder, grant.id).to.equal(await asParsed(page, grant.highlights.funder));
          // A grant without a description has no snippet.
          expect(shown[i].snippet, grant.id).to.equal(
            grant.highlights.description === null ? null : await asParsed(page, grant.highlights.description),
          );
        }
        const marks = await page.$$eval('#grants mark', (list) => list.map((mark) => mark.textContent!.toLowerCase()));
        expect(marks.length, 'some words are marked').to.be.above(0);
        for (const mark of marks) expect(mark).to.match(/^indig/);

        // A facet: its count is the total the page then shows, and the focus stays on it.
        if (width < 800) {
          expect(await page.getAttribute('#filters', 'open'), 'the filters start folded on a phone').to.equal(null);
          await page.click('#filters summary');
        } else {
          expect(await page.getAttribute('#filters', 'open')).to.equal('');
        }
        const province = found.facets!.eligibleProvinces[0];
        const facetBox = `#facet-eligibleProvinces-${province.value}`;
        expect(await page.textContent(`label[for="facet-eligibleProvinces-${province.value}"]`)).to.match(
          new RegExp(`\\(${province.count}\\)$`),
        );
        await page.check(facetBox);
        await ready(page);
        expect(new URL(page.url()).searchParams.get('eligibleProvinces')).to.equal(province.value);
        expect(await page.textContent('#status')).to.match(
          new RegExp(`^${province.count} grants? for “${respelled.search}”`),
        );
        expect(await page.evaluate(() => document.activeElement?.id)).to.equal(
          `facet-eligibleProvinces-${province.value}`,
        );
        expect(await page.isChecked(facetBox)).to.equal(true);
        await page.uncheck(facetBox);
        await ready(page);
        expect(new URL(page.url()).searchParams.get('eligibleProvinces')).to.equal(null);

        // The next page: the API's second page, and the focus on the results' heading.
        expect(found.pagination.totalPages).to.be.above(1);
        await page.click('#next');
        await ready(page);
        const second = await answer(`/grants?search=${respelled.search}&open=true&page=2&limit=10&fields=id`);
        expect(await shownIds(page)).to.deep.equal(second.data.map((g) => g.id));
        expect(await page.textContent('#page-of')).to.equal(`Page 2 of ${found.pagination.totalPages}`);
        expect(await page.evaluate(() => document.activeElement?.id)).to.equal('results-heading');
        expect(await page.isEnabled('#previous')).to.equal(true);

        const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
        expect(scrollWidth, 'no horizontal scrolling').to.be.at.most(width);
        expect(await seriousViolations(page), 'axe, results').to.deep.equal([]);
        await screenshot(page, `search-${width}`);
        expect(failures).to.deep.equal([]);
        expect(errors).to.deep.equal([]);
        await page.close();
      });

      it('an arrowed suggestion taken with Enter searches it; a grant opened; its similar grants; one followed; Back', async function () {
        const { page, failures, errors } = await openSearch(width);
        await page.click('#q');
        await page.keyboard.type('agricul', { delay: 40 });
        await page.waitForSelector('#suggestions:not([hidden]) [role=option]');
        await page.keyboard.press('ArrowDown');
        const taken = (await page.getAttribute('#suggestion-0', 'data-value'))!;
        await page.keyboard.press('Enter');
        await ready(page);
        expect(await page.isHidden('#suggestions')).to.equal(true);
        expect(new URL(page.url()).searchParams.get('q')).to.equal(taken);
        const found = await answer(
          `/grants?search=${encodeURIComponent(taken)}&open=true&page=1&limit=10&fields=id,title`,
        );
        expect(found.pagination.total).to.be.above(0);
        expect(await shownIds(page)).to.deep.equal(found.data.map((g) => g.id));

        // A grant: its page, with the focus on its title, and the API's similar grants.
        const grant = found.data[0];
        await page.click(`#grants > li[data-id="${grant.id}"] h3 a`);
        await ready(page);
        expect(new URL(page.url()).searchParams.get('grant')).to.equal(grant.id);
        expect(await page.isHidden('#results')).to.equal(true);
        expect(await page.textContent('#grant-title')).to.equal(grant.title);
        expect(await page.evaluate(() => document.activeElement?.id)).to.equal('grant-title');
        const similar = await answer(`/grants/${grant.id}/similar?open=true&limit=5&fields=id,title`);
        expect(similar.data.length, 'the API finds similar grants').to.be.above(0);
        expect(await page.isVisible('#similar')).to.equal(true);
        expect(await shownIds(page, '#similar-grants')).to.deep.equal(similar.data.map((g) => g.id));
        expect(await shownIds(page, '#similar-grants')).to.not.include(grant.id);
        expect(await page.$$eval('#similar-grants a', (links) => links.map((a) => a.textContent))).to.deep.equal(
          similar.data.map((g) => g.title),
        );
        expect(await seriousViolations(page), 'axe, a grant').to.deep.equal([]);
        await screenshot(page, `search-grant-${width}`);

        // "Similar" followed, then the browser's Back to the first grant, then back to the results.
        const next = similar.data[0];
        await page.click(`#similar-grants a[data-grant="${next.id}"]`);
        await ready(page);
        expect(await page.textContent('#grant-title')).to.equal(next.title);
        expect(new URL(page.url()).searchParams.get('grant')).to.equal(next.id);
        await page.goBack();
        await page.waitForFunction(
          (title) =>
            document.body.dataset.state === 'ready' && document.getElementById('grant-title')!.textContent === title,
          grant.title,
        );
        await page.click('#back');
        await ready(page);
        expect(await page.isVisible('#results')).to.equal(true);
        expect(await shownIds(page)).to.deep.equal(found.data.map((g) => g.id));
        const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
        expect(scrollWidth, 'no horizontal scrolling').to.be.at.most(width);
        expect(failures).to.deep.equal([]);
        expect(errors).to.deep.equal([]);
        await page.close();
      });
    });
  }

  it('asks for a key, keeps it in the tab, says a bad one is not valid, and forgets it on demand', async function () {
    const { page, failures, errors } = await browser.page();
    await page.goto(`${api.url}/search`);
    await page.waitForSelector('body[data-state="no-key"]');
    expect(await page.isHidden('#layout')).to.equal(true);
    expect(await seriousViolations(page), 'axe, no key').to.deep.equal([]);
    await page.fill('#key', 'gk_live_notAKeyAtAll0123456789abcdefghijk');
    await page.click('#use-key');
    await page.waitForSelector('body[data-state="error"]');
    expect(await page.textContent('#error')).to.match(/^This key is not valid/);
    expect(await page.evaluate(() => sessionStorage.getItem('grants-search-key'))).to.equal(null);
    expect(failures.join('\n')).to.match(/\/grants\?.*: HTTP 401/);

    await page.fill('#key', key);
    await page.click('#use-key');
    await ready(page);
    expect(await page.isHidden('#error')).to.equal(true);
    await page.reload();
    await ready(page);
    expect(await page.evaluate(() => sessionStorage.getItem('grants-search-key'))).to.equal(key);
    // Once the key works its panel folds, saying which key is in use.
    expect(await page.getAttribute('#key-panel', 'open')).to.equal(null);
    expect(await page.textContent('#key-state')).to.equal(`(in use: ${key.slice(0, 12)}…)`);
    await page.click('#key-panel summary');
    await page.click('#forget');
    await page.waitForSelector('body[data-state="no-key"]');
    expect(await page.evaluate(() => sessionStorage.getItem('grants-search-key'))).to.equal(null);
    expect(await page.inputValue('#key')).to.equal('');
    expect(errors.filter((e) => !/401/.test(e))).to.deep.equal([]);
    await page.close();
  });

  describe('a grant whose text holds HTML', function () {
    let marked: TestApi | undefined;
    before(async function () {
      marked = await startCatalogApi(
        [
          grantRecord('g-script', {
            title: 'Solar <b>bold</b> pumps',
            description:
              'Solar water pumps for farms. <script>window.pwned = true</script> <img src=x ' +
              'onerror="window.pwned = true"> More solar words & "quotes".',
          }),
          grantRecord('g-plain', { title: 'Wind turbines', description: 'Small wind turbines for rural schools.' }),
        ],
        { prefix: 'grants-search-page-', clock: () => NOW },
      );
    });
    after(async function () {
      await stopCatalogApi(marked);
    });

    it('shows it as text, with the marks and nothing run', async function () {
      const { page, failures, errors } = await browser.page();
      await page.goto(`${marked!.url}/search?q=solar&open=false`);
      await page.fill('#key', marked!.key);
      await page.click('#use-key');
      await ready(page);
      expect(await shownIds(page)).to.deep.equal(['g-script']);
      const shown = await page.$eval('#grants > li', (item) => ({
        title: item.querySelector('h3 a')!.textContent,
        snippet: item.querySelector('.snippet')!.textContent,
        elements: [...item.querySelectorAll('h3 a *, .snippet *')].map((e) => e.tagName.toLowerCase()),
      }));
      expect(shown.title).to.equal('Solar <b>bold</b> pumps');
      expect(shown.snippet)
        .to.contain('<script>window.pwned = true</script>')
        .and.contain('<img src=x onerror="window.pwned = true">')
        .and.contain('& "quotes"');
      expect(new Set(shown.elements)).to.deep.equal(new Set(['mark']));
      expect(await page.$$eval('#grants mark', (list) => list.map((m) => m.textContent)))
        .to.include('Solar')
        .and.include('solar');
      expect(await page.evaluate(() => (window as unknown as { pwned?: boolean }).pwned)).to.equal(undefined);
      expect(failures).to.deep.equal([]);
      expect(errors).to.deep.equal([]);
      await page.close();
    });
  });
});
