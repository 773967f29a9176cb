// Webhook endpoints over MCP: create one (its signing secret is in this
// answer only), list them, delete one — the account's, as on REST
// (api/webhooks/endpoints.ts, the service the /api/v1/webhooks routes use).
// Changing, rotating, testing and the delivery log stay REST-only.
import { z } from 'zod';
import { batchingInputSchema, descriptionSchema, endpointSchema, eventsSchema, withSecret } from '../../routes/webhooks.ts';
import { endpointUrlSchema } from '../../webhooks/endpoint-url.ts';
import { defineTool } from '../tool.ts';
import { pageArgs, READ_ONLY, WRITES } from './args.ts';

const endpointIdSchema = z
  .string()
  .regex(/^ep_[0-9a-f]{24}$/, 'must be a webhook endpoint id (ep_ and 24 hex digits)')
  .describe('An endpoint id from orca.create_webhook or orca.list_webhooks.');

export const webhookTools = [
  defineTool({
    name: 'orca.create_webhook',
    title: 'Create a webhook endpoint',
    description:
      'Makes Orca POST the account’s events of the given types (e.g. process_instance.completed, incident.created) to a URL, signed the ' +
      'Standard Webhooks way. The answer carries the signing secret (whsec_…) once: keep it to verify deliveries. URLs resolving to ' +
      'loopback, private or link-local addresses are refused (INVALID_INPUT); at most 20 endpoints per account (CONFLICT). Optional batching ' +
      '{maxEvents, maxWaitMs} sends the events as JSON arrays of several per request instead of one each. Free.',
    session: true,
    input: z.object({ url: endpointUrlSchema, events: eventsSchema, description: descriptionSchema.optional(), batching: batchingInputSchema.optional() }),
    output: withSecret,
    annotations: { ...WRITES, idempotentHint: false },
    run: (args, { ctx, session }) => ctx.webhooks.create(session.account, args),
  }),
  defineTool({
    name: 'orca.list_webhooks',
    title: 'List webhook endpoints',
    description: 'Lists the account’s webhook endpoints (URL, event types, enabled or disabled and why), a page at a time. Never their secrets. Free.',
    session: true,
    input: z.object(pageArgs),
    output: z.object({ items: z.array(endpointSchema), nextCursor: z.string().nullable() }),
    annotations: READ_ONLY,
    run: (args, { ctx, session }) => ctx.webhooks.list(session.account, args),
  }),
  defineTool({
    name: 'orca.delete_webhook',
    title: 'Delete a webhook endpoint',
    description: 'Deletes a webhook endpoint of the account and its delivery log; nothing more is sent to it. NOT_FOUND when there is none. Free.',
    session: true,
    input: z.object({ endpointId: endpointIdSchema }),
    output: z.object({ deleted: z.literal(true), endpointId: z.string() }),
    annotations: { ...WRITES, destructiveHint: true, idempotentHint: true },
    run: async (args, { ctx, session }) => {
      await ctx.webhooks.remove(session.account, args.endpointId);
      return { deleted: true as const, endpointId: args.endpointId };
    },
  }),
];
