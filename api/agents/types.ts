// The agent identity store as the rest of the API sees it (issue #18): AI
// agents registered on an account with an API key, their tokens (shown
// once, stored hashed) and the sessions opened with them. The MCP tools
// (orca.register / orca.connect / orca.rotate_token) and the mailbox's
// Bearer auth both go through this interface; sessions live in Postgres so
// any API pod serves any call and a restart keeps them.

export interface AgentSession {
  sessionId: string;
  agentId: string;
  account: string;
}

export interface AgentService {
  /**
   * Creates an agent on the account of `apiKey` (an account API key, not a bearer token).
   * Returns the token once (>= 256 random bits, stored hashed). Throws ApiError
   * UNAUTHENTICATED for an unknown/retired key, INVALID_INPUT for a bad name,
   * RATE_LIMITED when the per-account/per-address limit is hit.
   */
  register(input: { apiKey: string; name: string; address?: string }): Promise<{ agentId: string; token: string }>;
  /**
   * Opens a session (row in Postgres) for a live agent token. Throws ApiError UNAUTHENTICATED
   * for an unknown or retired token (also an account API key passed as token).
   */
  connect(input: { token: string; address?: string }): Promise<AgentSession>;
  /**
   * Resolves a live session. Throws AgentSessionError('SESSION_ENDED') for an ended session
   * (rotated away / agent removed) and AgentSessionError('SESSION_NOT_FOUND') for an unknown id,
   * including anything shaped like an account API key or token (SPEC Authentication rule 1).
   */
  session(sessionId: string): Promise<AgentSession>;
  /**
   * New token returned once; old token retired at once; every other session of the agent ended;
   * the calling session stays live. One transaction (two racing rotations: one wins, the other
   * gets SESSION_ENDED or a clean retry — never both tokens live).
   */
  rotateToken(sessionId: string): Promise<{ token: string }>;
  /**
   * For the mailbox's Bearer auth: the agent behind a live token, or null. Cached no longer than
   * the identity auth cache, and a rotation is seen at once on every pod (the notices mechanism
   * the identity service uses for key retirement).
   */
  authenticateToken(token: string): Promise<{ agentId: string; account: string } | null>;
}

export class AgentSessionError extends Error {
  constructor(
    readonly code: 'SESSION_ENDED' | 'SESSION_NOT_FOUND',
    message: string,
  ) {
    super(message);
    this.name = 'AgentSessionError';
  }
}
