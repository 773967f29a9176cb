// The agent mailbox over real HTTP (api/routes/mailbox.ts), on Postgres and
// Redis when DATABASE_URL / REDIS_URL are set, else PGlite. Agents come from
// the agent service (their MCP tools are another module's); everything else
// goes over REST with the agent's token as Authorization: Bearer. The server
// logs to a buffer the whole file long, and no secret handed out here may
// appear in it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_MESSAGE_BYTES } from '../../api/agents/mailbox.ts';
import { apiFixture, type ApiFixture, type CallResult } from './api-fixture.ts';

let api: ApiFixture;
const logged: string[] = [];
/** Every secret handed out in this file: none may be logged. */
const secrets: string[] = [];

beforeAll(async () => {
  api = await apiFixture({ logger: { stream: { write: (line: string) => void logged.push(line) } } });
});
afterAll(() => api.close());

interface Agent {
  account: string;
  apiKey: string;
  agentId: string;
  token: string;
}

async function agentsOf(count: number, account?: { account: string; apiKey: string }): Promise<Agent[]> {
  const owner = account ?? (await api.newAccount());
  secrets.push(owner.apiKey);
  const out: Agent[] = [];
  for (let i = 0; i < count; i++) {
    const { agentId, token } = await api.service.agents.register({ apiKey: owner.apiKey, name: `agent ${i}` });
    secrets.push(token);
    out.push({ account: owner.account, apiKey: owner.apiKey, agentId, token });
  }
  return out;
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

function send(from: Agent | string, json: unknown, headers: Record<string, string> = {}): Promise<CallResult> {
  const token = typeof from === 'string' ? from : from.token;
  return api.call('POST', '/api/v1/mailbox/messages', { json, headers: { ...bearer(token), ...headers } });
}

const list = (agent: Agent, query: Record<string, string | number | undefined> = {}) =>
  api.call('GET', '/api/v1/mailbox/messages', { headers: bearer(agent.token), query });

const ack = (agent: Agent, id: string) => api.call('POST', `/api/v1/mailbox/messages/${id}/ack`, { headers: bearer(agent.token) });

describe('mailbox: send, list, ack', () => {
  it('sends to another agent of the account; the recipient lists it until it acknowledges it (at least once)', async () => {
    const [alice, bob] = await agentsOf(2);
    const sent = await send(alice, { to: bob.agentId, body: { task: 'review', refs: [1, 2] } });
    expect(sent.status).toBe(201);
    expect(sent.json).toMatchObject({ from: alice.agentId, to: bob.agentId, body: { task: 'review', refs: [1, 2] }, ackedAt: null });
    expect(sent.json.id).toMatch(/^[1-9][0-9]*$/);

    // Not acknowledged: listed again, and again.
    for (let i = 0; i < 2; i++) {
      const listed = await list(bob);
      expect(listed.status).toBe(200);
      expect(listed.json).toEqual({ items: [sent.json], nextCursor: null });
    }
    // The sender's own mailbox does not hold what it sent.
    expect((await list(alice)).json.items).toEqual([]);

    const acked = await ack(bob, sent.json.id);
    expect(acked.status).toBe(200);
    expect(acked.json).toMatchObject({ id: sent.json.id, ackedAt: expect.any(String) });
    // A second ack answers the first one.
    expect((await ack(bob, sent.json.id)).json).toEqual(acked.json);
    expect((await list(bob)).json.items).toEqual([acked.json]);
  });

  it('carries any JSON value as the body, null, false, 0 and the empty string included', async () => {
    const [alice, bob] = await agentsOf(2);
    const bodies: unknown[] = [null, false, 0, '', [], {}, [1, 'two', { three: [null] }], 'ünïcødé ✓'];
    for (const body of bodies) expect((await send(alice, { to: bob.agentId, body })).status, JSON.stringify(body)).toBe(201);
    expect((await list(bob)).json.items.map((m: { body: unknown }) => m.body)).toEqual(bodies);
  });

  it('lists unacknowledged messages first, each part in sending order, with cursor paging across both parts', async () => {
    const [sender, reader] = await agentsOf(2);
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) ids.push((await send(sender, { to: reader.agentId, body: i })).json.id);
    // Acknowledge the 2nd and the 5th: they go to the end.
    await ack(reader, ids[1]);
    await ack(reader, ids[4]);
    const seen: { id: string; ackedAt: string | null }[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await list(reader, { limit: 3, cursor });
      expect(page.status).toBe(200);
      expect(page.json.items.length).toBeLessThanOrEqual(3);
      seen.push(...page.json.items);
      cursor = page.json.nextCursor ?? undefined;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen.map((m) => m.id)).toEqual([ids[0], ids[2], ids[3], ids[5], ids[6], ids[1], ids[4]]);
    expect(seen.map((m) => m.ackedAt === null)).toEqual([true, true, true, true, true, false, false]);
  });

  it('an Idempotency-Key makes a retry answer the first message; the same key for another message is a 409 that sends nothing', async () => {
    const [alice, bob] = await agentsOf(2);
    const key = { 'idempotency-key': 'send-1' };
    const first = await send(alice, { to: bob.agentId, body: { n: 1 } }, key);
    const again = await send(alice, { to: bob.agentId, body: { n: 1 } }, key);
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.json).toEqual(first.json);
    const reused = await send(alice, { to: bob.agentId, body: { n: 2 } }, key);
    expect(reused.status).toBe(409);
    expect(reused.json).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED', errors: [{ field: 'headers.Idempotency-Key' }] });
    // Keys are the sender's: another agent may use the same one.
    const carol = (await agentsOf(1, { account: alice.account, apiKey: alice.apiKey }))[0];
    expect((await send(carol, { to: bob.agentId, body: { n: 2 } }, key)).status).toBe(201);
    expect((await list(bob)).json.items.map((m: { body: unknown }) => m.body)).toEqual([{ n: 1 }, { n: 2 }]);
  });

  it("sends only within the account: another account's agent, or an unknown id is a 404", async () => {
    const [alice] = await agentsOf(1);
    const [stranger] = await agentsOf(1);
    const foreign = await send(alice, { to: stranger.agentId, body: 'hi' });
    expect(foreign.status).toBe(404);
    expect(foreign.json).toMatchObject({ code: 'NOT_FOUND' });
    expect((await send(alice, { to: 'agt_000000000000000000000000', body: 'hi' })).status).toBe(404);
    expect((await list(stranger)).json.items).toEqual([]);
    // Another agent's message cannot be acknowledged, nor an unknown one.
    const [bob] = await agentsOf(1, { account: alice.account, apiKey: alice.apiKey });
    const sent = await send(alice, { to: bob.agentId, body: 'mine' });
    expect((await ack(alice, sent.json.id)).status).toBe(404);
    expect((await ack(stranger, sent.json.id)).status).toBe(404);
    expect((await ack(bob, '999999999999')).status).toBe(404);
    expect((await list(bob)).json.items[0].ackedAt).toBeNull();
  });

  it('bad input is a 400 problem naming the field, and sends nothing', async () => {
    const [alice, bob] = await agentsOf(2);
    const cases: [unknown, string][] = [
      [{ body: 1 }, 'body.to'],
      [{ to: 'bob', body: 1 }, 'body.to'],
      [{ to: 42, body: 1 }, 'body.to'],
      [{ to: bob.agentId }, 'body.body'],
      [{ to: bob.agentId, body: 'x'.repeat(MAX_MESSAGE_BYTES + 1) }, 'body.body'],
      [{ to: bob.agentId, body: 'nul \u0000 inside' }, 'body.body'],
    ];
    for (const [json, field] of cases) {
      const response = await send(alice, json);
      expect(response.status, JSON.stringify(json).slice(0, 80)).toBe(400);
      expect(response.headers.get('content-type')).toMatch(/application\/problem\+json/);
      expect(response.json.code).toBe('INVALID_INPUT');
      expect(response.json.errors.map((e: { field: string }) => e.field)).toContain(field);
    }
    const notJson = await api.call('POST', '/api/v1/mailbox/messages', {
      body: '{"to":',
      headers: { ...bearer(alice.token), 'content-type': 'application/json' },
    });
    expect(notJson.status).toBe(400);
    expect((await send(alice, { to: bob.agentId, body: 1 }, { 'idempotency-key': '' })).json.errors).toEqual([
      expect.objectContaining({ field: 'headers.Idempotency-Key' }),
    ]);
    expect((await ack(bob, 'abc')).json).toMatchObject({ code: 'INVALID_INPUT', errors: [{ field: 'params.id' }] });
    expect((await list(bob, { limit: 0 })).json.errors[0].field).toBe('query.limit');
    expect((await list(bob, { cursor: 'bm9wZQ' })).json).toMatchObject({ code: 'INVALID_INPUT', errors: [{ field: 'query.cursor' }] });
    expect((await list(bob)).json.items).toEqual([]);
  });
});

