// The agent identity store (issue #18): registering agents on an account,
// their tokens, and the sessions opened with them (types.ts has the
// contract). Secrets are made and hashed as identity's are (secrets.ts);
// the agents repository keeps only hashes. Successful lookups of tokens and
// sessions are kept briefly as identity keeps keys (auth-cache.ts), and a
// rotation is announced on the notices identity announces key retirements
// on, so every pod drops the old token and the ended sessions at once.
import { agentsRepository, type Db, type Notices, type Store } from '../../engine/index.ts';
import type { Identity } from '../context.ts';
import { AuthCache } from '../identity/auth-cache.ts';
import { hashSecret, kindOf, newId, newSecret, sameHash } from '../identity/secrets.ts';
import { ApiError } from '../problem.ts';
import { CallLimit, DEFAULT_AGENT_RATE_LIMITS, localBuckets, type AgentRateLimits, type BucketsFactory } from './rate-limits.ts';
import { AgentSessionError, type AgentService, type AgentSession } from './types.ts';

export { AgentSessionError, type AgentService, type AgentSession } from './types.ts';

export interface AgentsService extends AgentService {
  /** Settles once this pod hears other pods' rotations (at once without notices; never rejects). */
  readonly listening: Promise<void>;
  close(): Promise<void>;
}

export interface CreateAgentsOptions {
  /** The store's agents repository; or `db`, to build one. */
  store?: Pick<Store, 'agents'>;
  db?: Db;
  /** Resolves the API key register() is given. */
  identity: Identity;
  /** Where rotations are announced to, and heard from, the other pods. */
  notices?: Notices;
  /** How long a successful token or session lookup is kept (default 1,000 ms, as identity's; 0 = never). */
  authCacheMs?: number;
  rateLimits?: AgentRateLimits;
  /** The buckets behind the rate limits (default: in this process). */
  buckets?: BucketsFactory;
  now?: () => Date;
}

/** The notice topic of a rotation; the message is the agent's id. */
const AGENT_ROTATED = 'agent-token-rotated';

export const MAX_AGENT_NAME_LENGTH = 100;
// Printable, no control characters: the name is shown in lists and logs.
const AGENT_NAME = /^[^\p{Cc}\p{Cs}]+$/u;

/** Why `name` is not a valid agent or app name, or undefined. */
export function nameProblem(name: unknown): string | undefined {
  if (typeof name !== 'string') return 'must be a string';
  if (name.trim().length === 0) return 'must not be empty';
  if (name.length > MAX_AGENT_NAME_LENGTH) return `must be at most ${MAX_AGENT_NAME_LENGTH} characters, not ${name.length}`;
  if (!AGENT_NAME.test(name)) return 'must not contain control characters';
  return undefined;
}

const unauthenticatedKey = () =>
  new ApiError('UNAUTHENTICATED', 'The API key is unknown or retired. Register an agent with an account API key (orca_…), not a token.', {
    errors: [{ field: 'apiKey', message: 'not an active account API key' }],
  });

const unauthenticatedToken = () =>
  new ApiError('UNAUTHENTICATED', 'The agent token is unknown or was rotated away. Use the token orca.register or the last orca.rotate_token returned.', {
    errors: [{ field: 'token', message: 'not a live agent token' }],
  });

const sessionNotFound = () =>
  new AgentSessionError(
    'SESSION_NOT_FOUND',
    'No such session. Open one with orca.connect and pass the sessionId it returns (an API key or token is not a session id).',
  );
const sessionEnded = () =>
  new AgentSessionError('SESSION_ENDED', "This session was ended: the agent's token was rotated from another session. Connect again with the new token.");

