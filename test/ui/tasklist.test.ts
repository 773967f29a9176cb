// The task list in a real browser (Debian's Chromium through
// playwright-core) against a real Orca on loopback: the queue and its
// filters by "Your name", a task in its process context, Claim, Unclaim
// and Assign, the "Variables (JSON)" editor refusing invalid JSON without
// sending anything, and completion through GraphQL completeTask, free of
// credits, with the keyboard alone; the completed task read-only, listed
// under "Completed" with who held it. Every page is checked with axe-core
// (WCAG 2 A/AA) and screenshotted to test-output/ui/; no page error or
// console error.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiFixture } from '../api/api-fixture.ts';
import { balanceOf, instanceInState, mustDeploy, openTaskOf, startInstance, userTaskProcess } from '../api/workflow-support.ts';
import { browserFixture, type BrowserFixture } from './browser-fixture.ts';
import { browserMissing, diagramElement, expectAccessible, expectNoProblems, openSignedIn, type WatchedPage } from './browser-support.ts';

if (browserMissing) console.warn(browserMissing);

describe.skipIf(browserMissing !== null)('the task list', () => {
  let ui: BrowserFixture;
  let api: ApiFixture;
  let apiKey: string;
  let account: string;
  let watched: WatchedPage;
  let page: Page;
  const instances: string[] = [];

  beforeAll(async () => {
    ui = await browserFixture();
    ({ api, watched, page } = ui);
    ({ apiKey, account } = await api.newAccount());
    await mustDeploy(api, apiKey, userTaskProcess('approve'));
    instances.push(await startInstance(api, apiKey, 'approve', { request: 'laptop', amount: 1200 }));
    instances.push(await startInstance(api, apiKey, 'approve', { request: 'chair', amount: 150 }));
  }, 240_000);

  afterAll(() => ui?.close(), 60_000);

  const taskIdOf = async (instanceKey: string): Promise<string> => (await openTaskOf(api, apiKey, instanceKey)).id;

  // Sorted: the API lists tasks by key, and keys of different partitions do not follow creation order.
  const rowsOfTable = async () => (await page.getByRole('table').getByRole('rowheader').allTextContents()).sort();

  it('shows the queue by filter, and a task in its process context', async () => {
    const [laptop, chair] = [await taskIdOf(instances[0]), await taskIdOf(instances[1])];
    await openSignedIn(page, '/tasklist/', apiKey);
    await page.getByRole('heading', { level: 1, name: 'Tasks' }).waitFor();
    await expect.poll(rowsOfTable).toEqual([`review (${laptop})`, `review (${chair})`].sort());
    await expectAccessible(page, 'tasklist-queue');

    await page.getByLabel('Your name').fill('ada');
    await page.getByLabel('Assigned to me').check();
    await page.getByRole('status').filter({ hasText: 'No task here.' }).waitFor();
    await page.getByLabel('Completed').check();
    await page.getByRole('status').filter({ hasText: 'No task here.' }).waitFor();
    await page.getByLabel('Unassigned').check();
    await expect.poll(rowsOfTable).toEqual([`review (${laptop})`, `review (${chair})`].sort());

    await page.getByRole('link', { name: `review (${laptop})` }).click();
    await page.getByRole('heading', { level: 1, name: 'Task review' }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/tasklist/tasks/${laptop}`);
    await diagramElement(page, 'review', 'orca-active').waitFor();
    await expect.poll(() => page.getByRole('region', { name: 'Variables' }).textContent()).toContain('"request": "laptop"');
    await page.getByText('Completing here is free').waitFor();
    await expectAccessible(page, 'tasklist-task');
    expectNoProblems(watched);
  });

  it('claims, unclaims and assigns, and the queue follows', async () => {
    const laptop = await taskIdOf(instances[0]);
    await openSignedIn(page, `/tasklist/tasks/${laptop}`, apiKey);
    await page.getByLabel('Your name').fill('ada');
    await page.getByRole('button', { name: 'Claim', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'You (ada) claimed this task.' }).waitFor();
    await expect.poll(() => page.getByTestId('assignee').textContent()).toBe('ada');
    expect((await api.call('GET', `/api/v1/tasks/${laptop}`, { apiKey })).json.assignee).toBe('ada');

    await page.goto('/tasklist/?filter=mine');
    await expect.poll(rowsOfTable).toEqual([`review (${laptop})`]);
    await page.goto('/tasklist/?filter=unassigned');
    await expect.poll(rowsOfTable).toHaveLength(1);

    await page.goto(`/tasklist/tasks/${laptop}`);
    await page.getByRole('button', { name: 'Unclaim' }).click();
    await page.getByRole('status').filter({ hasText: 'back in the pool' }).waitFor();
    expect((await api.call('GET', `/api/v1/tasks/${laptop}`, { apiKey })).json.assignee).toBeNull();

    await page.getByLabel('Assignee', { exact: true }).fill('grace');
    await page.getByRole('button', { name: 'Assign', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'assigned to grace' }).waitFor();
    expect((await api.call('GET', `/api/v1/tasks/${laptop}`, { apiKey })).json.assignee).toBe('grace');
    expectNoProblems(watched);
  });

  it('refuses invalid JSON without sending it, then completes the task for free with the keyboard', async () => {
    const chair = await taskIdOf(instances[1]);
    await openSignedIn(page, `/tasklist/tasks/${chair}`, apiKey);
    await page.getByRole('heading', { level: 1, name: 'Task review' }).waitFor();
    const editor = page.getByLabel('Variables (JSON)');
    await editor.fill('{"approved": tru');
    await page.getByText('This is not valid JSON').waitFor();
    expect(await editor.getAttribute('aria-invalid')).toBe('true');
    await page.getByRole('button', { name: 'Complete', exact: true }).click();
    await page.getByRole('alert').filter({ hasText: 'Nothing was sent' }).waitFor();
    await expectAccessible(page, 'tasklist-task-invalid-json');
    await editor.fill('[1, 2]');
    await page.getByText('must be a JSON object').waitFor();
    expect((await api.call('GET', `/api/v1/tasks/${chair}`, { apiKey })).status).toBe(200);

    // Held by ada when completed: the completed task says who did it.
    expect((await api.call('POST', `/api/v1/tasks/${chair}/assign`, { apiKey, json: { assignee: 'ada' } })).status).toBe(200);
    const balance = await balanceOf(api, account);
    // Keyboard only: focus the editor, type, tab to Claim's form's buttons… and press Complete with Enter.
    await editor.fill('');
    await editor.focus();
    await page.keyboard.type('{"approved": true, "by": "ada"}');
    expect(await editor.getAttribute('aria-invalid')).toBe('false');
    const complete = page.getByRole('button', { name: 'Complete', exact: true });
    await complete.focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: `Task ${chair} completed` }).waitFor();
    const done = await instanceInState(api, apiKey, instances[1], 'COMPLETED');
    expect(done.variables).toMatchObject({ request: 'chair', approved: true, by: 'ada' });
    expect(await balanceOf(api, account)).toBe(balance);
    await expectAccessible(page, 'tasklist-task-completed');

    // Read-only from here: who completed it and when, the element marked completed, no actions.
    await page.getByRole('link', { name: 'See the completed task' }).click();
    await page.getByRole('heading', { level: 1, name: 'Task review (completed)' }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/tasklist/completed/${chair}`);
    expect(await page.getByTestId('completed-by').textContent()).toBe('ada');
    await diagramElement(page, 'review', 'orca-completed').waitFor();
    await expect.poll(() => page.getByRole('region', { name: 'Variables' }).textContent()).toContain('"approved": true');
    expect(await page.getByRole('button', { name: /Claim|Assign|Complete/ }).count()).toBe(0);
    await expectAccessible(page, 'tasklist-completed-task');

    await page.getByRole('link', { name: 'Back to the completed tasks' }).click();
    await expect.poll(rowsOfTable).toEqual([`review (${chair})`]);
    await page
      .getByRole('row', { name: new RegExp(`review \\(${chair}\\)`) })
      .getByRole('cell', { name: 'ada' })
      .waitFor();
    await expectAccessible(page, 'tasklist-completed');
    // An old link to the open task leads to its completed page.
    await page.goto(`/tasklist/tasks/${chair}`);
    await page.getByRole('heading', { level: 1, name: 'Task review (completed)' }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/tasklist/completed/${chair}`);

    await page.goto('/tasklist/');
    await page.getByLabel('All open').check();
    await expect.poll(rowsOfTable).toEqual([`review (${await taskIdOf(instances[0])})`]);
    expectNoProblems(watched, [404]);
  });

  it('says clearly when a task is gone or its id is nonsense', async () => {
    await openSignedIn(page, '/tasklist/tasks/2251799813685249', apiKey);
    await page.getByRole('alert').filter({ hasText: 'not found' }).waitFor();
    await expectAccessible(page, 'tasklist-task-not-found');
    await page.goto('/tasklist/tasks/not-a-task');
    await page.getByRole('alert').filter({ hasText: 'params.id' }).waitFor();
    await page.goto('/tasklist/nowhere');
    await page.getByRole('heading', { level: 1, name: 'Page not found' }).waitFor();
    expectNoProblems(watched, [400, 404]);
  });
});
