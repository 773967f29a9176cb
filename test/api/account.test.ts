// The account routes and credits over real HTTP: the account view, the
// ledger (opening grant, every charge and refund, paged newest first), a
// charge refused with 402 that changes nothing, concurrent charges that
// never overdraw — directly on Credits and through the charged start route —
// and the per-account group commit behind Credits.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCredits } from '../../api/credits/index.ts';
import { ApiError } from '../../api/problem.ts';
import { apiFixture, type ApiFixture, type CallResult } from './api-fixture.ts';

let api: ApiFixture;

beforeAll(async () => {
  api = await apiFixture();
}, 120_000);
afterAll(() => api?.close());

const MODEL = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" id="charged-definitions" targetNamespace="http://example.com/orca">
  <bpmn:process id="charged" isExecutable="true">
    <bpmn:startEvent id="start" />
    <bpmn:sequenceFlow id="toEnd" sourceRef="start" targetRef="end" />
    <bpmn:endEvent id="end" />
  </bpmn:process>
</bpmn:definitions>`;

function expectProblem(res: CallResult, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(res.json).toMatchObject({
    status,
    code,
    type: expect.any(String),
    title: expect.any(String),
    detail: expect.any(String),
    instance: expect.any(String),
  });
}

async function ledgerOf(apiKey: string, query: Record<string, string | number> = {}) {
  const res = await api.call('GET', '/api/v1/account/ledger', { apiKey, query });
  expect(res.status).toBe(200);
  return res.json as {
    items: { id: string; amount: number; reason: string; reference: string | null; balanceAfter: number; createdAt: string }[];
    nextCursor: string | null;
  };
}

async function drainTo(account: string, balance: number) {
  const current = await api.service.credits.balance(account);
  if (current > balance) await api.service.credits.charge(account, current - balance, 'test: drain');
}

describe('account', () => {
  it('shows the account, its address and balance, opening with 1,000 credits on the ledger', async () => {
    const { account, apiKey, email } = await api.newAccount();
    const me = await api.call('GET', '/api/v1/account', { apiKey });
    expect(me.status).toBe(200);
    expect(me.json).toEqual({ account, email, balance: 1000 });
    const ledger = await ledgerOf(apiKey);
    expect(ledger).toEqual({
      items: [{ id: expect.any(String), amount: 1000, reason: 'opening balance', reference: null, balanceAfter: 1000, createdAt: expect.any(String) }],
      nextCursor: null,
    });
    expect(Number.isNaN(Date.parse(ledger.items[0].createdAt))).toBe(false);
  });

  it('keeps each account to its own ledger', async () => {
    const a = await api.newAccount();
    const b = await api.newAccount();
    await api.service.credits.charge(a.account, 5, 'test: only a');
    expect((await ledgerOf(b.apiKey)).items.map((i) => i.reason)).toEqual(['opening balance']);
    expect((await api.call('GET', '/api/v1/account', { apiKey: b.apiKey })).json.balance).toBe(1000);
  });

  it('pages the ledger newest first with limit and cursor, and rejects bad paging input', async () => {
    const { account, apiKey } = await api.newAccount();
    for (let i = 1; i <= 4; i++) await api.service.credits.charge(account, i, 'test: charge', `ref-${i}`);
    const first = await ledgerOf(apiKey, { limit: 2 });
    expect(first.items.map((i) => i.amount)).toEqual([-4, -3]);
    expect(first.items.map((i) => i.balanceAfter)).toEqual([990, 994]);
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await ledgerOf(apiKey, { limit: 2, cursor: first.nextCursor! });
    expect(second.items.map((i) => i.amount)).toEqual([-2, -1]);
    const third = await ledgerOf(apiKey, { limit: 2, cursor: second.nextCursor! });
    expect(third).toEqual({ items: [expect.objectContaining({ amount: 1000 })], nextCursor: null });

    const badCursor = await api.call('GET', '/api/v1/account/ledger', { apiKey, query: { cursor: 'not-a-cursor' } });
    expectProblem(badCursor, 400, 'INVALID_INPUT');
    expect(badCursor.json.errors.map((e: { field: string }) => e.field)).toEqual(['query.cursor']);
    const badLimit = await api.call('GET', '/api/v1/account/ledger', { apiKey, query: { limit: 0 } });
    expectProblem(badLimit, 400, 'INVALID_INPUT');
    expect(badLimit.json.errors.map((e: { field: string }) => e.field)).toEqual(['query.limit']);
    expectProblem(await api.call('GET', '/api/v1/account/ledger'), 401, 'UNAUTHENTICATED');
  });
});

describe('contract', () => {
  it('documents the signup, token, rotation and account routes in the OpenAPI document', async () => {
    const res = await api.call('GET', '/api/v1/openapi.json');
    expect(res.status).toBe(200);
    const paths = Object.keys(res.json.paths ?? {});
    for (const path of ['/api/signup', '/api/signup/confirm', '/api/token', '/api/keys/rotate', '/api/v1/account', '/api/v1/account/ledger'])
      expect(paths).toContain(path);
  });
});

describe('credits', () => {
  it('refuses a charge larger than the balance with 402, writing nothing', async () => {
    const { account, apiKey } = await api.newAccount();
    await drainTo(account, 3);
    const before = await ledgerOf(apiKey);
    const refused = await api.service.credits.charge(account, 4, 'test: too much').then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).toMatchObject({ code: 'OUT_OF_CREDITS', status: 402 });
    expect(await ledgerOf(apiKey)).toEqual(before);
    expect(await api.service.credits.balance(account)).toBe(3);
  });

  it('writes a ledger row for each charge and a refund row for an undo, once', async () => {
    const { account, apiKey } = await api.newAccount();
    const undo = await api.service.credits.charge(account, 7, 'test: undone', 'order-7');
    await undo();
    await undo();
    const { items } = await ledgerOf(apiKey);
    expect(items.map(({ amount, reason, reference, balanceAfter }) => ({ amount, reason, reference, balanceAfter }))).toEqual([
      { amount: 7, reason: 'refund: test: undone', reference: 'order-7', balanceAfter: 1000 },
      { amount: -7, reason: 'test: undone', reference: 'order-7', balanceAfter: 993 },
      { amount: 1000, reason: 'opening balance', reference: null, balanceAfter: 1000 },
    ]);
  });

  it('never overdraws under concurrent charges: 20 against a balance of 10, exactly 10 succeed', async () => {
    const { account, apiKey } = await api.newAccount();
    await drainTo(account, 10);
    const results = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => api.service.credits.charge(account, 1, 'test: race', `race-${i}`)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(10);
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(refused).toHaveLength(10);
    for (const r of refused) expect(r.reason).toMatchObject({ code: 'OUT_OF_CREDITS' });
    expect(await api.service.credits.balance(account)).toBe(0);
    const charges = (await ledgerOf(apiKey, { limit: 100 })).items.filter((i) => i.reason === 'test: race');
    expect(charges).toHaveLength(10);
    expect(charges.map((c) => c.balanceAfter).sort((x, y) => x - y)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });
});

describe('coalesced charges', () => {
  /** Credits on the fixture's store whose every statement (chargeMany call) is recorded as account and group size. */
  function recordingCredits() {
    const ledger = api.engine.store.ledger;
    const groups: [string, number][] = [];
    const credits = createCredits({
      store: {
        ledger: {
          ...ledger,
          chargeMany: (account, charges) => {
            groups.push([account, charges.length]);
            return ledger.chargeMany(account, charges);
          },
        },
      },
    });
    return { credits, groups };
  }

  it('sends a lone charge at once and the charges arriving meanwhile together, per account', async () => {
    const a = await api.newAccount();
    const b = await api.newAccount();
    const { credits, groups } = recordingCredits();
    await credits.charge(a.account, 1, 'test: alone');
    expect(groups).toEqual([[a.account, 1]]);
    groups.length = 0;
    await Promise.all(Array.from({ length: 20 }, (_, i) => credits.charge(i % 2 ? a.account : b.account, 1, 'test: busy', `busy-${i}`)));
    // Per account: the first alone, the nine that came meanwhile as one group.
    // (The two accounts' statements run side by side: their order is Postgres's.)
    const of = (account: string) => groups.filter(([g]) => g === account).map(([, size]) => size);
    expect(of(a.account)).toEqual([1, 9]);
    expect(of(b.account)).toEqual([1, 9]);
    expect(groups.slice(0, 2).map(([g]) => g)).toEqual([b.account, a.account]);
    expect(await credits.balance(a.account)).toBe(989);
    expect(await credits.balance(b.account)).toBe(990);
  });

  it('decides a group in arrival order: a charge that does not fit is refused, smaller ones after it still go through', async () => {
    const { account, apiKey } = await api.newAccount();
    await drainTo(account, 5);
    const before = (await ledgerOf(apiKey)).items.length;
    // The first goes out alone; the other four queue behind it as one group.
    const results = await Promise.allSettled([2, 4, 1, 3, 1].map((n, i) => api.service.credits.charge(account, n, 'test: mixed', `mixed-${i}`)));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toMatchObject({ code: 'OUT_OF_CREDITS', extra: { balance: 3, required: 4 } });
    expect((results[3] as PromiseRejectedResult).reason).toMatchObject({ code: 'OUT_OF_CREDITS', extra: { balance: 2, required: 3 } });
    const { items } = await ledgerOf(apiKey);
    expect(items.length - before).toBe(3);
    expect(items.slice(0, 3).map(({ amount, reference, balanceAfter }) => ({ amount, reference, balanceAfter }))).toEqual([
      { amount: -1, reference: 'mixed-4', balanceAfter: 1 },
      { amount: -1, reference: 'mixed-2', balanceAfter: 2 },
      { amount: -2, reference: 'mixed-0', balanceAfter: 3 },
    ]);
    expect(await api.service.credits.balance(account)).toBe(1);
  });

  it('fails only the charge whose value breaks the group statement: the group is retried charge by charge, and carries on', async () => {
    const { account, apiKey } = await api.newAccount();
    const { credits, groups } = recordingCredits();
    // Postgres text cannot hold NUL: the statement carrying this reason fails.
    const results = await Promise.allSettled(['first', 'second', 'bad\u0000reason', 'third'].map((reason) => credits.charge(account, 1, `test: ${reason}`)));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect((results[2] as PromiseRejectedResult).reason).not.toBeInstanceOf(ApiError);
    // The first alone, the three behind it as one group that failed, then each of those alone, in order.
    expect(groups.map(([, size]) => size)).toEqual([1, 3, 1, 1, 1]);
    expect(await credits.balance(account)).toBe(997);
    await credits.charge(account, 1, 'test: after');
    expect((await ledgerOf(apiKey)).items.map((i) => i.reason)).toEqual(['test: after', 'test: third', 'test: second', 'test: first', 'opening balance']);
  });
});

describe('charged routes over HTTP', () => {
  async function deploy(apiKey: string) {
    const res = await api.call('POST', '/api/v1/process-definitions', {
      apiKey,
      query: { resourceName: 'charged.bpmn' },
      body: MODEL,
      headers: { 'content-type': 'application/xml' },
    });
    expect(res.status).toBe(200);
  }

  it('starts an instance for 1 credit and answers 402 once the credits are gone, starting nothing', async () => {
    const { account, apiKey } = await api.newAccount();
    await deploy(apiKey);
    await drainTo(account, 1);
    const started = await api.call('POST', '/api/v1/process-instances', { apiKey, json: { bpmnProcessId: 'charged' } });
    expect(started.status).toBe(201);
    expect(started.json.processInstanceKey).toEqual(expect.any(String));

    const ledgerBefore = await ledgerOf(apiKey);
    const refused = await api.call('POST', '/api/v1/process-instances', { apiKey, json: { bpmnProcessId: 'charged' } });
    expectProblem(refused, 402, 'OUT_OF_CREDITS');
    expect(await ledgerOf(apiKey)).toEqual(ledgerBefore);
    const listed = await api.call('GET', '/api/v1/process-instances', { apiKey });
    expect(listed.status).toBe(200);
    expect(listed.json.items).toHaveLength(1);
    expect((await api.call('GET', '/api/v1/account', { apiKey })).json.balance).toBe(0);
  });

  it('never overdraws under concurrent starts: 20 against a balance of 10, exactly 10 start', async () => {
    const { account, apiKey } = await api.newAccount();
    await deploy(apiKey);
    await drainTo(account, 10);
    const results = await Promise.all(
      Array.from({ length: 20 }, () => api.call('POST', '/api/v1/process-instances', { apiKey, json: { bpmnProcessId: 'charged' } })),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(10);
    for (const r of results.filter((x) => x.status !== 201)) expectProblem(r, 402, 'OUT_OF_CREDITS');
    expect((await api.call('GET', '/api/v1/account', { apiKey })).json.balance).toBe(0);
    const starts = (await ledgerOf(apiKey, { limit: 100 })).items.filter((i) => i.amount === -1);
    expect(starts).toHaveLength(10);
  });
});
