import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chromium } from 'playwright-core';
import { freePort } from '../helpers/embedded-postgres.js';
import { openShell, quickStartBlock, shBlocks } from '../helpers/pasted-shell.js';
import { makeTempDir } from '../helpers/temp-dir.js';

/**
 * The README followed top to bottom, as a newcomer does: the Quick start
 * pasted into a shell, then the dashboard example's "Run it" block pasted
 * into the same shell, then both groups opened in Debian's chromium. Each
 * group must see its own region's orders, whatever the Quick start did to
 * acme before.
 */

const CHROMIUM = '/usr/bin/chromium';

test(
  'README in order: the Quick start, then examples/dashboard "Run it": acme sees eu orders, globex us orders',
  { timeout: 240_000 },
  async (t) => {
    const temp = makeTempDir('ugs-dashboard-walkthrough');
    const [port, appPort, dashboardPort] = [await freePort(), await freePort(), await freePort()];
    // Only what a fresh clone would differ in: free ports (the blocks read PORT, the example its ports) and a store in a temp dir.
    const terminal = openShell('bash', {
      ...process.env,
      PORT: String(port),
      CUSTOMER_APP_PORT: String(appPort),
      DASHBOARD_PORT: String(dashboardPort),
      UGS_DATA_DIR: `${temp.path}/data`,
    });
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    t.after(async () => {
      await browser.close();
      await terminal.close();
      temp.remove();
    });

    assert.equal(await terminal.paste(quickStartBlock(), 110_000), 0, terminal.stderr());
    const [runIt] = shBlocks('examples/dashboard/README.md', '## Run it');
    terminal.pasteAndLeaveRunning(runIt!);
    const app = (await terminal.waitForOutput(/Customer app: (http:\/\/localhost:\d+)\//, 110_000))[1]!;
    // The answers on their own lines, none glued to a log line: the service logs to its file.
    const printed = terminal.stdout().split('\n');
    for (const region of ['eu', 'us'])
      assert.ok(
        printed.some((line) => new RegExp(`^\\{"success":1,"user_group":\\{.*"region":"${region}".*\\}\\}$`).test(line)),
        terminal.stdout(),
      );
    assert.doesNotMatch(terminal.stdout(), /"level":30/, 'no log line in the terminal');

    const seen = new Map<string, string[]>();
    for (const [group, region] of [
      ['acme', 'eu'],
      ['globex', 'us'],
    ] as const) {
      const page = await browser.newPage();
      page.setDefaultTimeout(60_000);
      assert.equal((await page.goto(`${app}/?group=${group}`))?.status(), 200);
      const frame = page.frameLocator('iframe[title="Orders dashboard"]');
      await frame.getByRole('table').waitFor();
      const caption = await frame.locator('caption').innerText();
      assert.equal(caption, `Orders in region ${region}, oldest first`, `${group} is shown the orders of another region`);
      const regions = await frame.locator('tbody tr td:nth-child(3)').allInnerTexts();
      assert.equal(regions.length, 12, `${group}: ${regions.length} rows`);
      assert.deepEqual(new Set(regions), new Set([region]));
      seen.set(group, await frame.locator('tbody tr th').allInnerTexts());
      await page.close();
    }
    assert.deepEqual(
      seen.get('acme')!.filter((id) => seen.get('globex')!.includes(id)),
      [],
      'no order is shown to both groups',
    );
    assert.equal(terminal.unexpectedStderr(), '', 'the blocks print nothing on stderr');
  },
);
