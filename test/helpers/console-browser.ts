import { chromium, type Browser, type Page } from 'playwright-core';
import type { Teardown } from './build.js';

/** Debian's chromium, never a downloaded one. */
export const CHROMIUM = '/usr/bin/chromium';

/** How long a step may wait for the page before the test fails. */
const STEP_TIMEOUT_MS = 30_000;

/**
 * The operator console in chromium, for a test: pages in fresh contexts (their own cookies), each reporting any
 * Content Security Policy violation into `cspViolations` for the test to assert on at its end.
 */
export interface ConsoleBrowser {
  browser: Browser;
  cspViolations: string[];
  /** A page in a context of its own (a browser of its own, as far as cookies go). */
  newPage(viewport?: { width: number; height: number }): Promise<Page>;
  /** Signs `page` in at the console of `baseUrl` with `key`, as an operator types it. */
  signIn(page: Page, baseUrl: string, key: string): Promise<void>;
}

/** Launches chromium for the test and closes it with the test (`t.after`), after whatever the test closes later. */
export async function consoleBrowser(t: Teardown): Promise<ConsoleBrowser> {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  t.after(() => browser.close());
  const cspViolations: string[] = [];
  return {
    browser,
    cspViolations,
    async newPage(viewport = { width: 1024, height: 800 }) {
      const page = await (await browser.newContext({ viewport })).newPage();
      page.setDefaultTimeout(STEP_TIMEOUT_MS);
      page.on('console', (message) => void (/Content Security Policy/i.test(message.text()) && cspViolations.push(message.text())));
      return page;
    },
    async signIn(page, baseUrl, key) {
      await page.goto(`${baseUrl}/console/`);
      await page.getByLabel('API key').fill(key);
      await page.getByRole('button', { name: 'Sign in' }).click();
    },
  };
}
