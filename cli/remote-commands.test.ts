// The commands that talk to a server, run as a user runs them (bin/orca.js
// in a child process) against a real server on loopback (the API fixture:
// Postgres and Redis when DATABASE_URL / REDIS_URL are set, else PGlite and
// in-process queues): what they print, in tables and with --json, and the
// exit codes scripts rely on, bad input included.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiFixture, type ApiFixture } from '../test/api/api-fixture.ts';
import { end, flow, processXml, start } from '../engine/runtime/testing.ts';
import { orca, repositoryRoot } from './testing.ts';

let api: ApiFixture;
let env: Record<string, string>;
let dir: string;

beforeAll(async () => {
  api = await apiFixture();
  const { apiKey } = await api.newAccount();
  env = { ORCA_URL: api.baseUrl, ORCA_API_KEY: apiKey };
  dir = await mkdtemp(join(tmpdir(), 'orca-cli-remote-'));
}, 120_000);
afterAll(async () => {
  await api?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function instancesOf(apiKey: string, orderId: string): Promise<{ processInstanceKey: string; state: string }[]> {
  const res = await api.call('GET', '/api/v1/process-instances', { apiKey, query: { 'filter.variable': `orderId:${orderId}` } });
  expect(res.status).toBe(200);
  return res.json.items;
}

describe('orca deploy', () => {
  it('deploys the example model and says whether the version is new', async () => {
    const first = await orca(['deploy', 'examples/order.bpmn', 'examples/shipping.dmn'], env);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const lines = first.stdout.trim().split('\n');
    expect(lines[0].split(/\s{2,}/)).toEqual(['FILE', 'KIND', 'ID', 'VERSION', 'NEW']);
    // DMN first, so the decisions a process calls are there before it.
    expect(lines[1].split(/\s{2,}/)).toEqual(['examples/shipping.dmn', 'decision', 'carrier', '1', 'yes']);
    expect(lines[2].split(/\s{2,}/)).toEqual(['examples/order.bpmn', 'process', 'order', '1', 'yes']);

    const again = await orca(['deploy', 'examples/order.bpmn', '--json'], env);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual([
      {
        file: 'examples/order.bpmn',
        kind: 'process',
        id: 'order',
        deployments: [{ bpmnProcessId: 'order', version: 1, resourceName: 'order.bpmn', isNew: false }],
      },
    ]);
  });

  it("passes the server's refusal of a broken model on, naming the element, with exit 1", async () => {
    const broken = join(dir, 'broken.bpmn');
    const xml = await readFile(join(repositoryRoot, 'examples/order.bpmn'), 'utf8');
    await writeFile(broken, xml.replace('<zeebe:taskDefinition type="ship" retries="3"/>', ''));
    const r = await orca(['deploy', broken], env);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^orca deploy: INVALID_INPUT \(400\): /);
    expect(r.stderr).toContain('ship');

    // What was deployed before the refusal stays deployed, and is printed.
    const partly = await orca(['deploy', broken, 'examples/shipping.dmn'], env);
    expect(partly.code).toBe(1);
    expect(partly.stdout).toMatch(/^examples\/shipping\.dmn +decision +carrier +1 +no /m);
    expect(partly.stderr).toMatch(/^orca deploy: INVALID_INPUT \(400\): /);
  });

  it("prints the server's warnings (elements that run differently from Camunda 8) on stderr, and exits 0", async () => {
    const warned = join(dir, 'warned.bpmn');
    const script =
      '<bpmn:scriptTask id="sum"><bpmn:extensionElements><zeebe:script expression="=1 + 1" resultVariable="two"/></bpmn:extensionElements></bpmn:scriptTask>';
    await writeFile(warned, processXml('warned', start() + script + end() + flow('f1', 'start', 'sum') + flow('f2', 'sum', 'end')));
    const r = await orca(['deploy', warned], env);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/warned\.bpmn +process +warned +1 +yes/);
    expect(r.stderr).toMatch(/^.*warned\.bpmn: warning: \[sum\] SCRIPT_TASK_IS_JOB: .*'script:sum'/m);

    // --inline-scripts (extension): the script runs inline, so no warning; stored with the version, so a new one.
    const inline = await orca(['deploy', warned, '--inline-scripts'], env);
    expect(inline.code).toBe(0);
    expect(inline.stdout).toMatch(/warned\.bpmn +process +warned +2 +yes/);
    expect(inline.stderr).not.toContain('SCRIPT_TASK_IS_JOB');
  });

  it('refuses files it cannot send (missing, misnamed) with exit 2 and sends nothing', async () => {
    const missing = await orca(['deploy', join(dir, 'nope.bpmn')], env);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('cannot read');
    const misnamed = join(dir, 'decision.bpmn');
    await writeFile(misnamed, await readFile(join(repositoryRoot, 'examples/shipping.dmn'), 'utf8'));
    const r = await orca(['deploy', misnamed], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('holds a DMN model: name it .dmn');
    const none = await orca(['deploy'], env);
    expect(none.code).toBe(2);
  });
});

describe('orca start PROCESS_ID', () => {
  it('starts an instance with the variables given and prints its key', async () => {
    const r = await orca(['start', 'order', '--vars', '{"orderId":"S1"}'], env);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const [header, row] = r.stdout.trim().split('\n');
    expect(header.split(/\s+/)).toEqual(['KEY', 'PROCESS', 'VERSION', 'STATE']);
    const [key, process, version, state] = row.split(/\s+/);
    expect({ process, version, state }).toEqual({ process: 'order', version: '1', state: 'ACTIVE' });
    expect((await instancesOf(env.ORCA_API_KEY, 'S1')).map((i) => i.processInstanceKey)).toEqual([key]);
  });

  it('prints the server answer with --json', async () => {
    const r = await orca(['start', 'order', '--vars', '{"orderId":"S2"}', '--json'], env);
    expect(r.code).toBe(0);
    const started = JSON.parse(r.stdout);
    expect(started).toMatchObject({ bpmnProcessId: 'order', version: 1, state: 'ACTIVE' });
    expect((await instancesOf(env.ORCA_API_KEY, 'S2')).map((i) => i.processInstanceKey)).toEqual([started.processInstanceKey]);
  });

  it('refuses bad JSON in --vars with exit 2 and starts nothing', async () => {
    for (const vars of ['{"orderId":"S3"', '["S3"]']) {
      const r = await orca(['start', 'order', '--vars', vars], env);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/--vars (is not valid JSON|must be a JSON object)/);
      expect(r.stdout).toBe('');
    }
    const quoted = await orca(['start', 'order', '--vars', '{"orderId":"S3"}', 'extra'], env);
    expect(quoted.code).toBe(2);
    expect(quoted.stderr).toContain("unexpected argument 'extra'");
    expect(await instancesOf(env.ORCA_API_KEY, 'S3')).toEqual([]);
  });

  it("answers an unknown process with exit 1 and the server's problem", async () => {
    const r = await orca(['start', 'no-such-process', '--vars', '{"orderId":"S4"}'], env);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^orca start: NOT_FOUND \(404\): .*no-such-process/);

    const json = await orca(['start', 'no-such-process', '--json'], env);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stderr)).toMatchObject({
      status: 404,
      code: 'NOT_FOUND',
      title: expect.any(String),
      detail: expect.stringContaining('no-such-process'),
    });
  });

  it('names the invalid field the server found', async () => {
    const r = await orca(['start', 'order', '--vars', JSON.stringify({ bad: 'a\u0000b' })], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('INVALID_INPUT (400)');
    expect(r.stderr).toContain('  body.variables.bad: ');
  });

  it('with --idempotency-key, a second run of the same line answers the first instance (skipped when the server has no Idempotency-Key extension)', async (ctx) => {
    const document = await api.call('GET', '/api/v1/openapi.json');
    if (!/idempotency-key/i.test(document.text)) ctx.skip();
    const line = ['start', 'order', '--vars', '{"orderId":"S5"}', '--idempotency-key', 'order-S5', '--json'];
    const first = await orca(line, env);
    const second = await orca(line, env);
    expect([first.code, second.code]).toEqual([0, 0]);
    expect(JSON.parse(second.stdout)).toEqual(JSON.parse(first.stdout));
    expect(await instancesOf(env.ORCA_API_KEY, 'S5')).toHaveLength(1);
    const other = await orca(['start', 'order', '--vars', '{"orderId":"S6"}', '--idempotency-key', 'order-S5'], env);
    expect(other.code).toBe(1);
    expect(other.stderr).toContain('(409)');
    expect(await instancesOf(env.ORCA_API_KEY, 'S6')).toEqual([]);
  });

  it('without a process id but with its flags asks for the id instead of starting a server', async () => {
    const r = await orca(['start', '--vars', '{}'], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('missing PROCESS_ID');
  });
});

