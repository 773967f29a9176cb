// The console in a real browser (Debian's Chromium through playwright-core)
// against a real Orca on loopback: sign-in from a shared link, an instance
// seen moving from active to completed on its diagram, an incident marked
// and its record closed, a new instance started from the variables, the
// definitions with their counts, paging and filters over a few hundred
// instances, and the clear messages for a wrong key, another account's
// instance, a nonsense key or filter (an expired session and a restarting
// server are faults.test.ts's). Every page is checked with axe-core (WCAG 2
// A/AA) and screenshotted to test-output/ui/; no page error or console error.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiFixture } from '../api/api-fixture.ts';
import { activateOne, instanceInState, mustDeploy, serviceProcess, startInstance } from '../api/workflow-support.ts';
import { browserFixture, type BrowserFixture } from './browser-fixture.ts';
import { browserMissing, diagramElement, expectAccessible, expectNoProblems, openSignedIn, signIn, type WatchedPage } from './browser-support.ts';

if (browserMissing) console.warn(browserMissing);

/** start → collapsed subprocess "Inner work" (start → service task `deep` → end) → end. */
const NESTED = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="nested-defs" targetNamespace="http://orca.test">
  <bpmn:process id="nested" isExecutable="true">
    <bpmn:startEvent id="start"/>
    <bpmn:subProcess id="inner" name="Inner work">
      <bpmn:startEvent id="inner-start"/>
      <bpmn:serviceTask id="deep"><bpmn:extensionElements><zeebe:taskDefinition type="deep-work" retries="1"/></bpmn:extensionElements></bpmn:serviceTask>
      <bpmn:endEvent id="inner-end"/>
      <bpmn:sequenceFlow id="g1" sourceRef="inner-start" targetRef="deep"/>
      <bpmn:sequenceFlow id="g2" sourceRef="deep" targetRef="inner-end"/>
    </bpmn:subProcess>
    <bpmn:endEvent id="end"/>
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="inner"/>
    <bpmn:sequenceFlow id="f2" sourceRef="inner" targetRef="end"/>
  </bpmn:process>
</bpmn:definitions>`;

/** start → call activity of process `child` → end. */
const PARENT = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="parent-defs" targetNamespace="http://orca.test">
  <bpmn:process id="parent" isExecutable="true">
    <bpmn:startEvent id="start"/>
    <bpmn:callActivity id="call"><bpmn:extensionElements><zeebe:calledElement processId="child"/></bpmn:extensionElements></bpmn:callActivity>
    <bpmn:endEvent id="end"/>
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="call"/>
    <bpmn:sequenceFlow id="f2" sourceRef="call" targetRef="end"/>
  </bpmn:process>
</bpmn:definitions>`;

