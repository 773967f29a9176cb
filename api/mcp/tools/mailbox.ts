// The agent mailbox over MCP: send to another agent of the same account,
// list what arrived (unacknowledged first), acknowledge. Delivery is at
// least once: a message stays listed until acknowledged. The mailbox
// service (api/agents/mailbox.ts) is the one the REST routes use.
import { z } from 'zod';
import { idempotencyKeySchema } from './instances.ts';
import { defineTool } from '../tool.ts';
import { pageArgs, READ_ONLY, WRITES } from './args.ts';

const messageSchema = z.object({
  id: z.string(),
  from: z.string().describe('The sending agent.'),
  to: z.string().describe('The receiving agent.'),
  body: z.unknown(),
  createdAt: z.string(),
  ackedAt: z.string().nullable().describe('When the recipient acknowledged it; null until then.'),
});

export const mailboxTools = [
  defineTool({
    name: 'orca.send_message',
    title: 'Send a message to another agent',
    description:
      'Sends a JSON message to another agent of the same account (by agentId). Pass idempotencyKey to make a retry safe: the same key sends ' +
      'once. NOT_FOUND when no such agent is live. Free.',
    session: true,
    input: z.object({
      to: z.string().min(1).max(100).describe('The agentId of the recipient.'),
      body: z.unknown().describe('Any JSON value, at most 64 KiB as JSON.'),
      idempotencyKey: idempotencyKeySchema.optional(),
    }),
    output: messageSchema,
    annotations: { ...WRITES, idempotentHint: false },
    run: (args, { ctx, session }) => ctx.mailbox.send(session, { to: args.to, body: args.body, idempotencyKey: args.idempotencyKey }),
  }),
  defineTool({
    name: 'orca.list_messages',
    title: "List this agent's messages",
    description:
      'Lists the messages sent to this agent, unacknowledged first, a page at a time. A message stays listed until orca.ack_message, so ' +
      'acknowledge each one once handled. Free.',
    session: true,
    input: z.object(pageArgs),
    output: z.object({ items: z.array(messageSchema), nextCursor: z.string().nullable() }),
    annotations: READ_ONLY,
    run: (args, { ctx, session }) => ctx.mailbox.list(session, args),
  }),
  defineTool({
    name: 'orca.ack_message',
    title: 'Acknowledge a message',
    description: 'Acknowledges a message sent to this agent, once handled; it then lists after the unacknowledged ones. Idempotent. Free.',
    session: true,
    input: z.object({ messageId: z.string().min(1).max(100) }),
    output: messageSchema,
    annotations: { ...WRITES, idempotentHint: true },
    run: (args, { ctx, session }) => ctx.mailbox.ack(session, args.messageId),
  }),
];
