// The agent mailbox over REST (issue #18; SPEC.md leaves its routes to us):
// an agent sends a message to another agent of its account, lists its own
// (unacknowledged first) and acknowledges them. Delivery is at least once: a
// message stays listed as unacknowledged until its recipient acks it.
// Authenticated by the agent's token as Authorization: Bearer only; an
// account API key or token is refused here (plugins/auth.ts). The rules live
// in api/agents/mailbox.ts, which the MCP mailbox tools call too.
import { z } from 'zod';
import { bodyProblem, MAX_MESSAGE_BYTES } from '../agents/mailbox.ts';
import { route } from '../openapi/route.ts';
import { pageQuery, pageSchema } from '../services/pages.ts';
import type { RegisterRoutes } from './index.ts';

const TAGS = ['mailbox'];

export const agentIdSchema = z
  .string()
  .regex(/^agt_[0-9a-f]{24}$/, 'must be an agent id (agt_ and 24 hex digits)')
  .describe('An agent id, as orca.register returned it.');

export const messageSchema = z.object({
  id: z.string().describe('The message id; acknowledge with POST /api/v1/mailbox/messages/{id}/ack.'),
  from: z.string().describe('The sending agent.'),
  to: z.string().describe('The receiving agent.'),
  body: z.unknown().describe('What the sender sent, as JSON.'),
  createdAt: z.string(),
  ackedAt: z.string().nullable().describe('When the recipient acknowledged it; null until then.'),
});

const sendBody = z.object({
  to: agentIdSchema.describe('The recipient: an agent of the same account (the sender itself included).'),
  body: z
    .unknown()
    .superRefine((value, context) => {
      const problem = bodyProblem(value);
      if (problem !== undefined) context.addIssue({ code: 'custom', message: problem });
    })
    .describe(`Any JSON value, at most ${MAX_MESSAGE_BYTES / 1024} KiB as JSON.`),
});

const messageParams = z.object({ id: z.string().regex(/^[1-9][0-9]{0,18}$/, 'must be a message id (digits)') });

const AUTH_NOTE = " Authenticated with the agent's token as Authorization: Bearer (not an account API key).";

export const register: RegisterRoutes = async (app, ctx) => {
  route(
    app,
    {
      method: 'POST',
      path: '/api/v1/mailbox/messages',
      summary:
        'Send a message to another agent of the same account. With an Idempotency-Key, a retry answers the first message and sends nothing more (the key belongs to the sending agent and lives as long as the message).' +
        AUTH_NOTE,
      tags: TAGS,
      auth: 'agentToken',
      idempotent: true,
      body: sendBody,
      response: { status: 201, schema: messageSchema },
      errors: [400, 401, 404, 409],
    },
    async ({ body, idempotency }, request) => ctx.mailbox.send(request.agent!, { to: body.to, body: body.body, idempotencyKey: idempotency?.key }),
  );

  route(
    app,
    {
      method: 'GET',
      path: '/api/v1/mailbox/messages',
      summary:
        "The calling agent's messages: the unacknowledged ones first, then the acknowledged ones, each in the order they were sent. A message stays among the unacknowledged until it is acknowledged (delivery at least once)." +
        AUTH_NOTE,
      tags: TAGS,
      auth: 'agentToken',
      query: z.object({ ...pageQuery }),
      response: { status: 200, schema: pageSchema(messageSchema) },
      errors: [400, 401],
    },
    async ({ query }, request) => ctx.mailbox.list(request.agent!, { limit: query.limit, cursor: query.cursor }),
  );

  route(
    app,
    {
      method: 'POST',
      path: '/api/v1/mailbox/messages/:id/ack',
      summary:
        'Acknowledge a message sent to the calling agent; it is then listed after the unacknowledged ones. Acknowledging twice answers the first acknowledgement.' +
        AUTH_NOTE,
      tags: TAGS,
      auth: 'agentToken',
      params: messageParams,
      response: { status: 200, schema: messageSchema },
      errors: [400, 401, 404],
    },
    async ({ params }, request) => ctx.mailbox.ack(request.agent!, params.id),
  );
};