describe.skipIf(browserMissing !== null)('the console', () => {
  let ui: BrowserFixture;
  let api: ApiFixture;
  let apiKey: string;
  let otherKey: string;
  let watched: WatchedPage;
  let page: Page;

  beforeAll(async () => {
    ui = await browserFixture();
    ({ api, watched, page } = ui);
    apiKey = (await api.newAccount()).apiKey;
    otherKey = (await api.newAccount()).apiKey;
    await mustDeploy(api, apiKey, serviceProcess('charge', 'charge-card', 1));
    await mustDeploy(api, otherKey, serviceProcess('charge', 'charge-card', 1));
  }, 240_000);

  afterAll(() => ui?.close(), 60_000);

  it('signs in from a shared link and shows the instance going from active to completed', async () => {
    const key = await startInstance(api, apiKey, 'charge', { orderId: 'A-1', amount: 42 });
    await page.goto(`/console/instances/${key}`);
    await page.getByRole('heading', { name: 'Sign in to the console' }).waitFor();
    await expectAccessible(page, 'console-sign-in');

    await signIn(page, 'orca_not_a_key_at_all');
    await page.getByRole('alert').filter({ hasText: 'unknown or has been retired' }).waitFor();
    expect(await page.evaluate(() => JSON.stringify(sessionStorage))).not.toContain('orca_not_a_key');

    await signIn(page, apiKey);
    await page.getByRole('heading', { level: 1, name: `Instance ${key}` }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/console/instances/${key}`);
    // The key itself is kept nowhere in the page: only the token, in this tab's session storage.
    expect(await page.evaluate(() => JSON.stringify({ ...sessionStorage, ...localStorage }))).not.toContain(apiKey);
    await diagramElement(page, 'task', 'orca-active').waitFor();
    await page.locator('.orca-badge-active', { hasText: '1 active' }).waitFor();
    await expect.poll(() => page.getByRole('region', { name: 'Variables' }).textContent()).toContain('"orderId": "A-1"');
    await page.locator('.bjs-powered-by').waitFor();
    await expectAccessible(page, 'console-instance-active');

    const job = await activateOne(api, apiKey, 'charge-card');
    const done = await api.call('POST', `/api/v1/jobs/${job.key}/complete`, { apiKey, json: { variables: { charged: true } } });
    expect(done.status).toBe(204);
    // No reload: the page polls.
    await diagramElement(page, 'task', 'orca-completed').waitFor();
    await diagramElement(page, 'end', 'orca-completed').waitFor();
    await diagramElement(page, 'f1', 'orca-taken').waitFor();
    await diagramElement(page, 'f2', 'orca-taken').waitFor();
    await page.getByRole('heading', { level: 1, name: /Completed/ }).waitFor();
    await expect.poll(() => page.getByRole('region', { name: 'Variables' }).textContent()).toContain('"charged": true');
    const changes = page.getByRole('region', { name: 'Variable changes' });
    await expect.poll(() => changes.getByRole('row', { name: /^task / }).textContent()).toContain('charged');
    const history = page.getByRole('region', { name: 'Element history' });
    await expect.poll(() => history.getByRole('row').count()).toBeGreaterThanOrEqual(4);
    expect(await history.textContent()).toContain('task');
    expect(await page.getByRole('button', { name: 'Cancel instance' }).count()).toBe(0);
    await expectAccessible(page, 'console-instance-completed');
    expectNoProblems(watched, [401]);
  });

  it('marks an incident, closes its record, and starts a new instance from the variables', async () => {
    const key = await startInstance(api, apiKey, 'charge', { orderId: 'B-7' });
    const job = await activateOne(api, apiKey, 'charge-card');
    const failed = await api.call('POST', `/api/v1/jobs/${job.key}/fail`, { apiKey, json: { retries: 0, errorMessage: 'card declined' } });
    expect(failed.status).toBe(204);
    await instanceInState(api, apiKey, key, 'INCIDENT');

    await openSignedIn(page, `/console/instances/${key}`, apiKey);
    await diagramElement(page, 'task', 'orca-incident').waitFor();
    await page.locator('.orca-badge-incident', { hasText: '1 incident' }).waitFor();
    const incidents = page.getByRole('region', { name: 'Incidents' });
    await incidents.getByRole('cell', { name: 'card declined' }).waitFor();
    await expectAccessible(page, 'console-instance-incident');

    await incidents.getByRole('button', { name: 'Close incident record' }).click();
    await page.getByRole('status').filter({ hasText: 'was closed' }).waitFor();
    await incidents.getByText('Closed', { exact: true }).waitFor();
    expect(await incidents.getByRole('button', { name: 'Close incident record' }).count()).toBe(0);
    expect((await api.call('GET', `/api/v1/process-instances/${key}`, { apiKey })).json.state).toBe('INCIDENT');

    // The incidents page: closed records on request, by process, each linked to its instance.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Incidents' }).click();
    await page.getByRole('heading', { level: 1, name: 'Incidents' }).waitFor();
    await page.getByLabel('Record').selectOption('RESOLVED');
    await page.getByLabel('Process id').fill('charge');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByRole('row').filter({ hasText: 'card declined' }).getByRole('link', { name: key }).waitFor();
    await expectAccessible(page, 'console-incidents');
    await page.getByRole('link', { name: key }).click();
    await page.getByRole('heading', { level: 1, name: `Instance ${key}` }).waitFor();

    await page.getByRole('button', { name: 'Start a new instance from these variables' }).click();
    await page.waitForURL((url) => url.pathname.startsWith('/console/instances/') && !url.pathname.endsWith(key));
    const fresh = new URL(page.url()).pathname.split('/').pop()!;
    await page.getByRole('heading', { level: 1, name: `Instance ${fresh}` }).waitFor();
    const started = await api.call('GET', `/api/v1/process-instances/${fresh}`, { apiKey });
    expect(started.json).toMatchObject({ bpmnProcessId: 'charge', variables: { orderId: 'B-7' } });
    await diagramElement(page, 'task', 'orca-active').waitFor();

    await page.getByRole('button', { name: 'Cancel instance' }).click();
    await page.getByRole('status').filter({ hasText: 'was canceled' }).waitFor();
    expect((await api.call('GET', `/api/v1/process-instances/${fresh}`, { apiKey })).json.state).toBe('TERMINATED');
    expectNoProblems(watched, [401]);
  });

  it('lists definitions with their counts, and pages and filters a few hundred instances', async () => {
    await mustDeploy(api, apiKey, serviceProcess('bulk', 'bulk-work'));
    const keys: string[] = [];
    for (let batch = 0; batch < 13; batch += 1) {
      keys.push(...(await Promise.all(Array.from({ length: 20 }, (_, i) => startInstance(api, apiKey, 'bulk', { n: batch * 20 + i })))));
    }

    await openSignedIn(page, '/console/', apiKey);
    await page.getByRole('heading', { level: 1, name: 'Process definitions' }).waitFor();
    const bulkRow = page.getByRole('row', { name: /^bulk / });
    await expect.poll(() => bulkRow.getByRole('cell').nth(2).textContent(), { timeout: 15_000 }).toBe('260');
    await expectAccessible(page, 'console-definitions');

    await page.getByRole('link', { name: 'bulk' }).click();
    await page.getByRole('heading', { level: 1, name: 'Process bulk' }).waitFor();
    await page.locator('.orca-badge-active', { hasText: '260 active' }).waitFor();
    await diagramElement(page, 'task', 'orca-active').waitFor();
    await expectAccessible(page, 'console-definition');

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Instances' }).click();
    await page.getByRole('heading', { level: 1, name: 'Instances' }).waitFor();
    await page.getByLabel('Process id').fill('bulk');
    await page.getByLabel('State').selectOption('ACTIVE');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/process=bulk/);
    const rows = page.getByRole('table').getByRole('row');
    await expect.poll(() => rows.count()).toBe(26);
    const firstPage = await page.getByRole('table').getByRole('rowheader').allTextContents();
    // Newest first: the first row is of the last batches started (starts within one millisecond may tie).
    expect(keys.slice(-40)).toContain(firstPage[0]);
    await expectAccessible(page, 'console-instances');
    const seen = new Set(firstPage);
    for (let p = 2; p <= 11; p += 1) {
      await page.getByRole('button', { name: 'Next page' }).click();
      await page.getByText(`Page ${p}`, { exact: true }).waitFor();
      const items = await page.getByRole('table').getByRole('rowheader').allTextContents();
      for (const item of items) seen.add(item);
    }
    expect(await page.getByRole('button', { name: 'Next page' }).isDisabled()).toBe(true);
    expect(seen).toEqual(new Set(keys));
    await page.getByRole('button', { name: 'Previous page' }).click();
    await page.getByText('Page 10', { exact: true }).waitFor();

    await page.getByLabel('Variable (name:value)').fill('n:137');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect.poll(() => page.getByRole('table').getByRole('rowheader').allTextContents()).toEqual([keys[137]]);

    // Nonsense is refused in the page, and nothing is asked of the server.
    const before = page.url();
    await page.getByLabel('Variable (name:value)').fill('nonsense');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByRole('alert').filter({ hasText: 'Variable must be written name:value' }).waitFor();
    expect(page.url()).toBe(before);
    // What only the server can refuse is shown with the field it names.
    await page.goto('/console/instances?state=SLEEPING');
    await page.getByRole('alert').filter({ hasText: 'filter.state' }).waitFor();
    expectNoProblems(watched, [400, 401]);
  });

  it('points at an incident inside a collapsed subprocess and in a called child instance', async () => {
    await mustDeploy(api, apiKey, NESTED);
    await mustDeploy(api, apiKey, serviceProcess('child', 'child-work', 1));
    await mustDeploy(api, apiKey, PARENT);
    const nested = await startInstance(api, apiKey, 'nested');
    const deep = await activateOne(api, apiKey, 'deep-work');
    expect((await api.call('POST', `/api/v1/jobs/${deep.key}/fail`, { apiKey, json: { retries: 0, errorMessage: 'deep trouble' } })).status).toBe(204);
    await instanceInState(api, apiKey, nested, 'INCIDENT');

    await openSignedIn(page, `/console/instances/${nested}`, apiKey);
    const hint = page.getByRole('note').filter({ hasText: 'inside the collapsed subprocess “Inner work”' });
    await hint.waitFor();
    expect(await hint.textContent()).toContain('deep');
    await diagramElement(page, 'inner', 'orca-incident').waitFor();
    await expectAccessible(page, 'console-incident-in-subprocess');
    await hint.getByRole('button', { name: 'Open subprocess Inner work' }).click();
    await page.locator('.diagram-canvas g.djs-element[data-element-id="deep"].orca-incident').waitFor({ state: 'visible' });

    const parent = await startInstance(api, apiKey, 'parent');
    const childJob = await activateOne(api, apiKey, 'child-work');
    expect((await api.call('POST', `/api/v1/jobs/${childJob.key}/fail`, { apiKey, json: { retries: 0, errorMessage: 'child trouble' } })).status).toBe(204);
    await page.goto(`/console/instances/${parent}`);
    const childHint = page.getByRole('note').filter({ hasText: 'A called child instance is in incident' });
    await childHint.waitFor();
    await childHint.getByRole('link').click();
    await page.getByRole('heading', { level: 1, name: /Incident/ }).waitFor();
    await page.getByRole('link', { name: `Instance ${parent}` }).waitFor();
    await diagramElement(page, 'task', 'orca-incident').waitFor();
    expectNoProblems(watched, [400, 401]);
  });

  // Orca away and an expired session, the real way (a restart, the server's clock): faults.test.ts.
  it('says clearly when an instance is not yours or a key is nonsense', async () => {
    const theirs = await startInstance(api, otherKey, 'charge', { secret: 'theirs' });
    await startInstance(api, apiKey, 'charge', { orderId: 'C-1' });
    await openSignedIn(page, `/console/instances/${theirs}`, apiKey);
    await page.getByRole('alert').filter({ hasText: 'not found' }).waitFor();
    expect(await page.content()).not.toContain('theirs');
    await expectAccessible(page, 'console-instance-not-found');

    await page.goto('/console/instances/not-a-key');
    await page.getByRole('alert').waitFor();
    expect(await page.getByRole('alert').textContent()).toMatch(/key/i);
    expectNoProblems(watched, [400, 401, 404]);
  });
});
