// The agent identity store at the service level (api/agents/), on the whole
// service over its real store: Postgres (and Redis) when DATABASE_URL /
// REDIS_URL are set, else PGlite and the in-process queues. Register →
// connect twice → rotate: the rotating session keeps working, the other one
// is ended, the old token opens nothing; two rotations racing leave one
// token live; a restart keeps sessions; the shapes of SPEC's other
// credentials are refused where a session or token belongs; register and
// connect are rate-limited per account and per address.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentBuckets } from '../../api/agents/buckets.ts';
import { createAgents } from '../../api/agents/index.ts';
import { AgentSessionError } from '../../api/agents/types.ts';
import { deleteByPrefix } from '../../engine/queue/testing/redis.ts';
import { apiFixture, type ApiFixture } from './api-fixture.ts';

let api: ApiFixture;
beforeAll(async () => {
  api = await apiFixture();
});
afterAll(() => api.close());

const agents = () => api.service.agents;

async function sessionError(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(AgentSessionError);
    return (error as AgentSessionError).code;
  }
  throw new Error('expected an AgentSessionError');
}

async function newAgent(name = 'worker') {
  const { account, apiKey } = await api.newAccount();
  const { agentId, token } = await agents().register({ apiKey, name });
  return { account, apiKey, agentId, token };
}