describe('where the server is and who is asking', () => {
  it('a missing API key is a usage error (exit 2) that says how to give one', async () => {
    const r = await orca(['instances'], { ORCA_URL: api.baseUrl });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('no API key: set ORCA_API_KEY (or pass --api-key)');
  });

  it('a key the server refuses exits 4', async () => {
    const r = await orca(['instances'], { ORCA_URL: api.baseUrl, ORCA_API_KEY: 'orca_not_a_real_key' });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/\(401\)/);
  });

  it('--url and --api-key override the environment', async () => {
    const r = await orca(['instances', '--url', api.baseUrl, '--api-key', env.ORCA_API_KEY, '--json'], {
      ORCA_URL: 'http://127.0.0.1:1',
      ORCA_API_KEY: 'orca_wrong',
    });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).items.length).toBeGreaterThan(0);
  });

  it('a server that does not answer exits 3; a URL that is not one exits 2', async () => {
    const closed = await freePort();
    const r = await orca(['instances'], { ORCA_URL: `http://127.0.0.1:${closed}`, ORCA_API_KEY: env.ORCA_API_KEY });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/^orca: no answer from GET \/api\/v1\/process-instances; trying again in \d+ ms$/m);
    expect(r.stderr).toMatch(/^orca instances: TRANSPORT \(no answer\): /m);
    const json = await orca(['instances', '--json'], { ORCA_URL: `http://127.0.0.1:${closed}`, ORCA_API_KEY: env.ORCA_API_KEY });
    expect(json.code).toBe(3);
    expect(JSON.parse(json.stderr)).toMatchObject({ status: 0, code: 'TRANSPORT' });
    const bad = await orca(['instances'], { ORCA_URL: 'ftp://example.com', ORCA_API_KEY: env.ORCA_API_KEY });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('ORCA_URL must start with http:// or https://');
  });
});

