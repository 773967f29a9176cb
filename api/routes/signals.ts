// Signals (extension, docs/signals.md): POST /api/v1/signals broadcasts a
// signal with Zeebe's semantics. SPEC.md has no such route; a client that
// never calls it sees signal catch events wait for good.
import { route } from '../openapi/route.ts';
import { keyedCommand, scopedKey } from '../services/idempotency.ts';
import { broadcastedSignalSchema, broadcastSignal, broadcastSignalBody } from '../services/signals.ts';
import type { RegisterRoutes } from './index.ts';

export const register: RegisterRoutes = async (app, ctx) => {
  route(
    app,
    {
      method: 'POST',
      path: '/api/v1/signals',
      summary:
        'Extension: broadcast a signal. It reaches every waiting signal subscription of the account whose signal name matches — signal catch ' +
        'events, signal boundary events, event subprocesses with a signal start, event-based gateway branches — on every partition, and starts ' +
        'an instance of the latest version of each process with a signal start event of that name (1 credit each). A signal is not buffered ' +
        'and has no correlation key. 201 with the signal key.',
      tags: ['signals'],
      auth: 'apiKey',
      extension: true,
      idempotent: true,
      body: broadcastSignalBody,
      response: { status: 201, schema: broadcastedSignalSchema, description: 'Broadcast.' },
      errors: [400, 401, 402, 409, 429, 503],
    },
    async ({ body, idempotency }, request, reply) =>
      reply.code(201).send(await broadcastSignal(ctx, request.account, body, keyedCommand(idempotency, scopedKey.signal))),
  );
};
