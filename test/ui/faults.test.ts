// Faults an open page must survive, in a real browser against a real Orca:
// the bearer token expiring on the server (its clock moved past the 30
// minutes) sends the page back to sign-in with a clear message, at the same
// address, and signing in again lands there; the Orca server stopping and
// starting again on the same port and data leaves the page on screen with
// "Orca did not answer … keeps trying", and it recovers without a reload.
// No page error; the only console errors allowed are Chromium's lines for
// the 401 and the refused connections these faults cause.
import { createServer } from 'node:net';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiFixture } from '../api/api-fixture.ts';
import { mustDeploy, serviceProcess, startInstance } from '../api/workflow-support.ts';
import { browserFixture, type BrowserFixture } from './browser-fixture.ts';
import { browserMissing, expectAccessible, expectNoProblems, openSignedIn, signIn, type WatchedPage } from './browser-support.ts';

if (browserMissing) console.warn(browserMissing);

/** A port free on 127.0.0.1 now, so a restarted server can listen on the same one. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const TOKEN_TTL_MS = 30 * 60 * 1000;

describe.skipIf(browserMissing !== null)('the console under faults', () => {
  let ui: BrowserFixture;
  let api: ApiFixture;
  let apiKey: string;
  let watched: WatchedPage;
  let page: Page;
  /** The server's clock for token expiry: real time plus what the test has moved it on. */
  let skewMs = 0;

  beforeAll(async () => {
    ui = await browserFixture({ clock: () => new Date(Date.now() + skewMs), config: { http: { port: await freePort() } } });
    ({ api, watched, page } = ui);
    apiKey = (await api.newAccount()).apiKey;
    await mustDeploy(api, apiKey, serviceProcess('charge', 'charge-card', 1));
  }, 240_000);

  afterAll(() => ui?.close(), 60_000);

  it('sends the page back to sign-in when the server says the token expired, and returns to the same address', async () => {
    const key = await startInstance(api, apiKey, 'charge', { orderId: 'T-1' });
    await openSignedIn(page, `/console/instances/${key}`, apiKey);
    await page.getByRole('heading', { level: 1, name: `Instance ${key}` }).waitFor();

    // The browser still thinks its token good for half an hour; the server no longer does.
    skewMs += TOKEN_TTL_MS + 60_000;
    await page.getByRole('heading', { name: 'Sign in to the console' }).waitFor();
    await page.getByRole('status').filter({ hasText: 'Your session has expired' }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/console/instances/${key}`);
    expect(await page.evaluate(() => sessionStorage.getItem('orca.session'))).toBeNull();
    await expectAccessible(page, 'faults-session-expired');

    await signIn(page, apiKey);
    await page.getByRole('heading', { level: 1, name: `Instance ${key}` }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/console/instances/${key}`);
    await expect.poll(() => page.getByRole('region', { name: 'Variables' }).textContent()).toContain('"orderId": "T-1"');
    expectNoProblems(watched, [401]);
  });

  it('keeps the page and says Orca is away while the server restarts on the same port, then recovers without a reload', async () => {
    const before = await startInstance(api, apiKey, 'charge', { orderId: 'R-1' });
    await openSignedIn(page, '/console/instances', apiKey);
    const firstRow = () => page.getByRole('table').getByRole('rowheader').first().textContent();
    await expect.poll(firstRow).toBe(before);
    // Survives only if the page is never reloaded.
    await page.evaluate(() => Object.assign(window, { orcaTestMarker: 'still here' }));
    const address = api.baseUrl;

    await api.stop();
    await page.getByRole('alert').filter({ hasText: 'Orca did not answer' }).waitFor();
    expect(await page.getByRole('alert').textContent()).toContain('keeps trying');
    // Not a blank screen: the heading and the last good list stay.
    await page.getByRole('heading', { level: 1, name: 'Instances' }).waitFor();
    expect(await firstRow()).toBe(before);
    await expectAccessible(page, 'faults-server-away');

    await api.start();
    expect(api.baseUrl).toBe(address);
    const after = await startInstance(api, apiKey, 'charge', { orderId: 'R-2' });
    await expect.poll(firstRow, { timeout: 20_000 }).toBe(after);
    await page.getByRole('alert').filter({ hasText: 'Orca did not answer' }).waitFor({ state: 'detached' });
    expect(await page.evaluate(() => (window as unknown as { orcaTestMarker?: string }).orcaTestMarker)).toBe('still here');
    expectNoProblems(watched, [401, 503], true);
  });
});
