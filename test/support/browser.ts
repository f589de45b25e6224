// Headless Chromium (Debian's `chromium`, `npm run browser:install`) driven by playwright-core, for
// the browser tests: a fresh profile per launch, no network beyond what the page asks for. In CI
// (CI=true) a missing browser fails the suite; elsewhere the tests skip with the reason.
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { REPO_ROOT, tempDir } from './api.js';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Where the browser tests write their screenshots. */
export const BROWSER_OUTPUT = path.join(REPO_ROOT, '.cache/browser');

const FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Why the browser tests cannot run here, or null when they can. */
export function browserMissing(executable = CHROMIUM_PATH): string | null {
  return existsSync(executable) ? null : `no Chromium at ${executable} (install it with \`npm run browser:install\`)`;
}

/** Skips the calling suite outside CI when Chromium is missing; in CI (CI=true), fails it. */
export function requireBrowser(
  suite: Pick<Mocha.Context, 'skip'>,
  env: NodeJS.ProcessEnv = process.env,
  executable = CHROMIUM_PATH,
): void {
  const missing = browserMissing(executable);
  if (missing === null) return;
  if (env.CI === 'true' || env.CI === '1') throw new Error(`browser tests must run in CI: ${missing}`);
  console.log(`      (skipped: ${missing})`);
  suite.skip();
}

export interface Browser {
  context: BrowserContext;
  /** A new tab that records failed requests, 4xx/5xx answers and console errors. */
  page(): Promise<WatchedPage>;
  close(): Promise<void>;
}

export interface WatchedPage {
  page: Page;
  /** Requests that failed at the network level, and answers with a status of 400 or more (method, URL, reason). */
  failures: string[];
  /** console.error messages and uncaught page errors. */
  errors: string[];
}

export async function launchBrowser(): Promise<Browser> {
  const profile = tempDir('grants-chromium-');
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: FLAGS,
    viewport: { width: 1100, height: 900 },
  });
  // Playwright's default 30 s per action is too short for Swagger UI on a loaded 2-core machine.
  context.setDefaultTimeout(120_000);
  return {
    context,
    async page() {
      const page = await context.newPage();
      const watched: WatchedPage = { page, failures: [], errors: [] };
      page.on('requestfailed', (request) =>
        watched.failures.push(`${request.method()} ${request.url()}: ${request.failure()?.errorText}`),
      );
      page.on('response', (response) => {
        if (response.status() >= 400)
          watched.failures.push(`${response.request().method()} ${response.url()}: HTTP ${response.status()}`);
      });
      page.on('console', (message) => {
        if (message.type() === 'error') watched.errors.push(message.text());
      });
      page.on('pageerror', (error) => watched.errors.push(error.message));
      return watched;
    },
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Writes a full-page screenshot under BROWSER_OUTPUT; returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(BROWSER_OUTPUT, { recursive: true });
  const file = path.join(BROWSER_OUTPUT, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}