describe('mailbox: authentication', () => {
  it('takes only an agent token as Bearer: none, an account key (any way), a bearer token or an app token is a 401', async () => {
    const [alice, bob] = await agentsOf(2);
    const minted = (await api.call('POST', '/api/token', { json: { api_key: alice.apiKey } })).json.access_token as string;
    const app = (await api.call('POST', '/api/v1/platform/register', { apiKey: alice.apiKey, json: { name: 'crm' } })).json.token as string;
    secrets.push(minted, app);
    const attempts: Record<string, Record<string, string>> = {
      none: {},
      'api key as Bearer': bearer(alice.apiKey),
      'api key as X-API-Key': { 'x-api-key': alice.apiKey },
      'agent token as X-API-Key': { 'x-api-key': alice.token },
      'minted token as Bearer': bearer(minted),
      'app token as Bearer': bearer(app),
      'garbage as Bearer': bearer('orcaag_nope'),
    };
    for (const [what, headers] of Object.entries(attempts)) {
      for (const call of [
        () => api.call('GET', '/api/v1/mailbox/messages', { headers }),
        () => api.call('POST', '/api/v1/mailbox/messages', { headers, json: { to: bob.agentId, body: 1 } }),
        () => api.call('POST', '/api/v1/mailbox/messages/1/ack', { headers }),
      ]) {
        const response = await call();
        expect(response.status, what).toBe(401);
        expect(response.json.code).toBe('UNAUTHENTICATED');
        expect(response.headers.get('www-authenticate')).toBe('Bearer realm="orca-agents"');
      }
    }
    expect((await list(bob)).json.items).toEqual([]);
  });

  it('an agent token opens nothing but the mailbox: the workflow API and the account routes refuse it', async () => {
    const [alice] = await agentsOf(1);
    for (const path of ['/api/v1/process-instances', '/api/v1/process-definitions', '/api/v1/account', '/api/v1/platform/app']) {
      const response = await api.call('GET', path, { headers: bearer(alice.token) });
      expect(response.status, path).toBe(401);
    }
  });

  it('a rotated token is refused at once though it was just used; the new one works, and the rotating session too', async () => {
    const [alice, bob] = await agentsOf(2);
    const session = await api.service.agents.connect({ token: alice.token });
    const other = await api.service.agents.connect({ token: alice.token });
    secrets.push(session.sessionId, other.sessionId);
    expect((await send(alice, { to: bob.agentId, body: 'before' })).status).toBe(201);
    const { token: next } = await api.service.agents.rotateToken(session.sessionId);
    secrets.push(next);
    const old = await send(alice, { to: bob.agentId, body: 'after' });
    expect(old.status).toBe(401);
    expect((await api.call('GET', '/api/v1/mailbox/messages', { headers: bearer(alice.token) })).status).toBe(401);
    expect((await send(next, { to: bob.agentId, body: 'after' })).status).toBe(201);
    expect((await api.service.agents.session(session.sessionId)).agentId).toBe(alice.agentId);
    await expect(api.service.agents.session(other.sessionId)).rejects.toMatchObject({ code: 'SESSION_ENDED' });
    expect((await list(bob)).json.items.map((m: { body: unknown }) => m.body)).toEqual(['before', 'after']);
  });
});

describe('logs', () => {
  it('the server logged, and no secret handed out in this file is in any line of it', () => {
    const text = logged.join('');
    expect(logged.length).toBeGreaterThan(0);
    expect(secrets.length).toBeGreaterThan(10);
    for (const secret of secrets) expect(text.includes(secret), 'a secret in the log').toBe(false);
  });
});
