// Messages and signals (extensions, docs/messages.md, docs/signals.md): an
// agent publishes a message or broadcasts a signal with Zeebe's semantics,
// as POST /api/v1/messages and POST /api/v1/signals do, through the same
// services.
import { idempotencyOf, keyedCommand, scopedKey } from '../../services/idempotency.ts';
import { publishedMessageSchema, publishMessage, publishMessageBody } from '../../services/messages.ts';
import { broadcastedSignalSchema, broadcastSignal, broadcastSignalBody } from '../../services/signals.ts';
import { defineTool } from '../tool.ts';
import { WRITES } from './args.ts';
import { idempotencyKeySchema } from './instances.ts';

export const messageTools = [
  defineTool({
    name: 'orca.publish_message',
    title: 'Publish a message',
    description:
      'Extension: publishes a message. It reaches a waiting receive task, message catch event, message boundary event or message ' +
      'event subprocess whose message name matches and whose correlation key (evaluated when the wait began) equals correlationKey: one ' +
      'instance of each process, at most once per instance (Zeebe 8), and starts an instance of each other process whose latest version has ' +
      'a message start event of that name (1 credit each). ' +
      'With timeToLive (ms) it stays buffered for waits opened later; messageId makes a second publish while it is buffered a CONFLICT. ' +
      'Pass idempotencyKey to make a retry safe after a timeout (the same key answers the first publish).',
    session: true,
    input: publishMessageBody.extend({ idempotencyKey: idempotencyKeySchema.optional() }),
    output: publishedMessageSchema,
    annotations: { ...WRITES, idempotentHint: false },
    run: async (args, { ctx, session }) => {
      const { idempotencyKey, ...body } = args;
      // Fingerprinted as the REST publish is: one key means one publish, whichever interface sent it.
      const idempotency =
        idempotencyKey === undefined ? undefined : idempotencyOf(idempotencyKey, 'POST', '/api/v1/messages', { params: undefined, query: undefined, body });
      return publishMessage(ctx, session.account, body, keyedCommand(idempotency, scopedKey.message));
    },
  }),
  defineTool({
    name: 'orca.broadcast_signal',
    title: 'Broadcast a signal',
    description:
      'Extension: broadcasts a signal. It reaches every waiting signal catch event, signal boundary event, event subprocess with a signal ' +
      'start and event-based gateway signal branch of the account whose signal name matches, and starts an instance of each process whose ' +
      'latest version has a signal start event of that name (1 credit each). Not buffered: waits opened later do not get it. ' +
      'Pass idempotencyKey to make a retry safe after a timeout; too many broadcasts at once are RATE_LIMITED.',
    session: true,
    input: broadcastSignalBody.extend({ idempotencyKey: idempotencyKeySchema.optional() }),
    output: broadcastedSignalSchema,
    annotations: { ...WRITES, idempotentHint: false },
    run: async (args, { ctx, session }) => {
      const body = { name: args.name, variables: args.variables };
      // Fingerprinted as the REST broadcast is: one key means one broadcast, whichever interface sent it.
      const idempotency =
        args.idempotencyKey === undefined
          ? undefined
          : idempotencyOf(args.idempotencyKey, 'POST', '/api/v1/signals', { params: undefined, query: undefined, body });
      return broadcastSignal(ctx, session.account, body, keyedCommand(idempotency, scopedKey.signal));
    },
  }),
];
