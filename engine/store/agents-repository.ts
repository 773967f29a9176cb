// AI agents, their tokens and their sessions (issue #18). Tokens and session
// ids are stored as sha256 hashes and found by an index probe on the hash.
// An agent has one token column, so rotating replaces the token rather than
// adding one: two tokens of one agent are never live together. A rotation
// is one transaction that locks the agent row first, so of two racing
// rotations the second sees the first's outcome (its session ended, or the
// token already replaced) instead of interleaving with it.
import { and, eq, isNull, ne, sql } from 'drizzle-orm';
import { rows, type Db } from './db.ts';
import { guarded } from './errors.ts';
import { agents, agentSessions } from './schema.ts';
import { assertAccount } from './tenancy.ts';

export interface AgentRow {
  id: string;
  account: string;
  name: string;
  tokenHash: string;
}

export interface SessionRow {
  agent: string;
  account: string;
  /** Set once the session was ended (a rotation from another session, or the agent removed). */
  ended: boolean;
}

export type RotateResult = { status: 'rotated'; agent: string; account: string } | { status: 'ended' } | { status: 'unknown' };

export function agentsRepository(db: Db) {
  async function createAgent(agent: AgentRow): Promise<void> {
    assertAccount(agent.account);
    await db.insert(agents).values(agent);
  }

  /** The live agent whose token has this hash. */
  async function findByToken(tokenHash: string): Promise<AgentRow | null> {
    const [row] = await db
      .select({ id: agents.id, account: agents.account, name: agents.name, tokenHash: agents.tokenHash })
      .from(agents)
      .where(and(eq(agents.tokenHash, tokenHash), isNull(agents.retiredAt)));
    return row ?? null;
  }

  /** A live agent of the account, by id. */
  async function findAgent(account: string, id: string): Promise<{ id: string; name: string } | null> {
    assertAccount(account);
    const [row] = await db
      .select({ id: agents.id, name: agents.name })
      .from(agents)
      .where(and(eq(agents.account, account), eq(agents.id, id), isNull(agents.retiredAt)));
    return row ?? null;
  }

  /**
   * Opens a session for the live agent whose token has `tokenHash`, in one
   * statement, so a token rotated away a moment earlier cannot open one.
   */
  async function openSession(tokenHash: string, sessionHash: string): Promise<{ agent: string; account: string } | null> {
    const [row] = await rows<{ agent: string; account: string }>(
      db,
      sql`insert into agent_sessions (hash, agent, account)
          select ${sessionHash}, a.id, a.account from agents a where a.token_hash = ${tokenHash} and a.retired_at is null
          returning agent, account`,
    );
    return row ?? null;
  }

  async function findSession(sessionHash: string): Promise<SessionRow | null> {
    const [row] = await db
      .select({ agent: agentSessions.agent, account: agentSessions.account, endedAt: agentSessions.endedAt, retiredAt: agents.retiredAt })
      .from(agentSessions)
      .innerJoin(agents, eq(agents.id, agentSessions.agent))
      .where(eq(agentSessions.hash, sessionHash));
    if (!row) return null;
    return { agent: row.agent, account: row.account, ended: row.endedAt !== null || row.retiredAt !== null };
  }

  /**
   * Gives the agent behind a live session the token `nextTokenHash` and ends
   * its other sessions, in one transaction. The agent row is locked before
   * the session is checked, so a concurrent rotation from another session of
   * the same agent either ended this one already (status 'ended') or waits.
   */
  async function rotateToken(sessionHash: string, nextTokenHash: string, now: Date): Promise<RotateResult> {
    return db.transaction(async (tx): Promise<RotateResult> => {
      const [session] = await tx.select({ agent: agentSessions.agent }).from(agentSessions).where(eq(agentSessions.hash, sessionHash));
      if (!session) return { status: 'unknown' };
      const [agent] = await tx
        .select({ id: agents.id, account: agents.account, retiredAt: agents.retiredAt })
        .from(agents)
        .where(eq(agents.id, session.agent))
        .for('update');
      if (!agent || agent.retiredAt !== null) return { status: 'ended' };
      // Read again under the lock: a rotation that committed while we waited may have ended it.
      const [current] = await tx.select({ endedAt: agentSessions.endedAt }).from(agentSessions).where(eq(agentSessions.hash, sessionHash));
      if (!current || current.endedAt !== null) return { status: 'ended' };
      await tx.update(agents).set({ tokenHash: nextTokenHash, rotatedAt: now }).where(eq(agents.id, agent.id));
      await tx
        .update(agentSessions)
        .set({ endedAt: now })
        .where(and(eq(agentSessions.agent, agent.id), ne(agentSessions.hash, sessionHash), isNull(agentSessions.endedAt)));
      return { status: 'rotated', agent: agent.id, account: agent.account };
    });
  }

  return guarded({ createAgent, findByToken, findAgent, openSession, findSession, rotateToken });
}
