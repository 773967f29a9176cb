// What the browser tests share: Debian's Chromium driven by playwright-core
// (no downloaded browser), the UI build made once if it is missing or older
// than its sources (a lock keeps two test files from building at once), a
// page that records page errors and console errors, and the accessibility
// check: axe-core injected into the page, no WCAG 2 A/AA violation allowed,
// with a screenshot of each page checked written to test-output/ui/.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import axe from 'axe-core';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { expect } from 'vitest';

export const CHROMIUM = '/usr/bin/chromium';
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const UI = join(ROOT, 'ui');
const BUILT_PAGE = join(UI, 'dist', 'console', 'index.html');
export const SCREENSHOTS = join(ROOT, 'test-output', 'ui');

/** Why the browser tests cannot run here, or null. In CI they always run (a missing browser fails them). */
export const browserMissing: string | null =
  existsSync(CHROMIUM) || process.env.CI ? null : `browser tests skipped: ${CHROMIUM} is absent (apt-get install chromium; CI installs it)`;

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'dist' || entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/** Builds ui/dist unless a build newer than every source is there. */
export function ensureUiBuilt(): void {
  const fresh = () => existsSync(BUILT_PAGE) && statSync(BUILT_PAGE).mtimeMs >= newestSource(UI);
  if (fresh()) return;
  const lock = join(UI, '.build-lock');
  const deadline = Date.now() + 180_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      // Another test file is building: wait for it, then use its build.
      if (Date.now() > deadline) throw new Error(`${lock} held for 3 minutes: remove it if no build is running`);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 250);
    }
  }
  try {
    if (!fresh()) execFileSync(process.execPath, [join(ROOT, 'scripts', 'build-ui.mjs')], { cwd: ROOT, stdio: 'inherit' });
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

export function launchBrowser(): Promise<Browser> {
  // --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start.
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
}

export interface WatchedPage {
  page: Page;
  context: BrowserContext;
  /** Page errors and console errors seen so far. */
  problems: string[];
  /** Responses of status 400 or more seen so far: `404 GET /api/v1/…`. */
  failed: string[];
}

export async function openPage(browser: Browser, baseUrl: string): Promise<WatchedPage> {
  const context = await browser.newContext({ baseURL: baseUrl, viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  const problems: string[] = [];
  const failed: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
  });
  // Which request failed, so a failure names it (Chromium's console line does not).
  page.on('response', (response) => {
    if (response.status() >= 400) failed.push(`${response.status()} ${response.request().method()} ${new URL(response.url()).pathname}`);
  });
  return { page, context, problems, failed };
}

/**
 * No page error and no console error, except Chromium's own line for a
 * response with one of `statuses` (a test that asks for a missing instance
 * gets a 404 on purpose; Chromium logs every failed fetch) or for a
 * request refused on purpose (`refused`: the test cut the server off).
 */
export function expectNoProblems(watched: WatchedPage, statuses: number[] = [], refused = false): void {
  const allowed = (text: string) =>
    statuses.some((s) => text.startsWith(`console error: Failed to load resource: the server responded with a status of ${s} (`)) ||
    (refused && text === 'console error: Failed to load resource: net::ERR_CONNECTION_REFUSED');
  expect(
    watched.problems.filter((p) => !allowed(p)),
    `failed requests: ${watched.failed.join(', ')}`,
  ).toEqual([]);
}

/** axe-core's WCAG 2 A and AA rules over the page as it is now, and a screenshot of it. */
export async function expectAccessible(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ content: axe.source });
  const violations = await page.evaluate(async () => {
    const result = await (window as unknown as { axe: typeof axe }).axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
    });
    return result.violations.map((v) => `${v.id} (${v.help}): ${v.nodes.map((n) => n.target.join(' ')).join(' | ')}`);
  });
  expect(violations, `accessibility of ${name}`).toEqual([]);
}

/** Signs in on the sign-in page that is showing. */
export async function signIn(page: Page, apiKey: string): Promise<void> {
  await page.getByLabel('API key').fill(apiKey);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/**
 * The diagram's SVG group of a BPMN element (bpmn-js sets data-element-id),
 * with `marker` among its classes; waitFor() resolves once it is in the
 * page (a connection's group has no box of its own, so "attached", not "visible").
 */
export function diagramElement(page: Page, elementId: string, marker?: string) {
  const locator = page.locator(`.diagram-canvas g.djs-element[data-element-id="${elementId}"]${marker ? `.${marker}` : ''}`);
  return { waitFor: () => locator.waitFor({ state: 'attached' }), count: () => locator.count() };
}

/** Opens `path`, signing in first if the page asks (each test can then run on its own). */
export async function openSignedIn(page: Page, path: string, apiKey: string): Promise<void> {
  await page.goto(path);
  if (await page.getByLabel('API key').isVisible()) await signIn(page, apiKey);
}
