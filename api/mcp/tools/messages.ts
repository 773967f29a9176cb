// Messages (extension, docs/messages.md): an agent publishes a message with
// Zeebe's semantics, as POST /api/v1/messages does, through the same service.
import { publishedMessageSchema, publishMessage, publishMessageBody } from '../../services/messages.ts';
import { defineTool } from '../tool.ts';
import { WRITES } from './args.ts';

export const messageTools = [
  defineTool({
    name: 'orca.publish_message',
    title: 'Publish a message',
    description:
      'Extension: publishes a message. It reaches every waiting receive task, message catch event, message boundary event and message ' +
      'event subprocess whose message name matches and whose correlation key (evaluated when the wait began) equals correlationKey, at most ' +
      'once per instance, and starts an instance of each process whose latest version has a message start event of that name (1 credit each). ' +
      'With timeToLive (ms) it stays buffered for waits opened later; messageId makes a second publish while it is buffered a CONFLICT.',
    session: true,
    input: publishMessageBody,
    output: publishedMessageSchema,
    annotations: { ...WRITES, idempotentHint: false },
    run: async (args, { ctx, session }) => publishMessage(ctx, session.account, args),
  }),
];
