// The agent mailbox as the rest of the API sees it: messages between agents
// of one account, delivered at least once (a message stays listed until its
// recipient acknowledges it). The REST routes and the MCP mailbox tools
// both call this interface; failures are ApiError (NOT_FOUND for an unknown
// recipient or message, INVALID_INPUT for a bad body, …). A sender's
// Idempotency-Key is kept on the message itself, for as long as the message.
import { type MailboxRow, type Store, valueProblem } from '../../engine/index.ts';
import { ApiError, type FieldError } from '../problem.ts';
import { fingerprintOf, IDEMPOTENCY_FIELD, IDEMPOTENCY_HEADER } from '../services/idempotency.ts';
import { readPage } from '../services/pages.ts';

export interface MailboxMessage {
  id: string;
  /** The sending agent's id. */
  from: string;
  /** The receiving agent's id. */
  to: string;
  body: unknown;
  createdAt: string;
  ackedAt: string | null;
}

export interface MailboxAgent {
  agentId: string;
  account: string;
}

export interface Mailbox {
  send(from: MailboxAgent, input: { to: string; body: unknown; idempotencyKey?: string }): Promise<MailboxMessage>;
  list(agent: MailboxAgent, page: { cursor?: string; limit?: number }): Promise<{ items: MailboxMessage[]; nextCursor: string | null }>;
  ack(agent: MailboxAgent, messageId: string): Promise<MailboxMessage>;
}

export interface CreateMailboxOptions {
  store: Pick<Store, 'mailbox' | 'agents'>;
  now?: () => Date;
}

/** The largest message body, as compact JSON. */
export const MAX_MESSAGE_BYTES = 64 * 1024;
const AGENT_ID = /^agt_[0-9a-f]{24}$/;

function view(row: MailboxRow): MailboxMessage {
  return { id: row.id, from: row.from, to: row.to, body: row.body, createdAt: row.createdAt.toISOString(), ackedAt: row.ackedAt?.toISOString() ?? null };
}

/** Why `body` cannot be a message body, or undefined. */
export function bodyProblem(body: unknown): string | undefined {
  if (body === undefined) return 'is required (any JSON value)';
  // What Postgres cannot store (a NUL, a lone surrogate) or nesting past the variables' limit.
  const limit = valueProblem(body);
  if (limit !== undefined) return limit.path === '' ? limit.message : `${limit.path}: ${limit.message}`;
  const text = JSON.stringify(body);
  if (text === undefined) return 'must be a JSON value';
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > MAX_MESSAGE_BYTES) return `must be at most ${MAX_MESSAGE_BYTES} bytes as JSON, not ${bytes}`;
  return undefined;
}

const noSuchAgent = () => new ApiError('NOT_FOUND', 'No live agent with this id on your account; messages go only to agents of the same account.');

export function createMailbox(options: CreateMailboxOptions): Mailbox {
  const { mailbox, agents } = options.store;
  const now = options.now ?? (() => new Date());

  return {
    async send(from, input) {
      const errors: FieldError[] = [];
      if (typeof input?.to !== 'string' || input.to.length === 0) errors.push({ field: 'to', message: 'must be the id of an agent (agt_…)' });
      const problem = bodyProblem(input?.body);
      if (problem !== undefined) errors.push({ field: 'body', message: problem });
      if (errors.length > 0)
        throw new ApiError('INVALID_INPUT', `The message is not valid: ${errors.map((e) => `${e.field} ${e.message}`).join('; ')}.`, { errors });
      if (!AGENT_ID.test(input.to) || (await agents.findAgent(from.account, input.to)) === null) throw noSuchAgent();
      // The body as JSON stores it: what a retry is compared against.
      const body: unknown = JSON.parse(JSON.stringify(input.body));
      const fingerprint = input.idempotencyKey === undefined ? undefined : fingerprintOf([input.to, body]);
      const { created, row } = await mailbox.insert({
        account: from.account,
        from: from.agentId,
        to: input.to,
        body,
        idempotencyKey: input.idempotencyKey,
        fingerprint,
      });
      if (!created && row.fingerprint !== fingerprint) {
        throw new ApiError(
          'IDEMPOTENCY_KEY_REUSED',
          `This agent sent another message (another recipient or body) under this ${IDEMPOTENCY_HEADER}. Send a new key for a new message; the same message with the same key answers the first one. Nothing was sent.`,
          { errors: [{ field: IDEMPOTENCY_FIELD, message: 'already used for a different message' }] },
        );
      }
      return view(row);
    },

    async list(agent, page) {
      const result = await readPage(() => mailbox.list(agent.account, agent.agentId, page));
      return { items: result.items.map(view), nextCursor: result.nextCursor };
    },

    async ack(agent, messageId) {
      const row = await mailbox.ack(agent.account, agent.agentId, String(messageId), now());
      if (row === null)
        throw new ApiError('NOT_FOUND', 'No message with this id in your mailbox.', { errors: [{ field: 'id', message: 'not a message sent to this agent' }] });
      return view(row);
    },
  };
}
