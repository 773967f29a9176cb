// The setup every browser test file shares: the UI built, a real Orca on
// loopback (apiFixture, with the file's own hooks: a clock, a fixed port),
// Debian's Chromium, and one watched page on that server; close() ends
// them in reverse order.
//
//   let ui: BrowserFixture;
//   beforeAll(async () => (ui = await browserFixture()), 240_000);
//   afterAll(() => ui?.close(), 60_000);
import type { Browser, Page } from 'playwright-core';
import { apiFixture, type ApiFixture, type ApiFixtureOptions } from '../api/api-fixture.ts';
import { ensureUiBuilt, launchBrowser, openPage, type WatchedPage } from './browser-support.ts';

export interface BrowserFixture {
  api: ApiFixture;
  browser: Browser;
  watched: WatchedPage;
  page: Page;
  close(): Promise<void>;
}

export async function browserFixture(options: ApiFixtureOptions = {}): Promise<BrowserFixture> {
  ensureUiBuilt();
  const api = await apiFixture(options);
  let browser: Browser | undefined;
  try {
    browser = await launchBrowser();
    const watched = await openPage(browser, api.baseUrl);
    return {
      api,
      browser,
      watched,
      page: watched.page,
      async close() {
        await browser?.close();
        await api.close();
      },
    };
  } catch (error) {
    await browser?.close().catch(() => {});
    await api.close();
    throw error;
  }
}