export function createAgents(options: CreateAgentsOptions): AgentsService {
  const repo = options.store?.agents ?? (options.db ? agentsRepository(options.db) : undefined);
  if (!repo) throw new TypeError('createAgents needs a store or a db');
  const now = options.now ?? (() => new Date());
  const ttl = options.authCacheMs ?? 1_000;
  // Token hash → agent, and session hash → agent; `keyId` is the agent's id, what a rotation evicts by.
  const tokens = new AuthCache(ttl);
  const sessions = new AuthCache(ttl);
  const limits = { ...DEFAULT_AGENT_RATE_LIMITS, ...options.rateLimits };
  const registerLimit = new CallLimit('register', limits.register, options.buckets ?? localBuckets);
  const connectLimit = new CallLimit('connect', limits.connect, options.buckets ?? localBuckets);

  const evict = (agentId: string) => {
    tokens.revokeKey(agentId);
    sessions.revokeKey(agentId);
  };
  // Best effort: until it listens (or if it cannot), the caches' short life is the bound.
  let unsubscribe: (() => void) | undefined;
  const listening = (options.notices?.subscribe(AGENT_ROTATED, evict) ?? Promise.resolve(undefined)).then(
    (stop) => void (unsubscribe = stop),
    () => undefined,
  );

  async function authenticateToken(token: string): Promise<{ agentId: string; account: string } | null> {
    if (typeof token !== 'string' || kindOf(token) !== 'agentToken') return null;
    const hash = hashSecret(token);
    const at = now().getTime();
    const kept = tokens.get(hash, at);
    if (kept !== undefined) return { agentId: kept.keyId, account: kept.account };
    const generation = tokens.generation();
    const agent = await repo!.findByToken(hash);
    if (!agent || !sameHash(agent.tokenHash, hash)) return null;
    tokens.set(hash, { account: agent.account, keyId: agent.id }, at, generation);
    return { agentId: agent.id, account: agent.account };
  }

  async function resolveSession(sessionId: string): Promise<AgentSession> {
    if (typeof sessionId !== 'string' || kindOf(sessionId) !== 'agentSession') throw sessionNotFound();
    const hash = hashSecret(sessionId);
    const at = now().getTime();
    const kept = sessions.get(hash, at);
    if (kept !== undefined) return { sessionId, agentId: kept.keyId, account: kept.account };
    const generation = sessions.generation();
    const row = await repo!.findSession(hash);
    if (!row) throw sessionNotFound();
    if (row.ended) throw sessionEnded();
    sessions.set(hash, { account: row.account, keyId: row.agent }, at, generation);
    return { sessionId, agentId: row.agent, account: row.account };
  }

  return {
    listening,
    authenticateToken,
    session: resolveSession,

    async register(input) {
      const problem = nameProblem(input?.name);
      if (problem !== undefined) {
        throw new ApiError('INVALID_INPUT', `The agent name ${problem}.`, { errors: [{ field: 'name', message: problem }] });
      }
      await registerLimit.take(input.address && `address:${input.address}`);
      if (typeof input.apiKey !== 'string' || kindOf(input.apiKey) !== 'apiKey') throw unauthenticatedKey();
      const account = await options.identity.authenticate(input.apiKey);
      if (account === null) throw unauthenticatedKey();
      await registerLimit.take(`account:${account}`);
      const token = newSecret('agentToken');
      const agentId = newId('agt_');
      await repo.createAgent({ id: agentId, account, name: input.name.trim(), tokenHash: hashSecret(token) });
      return { agentId, token };
    },

    async connect(input) {
      await connectLimit.take(input?.address && `address:${input.address}`);
      const agent = await authenticateToken(input?.token);
      if (agent === null) throw unauthenticatedToken();
      await connectLimit.take(`account:${agent.account}`);
      const sessionId = newSecret('agentSession');
      // The statement checks the token again: a rotation since the lookup above wins.
      const opened = await repo.openSession(hashSecret(input.token), hashSecret(sessionId));
      if (opened === null) throw unauthenticatedToken();
      return { sessionId, agentId: opened.agent, account: opened.account };
    },

    async rotateToken(sessionId) {
      if (typeof sessionId !== 'string' || kindOf(sessionId) !== 'agentSession') throw sessionNotFound();
      const token = newSecret('agentToken');
      const result = await repo.rotateToken(hashSecret(sessionId), hashSecret(token), now());
      if (result.status === 'unknown') throw sessionNotFound();
      if (result.status === 'ended') throw sessionEnded();
      // Committed: drop the old token and the ended sessions here, then on every other pod.
      evict(result.agent);
      await options.notices?.publish(AGENT_ROTATED, result.agent).catch(() => {});
      return { token };
    },

    async close() {
      unsubscribe?.();
      await Promise.all([registerLimit.close(), connectLimit.close()]);
    },
  };
}