describe('orca instances and orca instance', () => {
  it('lists instances filtered by a variable, as a table and as the server page', async () => {
    await orca(['start', 'order', '--vars', '{"orderId":"L1","n":1}'], env);
    const table = await orca(['instances', '--var', 'orderId:L1'], env);
    expect(table.code).toBe(0);
    const lines = table.stdout.trim().split('\n');
    expect(lines[0].split(/\s{2,}/)).toEqual(['KEY', 'PROCESS', 'STATE', 'CREATED', 'VARIABLES']);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain('order v1');
    expect(lines[1]).toContain('ACTIVE');
    // Postgres keeps an object's keys shortest first: the server's order, printed as it came.
    expect(lines[1]).toMatch(/ {2}\{"n":1,"orderId":"L1"\}$/);

    const json = await orca(['instances', '--var', 'orderId:L1', '--state', 'active', '--json'], env);
    expect(json.code).toBe(0);
    const page = JSON.parse(json.stdout);
    expect(page.items).toHaveLength(1);
    expect(page.items[0]).toMatchObject({ bpmnProcessId: 'order', state: 'ACTIVE', variables: { orderId: 'L1', n: 1 } });
    expect(page.nextCursor).toBeNull();
  });

  it('notes the next page on stderr and follows --cursor', async () => {
    const first = await orca(['instances', '--limit', '1', '--json'], env);
    const page = JSON.parse(first.stdout);
    expect(page.nextCursor).toEqual(expect.any(String));
    const table = await orca(['instances', '--limit', '1'], env);
    expect(table.stderr).toContain(`--cursor ${page.nextCursor}`);
    const next = JSON.parse((await orca(['instances', '--limit', '1', '--cursor', page.nextCursor, '--json'], env)).stdout);
    expect(next.items[0].processInstanceKey).not.toBe(page.items[0].processInstanceKey);
  });

  it('filters by process and version and by start and end dates', async () => {
    const started = JSON.parse((await orca(['instances', '--var', 'orderId:L1', '--json'], env)).stdout).items[0];
    const keys = async (args: string[]) =>
      JSON.parse((await orca(['instances', ...args, '--json'], env)).stdout).items.map((i: { processInstanceKey: string }) => i.processInstanceKey);
    expect(await keys(['--process', 'order', '--version', '1', '--started-after', started.createdAt, '--var', 'orderId:L1'])).toEqual([
      started.processInstanceKey,
    ]);
    expect(await keys(['--started-before', started.createdAt, '--var', 'orderId:L1'])).toEqual([]);
    expect(await keys(['--ended-after', '2000-01-01T00:00:00Z', '--var', 'orderId:L1'])).toEqual([]);
    const bad = await orca(['instances', '--started-after', 'yesterday'], env);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('query.filter.startedAfter');
  });

  it("passes the server's 400 on a bad filter on, with exit 1", async () => {
    const state = await orca(['instances', '--state', 'SLEEPING'], env);
    expect(state.code).toBe(1);
    expect(state.stderr).toContain('query.filter.state');
    const limit = await orca(['instances', '--limit', 'lots'], env);
    expect(limit.code).toBe(2);
    expect(limit.stderr).toContain('--limit must be a whole number from 1 to 1000');
  });

  it('an empty list prints nothing on stdout and says so on stderr', async () => {
    const r = await orca(['instances', '--var', 'orderId:nobody'], env);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('no instances');
  });

  it('shows one instance with its variables and the job it waits for', async () => {
    const started = JSON.parse((await orca(['start', 'order', '--vars', '{"orderId":"D1"}', '--json'], env)).stdout);
    const r = await orca(['instance', started.processInstanceKey], env);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^key: +${started.processInstanceKey}$`, 'm'));
    expect(r.stdout).toMatch(/^state: +ACTIVE$/m);
    expect(r.stdout).toContain('"orderId": "D1"');
    expect(r.stdout).toMatch(/^waiting at:\nELEMENT +ELEMENT INSTANCE +JOB +INCIDENT\nship /m);

    const json = JSON.parse((await orca(['instance', started.processInstanceKey, '--json'], env)).stdout);
    expect(json).toMatchObject({ processInstanceKey: started.processInstanceKey, state: 'ACTIVE', variables: { orderId: 'D1' }, jobs: [{ type: 'ship' }] });
  });

  it('an unknown key is a 404 (exit 1); a malformed one a 400 naming the parameter', async () => {
    const unknown = await orca(['instance', '12345'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('NOT_FOUND (404)');
    expect(unknown.stderr).toContain("'12345'");
    const malformed = await orca(['instance', 'abc'], env);
    expect(malformed.code).toBe(1);
    expect(malformed.stderr).toContain('params.key');
    const missing = await orca(['instance'], env);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('missing KEY');
  });
});

describe('orca jobs and orca incidents', () => {
  it('activates a job by hand, completes it, and the instance completes with the variables given', async () => {
    const started = JSON.parse((await orca(['start', 'order', '--vars', '{"orderId":"J1"}', '--json'], env)).stdout);
    const jobs = await activateFor(started.processInstanceKey);
    const complete = await orca(['jobs', 'complete', jobs.key, '--vars', '{"tracking":"T-J1"}'], env);
    expect(complete.code).toBe(0);
    expect(complete.stdout).toBe(`job ${jobs.key} completed\n`);
    const instance = await api.call('GET', `/api/v1/process-instances/${started.processInstanceKey}`, { apiKey: env.ORCA_API_KEY });
    expect(instance.json).toMatchObject({ state: 'COMPLETED', variables: { orderId: 'J1', tracking: 'T-J1' } });

    const again = await orca(['jobs', 'complete', jobs.key], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('(404)');
  });

  it('a job failed with no retries left raises an incident that orca incidents lists', async () => {
    const started = JSON.parse((await orca(['start', 'order', '--vars', '{"orderId":"J2"}', '--json'], env)).stdout);
    const job = await activateFor(started.processInstanceKey);
    const fail = await orca(['jobs', 'fail', job.key, '--retries', '0', '--message', 'no carrier today'], env);
    expect(fail.code).toBe(0);
    const table = await orca(['incidents', '--instance', started.processInstanceKey], env);
    expect(table.code).toBe(0);
    const lines = table.stdout.trim().split('\n');
    expect(lines[0].split(/\s{2,}/)).toEqual(['ID', 'INSTANCE', 'ELEMENT', 'TYPE', 'STATE', 'CREATED', 'MESSAGE']);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain(started.processInstanceKey);
    expect(lines[1]).toMatch(/ ship +\S+ +OPEN .*no carrier today$/);
    const json = JSON.parse((await orca(['incidents', '--instance', started.processInstanceKey, '--json'], env)).stdout);
    expect(json.items).toEqual([
      expect.objectContaining({ processInstanceKey: started.processInstanceKey, elementId: 'ship', state: 'OPEN', type: 'JOB_NO_RETRIES' }),
    ]);
    expect(json.items[0].message).toContain('no carrier today');
  });

  it('refuses bad job arguments before sending anything', async () => {
    expect((await orca(['jobs', 'fail', '1'], env)).stderr).toContain('--retries N is required');
    expect((await orca(['jobs', 'activate', 'ship', '--max', '0'], env)).code).toBe(2);
    expect((await orca(['jobs', 'activate', 'ship', '--timeout', '0'], env)).stderr).toContain('--timeout');
    expect((await orca(['jobs', 'finish', '1'], env)).stderr).toContain("unknown jobs command 'finish'");
    expect((await orca(['jobs', 'complete', '1', '--vars', 'tracking=1'], env)).code).toBe(2);
  });

  it('says so when no job is there', async () => {
    const r = await orca(['jobs', 'activate', 'nobody-works-on-this'], env);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('no nobody-works-on-this job available');
    expect(JSON.parse((await orca(['jobs', 'activate', 'nobody-works-on-this', '--json'], env)).stdout)).toEqual({ jobs: [] });
  });
});

/** Activates `ship` jobs through the CLI until this instance's is among them (others' stay activated: tests only). */
async function activateFor(instanceKey: string): Promise<{ key: string }> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const r = await orca(['jobs', 'activate', 'ship', '--max', '100', '--json'], env);
    expect(r.code).toBe(0);
    const jobs: { key: string; processInstanceKey: string }[] = JSON.parse(r.stdout).jobs;
    const mine = jobs.find((j) => j.processInstanceKey === instanceKey);
    if (mine) return mine;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no ship job for ${instanceKey}`);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}