describe('agents: register, connect, rotate', () => {
  it('register → connect twice → rotate: the rotating session lives on, the other ends, the old token is refused', async () => {
    const { account, apiKey } = await api.newAccount();
    const { agentId, token } = await agents().register({ apiKey, name: 'planner' });
    expect(agentId).toMatch(/^agt_[0-9a-f]{24}$/);
    // 32 random bytes behind the prefix: 256 bits.
    expect(token).toMatch(/^orcaag_[A-Za-z0-9_-]{43}$/);

    const first = await agents().connect({ token });
    const second = await agents().connect({ token });
    expect(first).toMatchObject({ agentId, account });
    expect(first.sessionId).toMatch(/^orcaas_[A-Za-z0-9_-]{43}$/);
    expect(second.sessionId).not.toBe(first.sessionId);
    expect(await agents().session(second.sessionId)).toEqual(second);
    expect(await agents().authenticateToken(token)).toEqual({ agentId, account });

    const { token: next } = await agents().rotateToken(first.sessionId);
    expect(next).not.toBe(token);
    expect(await agents().session(first.sessionId)).toEqual(first);
    expect(await sessionError(agents().session(second.sessionId))).toBe('SESSION_ENDED');
    expect(await sessionError(agents().rotateToken(second.sessionId))).toBe('SESSION_ENDED');
    expect(await agents().authenticateToken(token)).toBeNull();
    await expect(agents().connect({ token })).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    expect(await agents().authenticateToken(next)).toEqual({ agentId, account });
    expect((await agents().connect({ token: next })).agentId).toBe(agentId);
    // The rotating session can rotate again; the store holds hashes only.
    const { token: third } = await agents().rotateToken(first.sessionId);
    const rows = await api.engine.store.db.execute(`select token_hash from agents where id = '${agentId}'`);
    expect(JSON.stringify(rows)).not.toContain(third);
  });

  it('two rotations racing from two sessions: one wins, the other session is ended, one token is live', async () => {
    const { token } = await newAgent('racer');
    const [a, b] = [await agents().connect({ token }), await agents().connect({ token })];
    const results = await Promise.allSettled([agents().rotateToken(a.sessionId), agents().rotateToken(b.sessionId)]);
    const won = results.filter((r) => r.status === 'fulfilled');
    const lost = results.filter((r) => r.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    expect((lost[0] as PromiseRejectedResult).reason).toMatchObject({ code: 'SESSION_ENDED' });
    const winner = results[0].status === 'fulfilled' ? a : b;
    const loser = winner === a ? b : a;
    expect(await agents().session(winner.sessionId)).toEqual(winner);
    expect(await sessionError(agents().session(loser.sessionId))).toBe('SESSION_ENDED');
    const newToken = (won[0] as PromiseFulfilledResult<{ token: string }>).value.token;
    expect(await agents().authenticateToken(newToken)).not.toBeNull();
    expect(await agents().authenticateToken(token)).toBeNull();
  });

  it('two rotations racing from one session: both answer, and only the last token is live', async () => {
    const { token } = await newAgent('twice');
    const { sessionId } = await agents().connect({ token });
    const [x, y] = await Promise.all([agents().rotateToken(sessionId), agents().rotateToken(sessionId)]);
    const live = await Promise.all([token, x.token, y.token].map((t) => agents().authenticateToken(t)));
    expect(live.filter((agent) => agent !== null)).toHaveLength(1);
    expect(live[0]).toBeNull();
    expect((await agents().session(sessionId)).sessionId).toBe(sessionId);
  });

  it('sessions live in the store: after a restart the same session and token still work, the ended one stays ended', async () => {
    const { agentId, token } = await newAgent('durable');
    const [kept, other] = [await agents().connect({ token }), await agents().connect({ token })];
    const { token: next } = await agents().rotateToken(kept.sessionId);
    await api.restart();
    expect(await agents().session(kept.sessionId)).toEqual(kept);
    expect(await sessionError(agents().session(other.sessionId))).toBe('SESSION_ENDED');
    expect(await agents().authenticateToken(next)).toMatchObject({ agentId });
    expect(await agents().authenticateToken(token)).toBeNull();
  });

  it("refuses other credentials' shapes: an API key is no session id and no agent token, a bearer token registers nothing", async () => {
    const { apiKey, token } = await newAgent('shapes');
    const minted = await api.call('POST', '/api/token', { json: { api_key: apiKey } });
    const bearer = minted.json.access_token as string;
    expect(bearer).toMatch(/^orcat_/);
    expect(await sessionError(agents().session(apiKey))).toBe('SESSION_NOT_FOUND');
    expect(await sessionError(agents().session(token))).toBe('SESSION_NOT_FOUND');
    expect(await sessionError(agents().session(`orcaas_${randomBytes(32).toString('base64url')}`))).toBe('SESSION_NOT_FOUND');
    expect(await sessionError(agents().rotateToken(apiKey))).toBe('SESSION_NOT_FOUND');
    expect(await sessionError(agents().session(''))).toBe('SESSION_NOT_FOUND');
    await expect(agents().connect({ token: apiKey })).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    await expect(agents().connect({ token: bearer })).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    expect(await agents().authenticateToken(apiKey)).toBeNull();
    await expect(agents().register({ apiKey: bearer, name: 'x' })).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    await expect(agents().register({ apiKey: token, name: 'x' })).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    await expect(agents().register({ apiKey: `orca_${randomBytes(32).toString('base64url')}`, name: 'x' })).rejects.toMatchObject({
      code: 'UNAUTHENTICATED',
    });
  });

  it('a retired API key registers nothing; agents it registered keep working (they belong to the account)', async () => {
    const { apiKey, token, agentId } = await newAgent('survivor');
    const rotated = await api.call('POST', '/api/keys/rotate', { apiKey });
    expect(rotated.status).toBe(200);
    await expect(agents().register({ apiKey, name: 'late' })).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    expect((await agents().connect({ token })).agentId).toBe(agentId);
  });

  it('a bad name is INVALID_INPUT naming the field, and creates nothing', async () => {
    const { apiKey } = await api.newAccount();
    for (const name of ['', '   ', 'x'.repeat(101), 'tab\there', 42 as unknown as string]) {
      await expect(agents().register({ apiKey, name })).rejects.toMatchObject({ code: 'INVALID_INPUT', extra: { errors: [{ field: 'name' }] } });
    }
    const count = await api.engine.store.db.execute(`select count(*)::int as n from agents where name = '' or length(name) > 100`);
    expect(JSON.stringify(count)).toContain('"n":0');
  });
});

describe('agents: flood limits on register and connect', () => {
  const prefix = `orca-test-agents-${randomBytes(4).toString('hex')}:`;
  afterAll(async () => {
    if (process.env.REDIS_URL) await deleteByPrefix(process.env.REDIS_URL, prefix);
  });

  async function limited(limits: { register?: number; connect?: number }) {
    const buckets = await agentBuckets(process.env.REDIS_URL || undefined, prefix);
    // Refill slower than the test runs: what it spends is what is left.
    const slow = (burst: number) => ({ burst, perSecond: 1 / 3_600 });
    const service = createAgents({
      store: api.engine.store,
      identity: api.service.identity,
      buckets: buckets.factory,
      rateLimits: { register: slow(limits.register ?? 100), connect: slow(limits.connect ?? 100) },
    });
    return { service, close: async () => (await service.close(), await buckets.close()) };
  }

  it('registrations per account: the burst passes, the next is RATE_LIMITED with a retry time; another account is not affected', async () => {
    const { service, close } = await limited({ register: 3 });
    try {
      const { apiKey } = await api.newAccount();
      for (let i = 0; i < 3; i++) await service.register({ apiKey, name: `a${i}` });
      const refused = service.register({ apiKey, name: 'one too many' });
      await expect(refused).rejects.toMatchObject({ code: 'RATE_LIMITED' });
      await expect(refused).rejects.toSatisfy((e: { extra: { retryAfterSeconds: number } }) => e.extra.retryAfterSeconds >= 1);
      const other = await api.newAccount();
      await expect(service.register({ apiKey: other.apiKey, name: 'fine' })).resolves.toMatchObject({ agentId: expect.any(String) });
    } finally {
      await close();
    }
  });

  it('registrations and connections per address: one address is held to the burst across accounts', async () => {
    const { service, close } = await limited({ register: 2, connect: 2 });
    try {
      const address = `10.0.${randomBytes(1)[0]}.${randomBytes(1)[0]}`;
      const [one, two] = [await api.newAccount(), await api.newAccount()];
      const { token: tokenOne } = await service.register({ apiKey: one.apiKey, name: 'a', address });
      const { token: tokenTwo } = await service.register({ apiKey: two.apiKey, name: 'b', address });
      await expect(service.register({ apiKey: two.apiKey, name: 'c', address })).rejects.toMatchObject({ code: 'RATE_LIMITED' });
      // A flood from one address does not cost the others anything.
      await service.register({ apiKey: two.apiKey, name: 'd', address: '192.0.2.1' });
      await service.connect({ token: tokenOne, address });
      await service.connect({ token: tokenTwo, address });
      await expect(service.connect({ token: tokenTwo, address })).rejects.toMatchObject({ code: 'RATE_LIMITED' });
      await expect(service.connect({ token: tokenOne, address: '192.0.2.2' })).resolves.toMatchObject({ sessionId: expect.any(String) });
    } finally {
      await close();
    }
  });

  it('connections per account: one account is held to the burst across addresses', async () => {
    const { service, close } = await limited({ connect: 2 });
    try {
      const { apiKey } = await api.newAccount();
      const { token } = await service.register({ apiKey, name: 'a' });
      await service.connect({ token, address: '198.51.100.1' });
      await service.connect({ token, address: '198.51.100.2' });
      await expect(service.connect({ token, address: '198.51.100.3' })).rejects.toMatchObject({ code: 'RATE_LIMITED' });
    } finally {
      await close();
    }
  });
});

describe('mailbox service (what the MCP tools call)', () => {
  it('refuses what the store cannot hold or the account does not own as ApiErrors, and stores nothing', async () => {
    const { apiKey, account } = await api.newAccount();
    const [a, b] = [await agents().register({ apiKey, name: 'a' }), await agents().register({ apiKey, name: 'b' })];
    const from = { agentId: a.agentId, account };
    const mailbox = api.service.mailbox;
    let deep: unknown = 'bottom';
    for (let i = 0; i < 100; i++) deep = [deep];
    const invalid: [unknown, string][] = [
      [{ to: b.agentId, body: 'nul \u0000' }, 'body'],
      [{ to: b.agentId, body: { ['\ud800']: 1 } }, 'body'],
      [{ to: b.agentId, body: deep }, 'body'],
      [{ to: b.agentId }, 'body'],
      [{ body: 1 }, 'to'],
    ];
    for (const [input, field] of invalid) {
      await expect(mailbox.send(from, input as { to: string; body: unknown })).rejects.toMatchObject({
        code: 'INVALID_INPUT',
        extra: { errors: [expect.objectContaining({ field })] },
      });
    }
    await expect(mailbox.send(from, { to: 'agt_nope', body: 1 })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(mailbox.ack({ agentId: b.agentId, account }, '12345678901')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(mailbox.ack({ agentId: b.agentId, account }, 'not-an-id')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(mailbox.list({ agentId: b.agentId, account }, { cursor: 'garbage' })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    expect((await mailbox.list({ agentId: b.agentId, account }, {})).items).toEqual([]);
    const sent = await mailbox.send(from, { to: b.agentId, body: { ok: true }, idempotencyKey: 'k' });
    expect(await mailbox.send(from, { to: b.agentId, body: { ok: true }, idempotencyKey: 'k' })).toEqual(sent);
    expect((await mailbox.ack({ agentId: b.agentId, account }, sent.id)).ackedAt).not.toBeNull();
  });
});
