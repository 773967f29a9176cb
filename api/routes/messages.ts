// Messages (extension, docs/messages.md): POST /api/v1/messages publishes a
// message with Zeebe's semantics. SPEC.md has no such route; a client that
// never calls it sees message waits behave exactly as documented (jobs).
import { route } from '../openapi/route.ts';
import { keyedCommand, scopedKey } from '../services/idempotency.ts';
import { publishedMessageSchema, publishMessage, publishMessageBody } from '../services/messages.ts';
import type { RegisterRoutes } from './index.ts';

export const register: RegisterRoutes = async (app, ctx) => {
  route(
    app,
    {
      method: 'POST',
      path: '/api/v1/messages',
      summary:
        'Extension: publish a message. It correlates to a waiting subscription (receive task, message catch event, message boundary event, ' +
        'message event subprocess start, event-based gateway branch) whose message name matches and whose correlation key, evaluated when the ' +
        'wait began, equals it — one instance of each process (BPMN process id), at most once per instance, as Zeebe 8 does; a job-based wait ' +
        'it completes has its job withdrawn. It starts an instance of the latest version of each other process with a message start event of ' +
        'that name (1 credit each). With a timeToLive it stays buffered for subscriptions opened later. 201 with the message key.',
      tags: ['messages'],
      auth: 'apiKey',
      extension: true,
      idempotent: true,
      body: publishMessageBody,
      response: { status: 201, schema: publishedMessageSchema, description: 'Published.' },
      errors: [400, 401, 402, 409, 429, 503],
    },
    async ({ body, idempotency }, request, reply) =>
      reply.code(201).send(await publishMessage(ctx, request.account, body, keyedCommand(idempotency, scopedKey.message))),
  );
};
