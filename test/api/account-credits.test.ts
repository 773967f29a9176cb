// Credits from the operator's side and the account's: a grant through
// POST /api/admin/credits (the server's ORCA_ADMIN_TOKEN, nothing else) is a
// ledger row; the charge that takes a balance below the threshold writes a
// credits.low delivery for a subscribed endpoint in its own statement, and
// nothing without one; with ORCA_CREDITS=off an account with no credits
// starts instances and its wallet stays readable.
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schema, webhookEventId } from '../../engine/store/index.ts';
import { apiFixture, type ApiFixture } from './api-fixture.ts';
import { mustDeploy, serviceProcess, startInstance } from './workflow-support.ts';

const ADMIN_TOKEN = 'operator-token-0123456789abcdef';
const CODE = /^ {2}(\d{8})$/m;

describe('credits by an operator, and credits.low', () => {
  let api: ApiFixture;
  beforeAll(async () => {
    api = await apiFixture({ config: { credits: { adminToken: ADMIN_TOKEN, lowThreshold: 1_000 } } });
  }, 120_000);
  afterAll(() => api?.close());

  const grant = (body: unknown, token?: string) =>
    api.call('POST', '/api/admin/credits', { json: body, headers: token === undefined ? {} : { authorization: `Bearer ${token}` } });

  it('grants credits only with the operator token, as a ledger row', async () => {
    const { email, apiKey, account } = await api.newAccount();
    for (const token of [undefined, 'operator-token-0123456789abcdeX', apiKey]) {
      const refused = await grant({ email, amount: 50 }, token);
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toBe('Bearer realm="orca-admin"');
    }
    expect((await api.call('GET', '/api/v1/account', { apiKey })).json.balance).toBe(1_000);

    const granted = await grant({ email: email.toUpperCase(), amount: 250, reason: 'pilot customer' }, ADMIN_TOKEN);
    expect(granted.status).toBe(201);
    expect(granted.json).toEqual({ account, ledgerEntryId: expect.any(String), amount: 250, balance: 1_250 });
    const ledger = await api.call('GET', '/api/v1/account/ledger', { apiKey });
    expect(ledger.json.items[0]).toMatchObject({ id: granted.json.ledgerEntryId, amount: 250, balanceAfter: 1_250, reason: 'grant: pilot customer' });

    const unknown = await grant({ email: 'nobody-here@example.org', amount: 5 }, ADMIN_TOKEN);
    expect(unknown.status).toBe(404);
    const bad = await grant({ email, amount: 0 }, ADMIN_TOKEN);
    expect(bad.status).toBe(400);
    expect(bad.json.errors).toEqual([expect.objectContaining({ field: 'body.amount' })]);
    expect((await api.call('GET', '/api/v1/account', { apiKey })).json.balance).toBe(1_250);
  });

  async function deliveriesOf(account: string) {
    return api.engine.store.db.select().from(schema.webhookDeliveries).where(eq(schema.webhookDeliveries.account, account));
  }

  async function addEndpoint(account: string, events: string[], status = 'enabled') {
    const id = `we_test_${Math.random().toString(36).slice(2)}`;
    await api.engine.store.db
      .insert(schema.webhookEndpoints)
      .values({ id, account, url: 'https://receiver.example.org/hook', events, secret: 'sealed', status });
    return id;
  }

  it('writes credits.low with the charge that crosses the threshold, once', async () => {
    const { account, apiKey } = await api.newAccount();
    const endpoint = await addEndpoint(account, ['credits.low']);
    const unsubscribed = await addEndpoint(account, ['process_instance.completed']);
    const disabled = await addEndpoint(account, ['credits.low'], 'disabled');
    await mustDeploy(api, apiKey, serviceProcess('low-one', 'low-work'));
    await startInstance(api, apiKey, 'low-one');
    await startInstance(api, apiKey, 'low-one');

    const ledger = (await api.call('GET', '/api/v1/account/ledger', { apiKey })).json.items;
    const crossing = ledger.find((e: { balanceAfter: number }) => e.balanceAfter === 999);
    expect(crossing).toMatchObject({ amount: -1, reason: 'process-instance-start' });
    const rows = await deliveriesOf(account);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      endpointId: endpoint,
      eventId: webhookEventId('credits.low', crossing.id),
      type: 'credits.low',
      status: 'pending',
      payload: { type: 'credits.low', timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/), data: { balance: 999, threshold: 1_000 } },
    });
    expect(rows.map((r) => r.endpointId)).not.toContain(unsubscribed);
    expect(rows.map((r) => r.endpointId)).not.toContain(disabled);
  });

  it('writes nothing for an account without an endpoint', async () => {
    const { account, apiKey } = await api.newAccount();
    await mustDeploy(api, apiKey, serviceProcess('low-two', 'low-work'));
    await startInstance(api, apiKey, 'low-two');
    expect((await api.call('GET', '/api/v1/account', { apiKey })).json.balance).toBe(999);
    expect(await deliveriesOf(account)).toEqual([]);
    const all = await api.engine.store.db
      .select()
      .from(schema.webhookDeliveries)
      .where(and(eq(schema.webhookDeliveries.type, 'credits.low')));
    expect(all.every((r) => r.account !== account)).toBe(true);
  });
});

describe('ORCA_CREDITS=off', () => {
  let api: ApiFixture;
  beforeAll(async () => {
    api = await apiFixture({ config: { credits: { enabled: false }, accounts: { initialCredits: 0 } } });
  }, 120_000);
  afterAll(() => api?.close());

  it('starts instances with a zero balance, charges nothing and says so on the wallet and dashboard', async () => {
    const { apiKey, email } = await api.newAccount();
    expect((await api.call('GET', '/api/v1/account', { apiKey })).json.balance).toBe(0);
    await mustDeploy(api, apiKey, serviceProcess('free-one', 'free-work'));
    for (let i = 0; i < 3; i++) await startInstance(api, apiKey, 'free-one');
    expect((await api.call('GET', '/api/v1/account', { apiKey })).json.balance).toBe(0);

    expect((await api.call('POST', '/api/login', { json: { email } })).status).toBe(202);
    const code = CODE.exec(api.mail(email)[0].text)![1];
    const session = (await api.call('POST', '/api/login/verify', { json: { email, code } })).json.token;
    const headers = { authorization: `Bearer ${session}` };
    const wallet = await api.call('GET', '/api/wallet', { headers });
    expect(wallet.json).toEqual({ balance: 0, creditsEnabled: false, items: [], nextCursor: null });
    const dashboard = await api.call('GET', '/api/dashboard', { headers });
    expect(dashboard.json).toMatchObject({ balance: 0, credits: { enabled: false } });
  });

  it('closes the admin route when the server has no operator token', async () => {
    const { email } = await api.newAccount();
    const res = await api.call('POST', '/api/admin/credits', { json: { email, amount: 5 }, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(res.status).toBe(403);
    expect(res.json.detail).toMatch(/ORCA_ADMIN_TOKEN is unset/);
  });
});
