// Webhook endpoints of an account (issue #19; SPEC.md names webhooks but
// not their routes): create one with the events it wants and get its
// signing secret once; list, read, change, disable and enable, delete;
// rotate the secret; send a test event; read its delivery log and send a
// delivery again. Authenticated by the account's API key like the rest of
// /api/v1. The rules live in api/webhooks/endpoints.ts; docs/webhooks.md
// describes the events, their payloads and how to verify a delivery.
import { z } from 'zod';
import { WEBHOOK_EVENT_TYPES } from '../../engine/index.ts';
import { route } from '../openapi/route.ts';
import { pageQuery, pageSchema } from '../services/pages.ts';
import { endpointUrlSchema } from '../webhooks/endpoint-url.ts';
import { BATCHING_LIMITS } from '../webhooks/endpoints.ts';
import type { RegisterRoutes } from './index.ts';

const TAGS = ['webhooks'];

export const MAX_DESCRIPTION_LENGTH = 500;

const eventTypeSchema = z
  .string()
  .superRefine((type, context) => {
    if (!(WEBHOOK_EVENT_TYPES as readonly string[]).includes(type))
      context.addIssue({ code: 'custom', message: `unknown event type '${type.slice(0, 100)}'; one of ${WEBHOOK_EVENT_TYPES.join(', ')}` });
  })
  .describe(`An event type: ${WEBHOOK_EVENT_TYPES.join(', ')}.`);

export const eventsSchema = z
  .array(eventTypeSchema)
  .min(1, 'must name at least one event type')
  .max(100, 'must name at most 100 event types')
  .describe('The event types the endpoint is sent (a repeated one counts once).');

export const descriptionSchema = z.string().max(MAX_DESCRIPTION_LENGTH, `must be at most ${MAX_DESCRIPTION_LENGTH} characters`).describe('A note for people.');

const BATCHING_TEXT =
  'Batched delivery: null (the default) sends one event per request. An object sends the events as a JSON array of up to maxEvents per request, ' +
  'a request leaving when maxEvents are waiting or the first waiting one has waited maxWaitMs. Each element is the event as it is sent alone with ' +
  'its id first: [{"id", "type", "timestamp", "data"}, …]; the webhook-id header is then a batch id (msg_b…, the same when the same events are ' +
  "sent again), signed over the whole body; deduplicate on each element's id. Each event keeps its own delivery in the log; a retry resends only " +
  'the failed events; a test event or a redelivery arrives as an array of one (docs/webhooks.md).';

const batchingLimit = (field: keyof typeof BATCHING_LIMITS, what: string) => {
  const { min, max, default: fallback } = BATCHING_LIMITS[field];
  const message = `must be an integer from ${min} to ${max}`;
  return z
    .number({ error: message })
    .int(message)
    .min(min, message)
    .max(max, message)
    .default(fallback)
    .describe(`${what} (${min} to ${max}; default ${fallback}).`);
};

/** What a create or update takes: an object (absent fields defaulted) turns batching on, null turns it off. */
export const batchingInputSchema = z
  .object(
    {
      maxEvents: batchingLimit('maxEvents', 'The most events one request carries'),
      maxWaitMs: batchingLimit('maxWaitMs', 'How long, in milliseconds, the first waiting event may wait for others before its request leaves'),
    },
    { error: 'must be an object {maxEvents?, maxWaitMs?} or null' },
  )
  .nullable()
  .describe(BATCHING_TEXT);

export const endpointSchema = z.object({
  id: z.string().describe('The endpoint id (ep_ and 24 hex digits).'),
  url: z.string(),
  description: z.string(),
  events: z.array(z.string()),
  status: z.enum(['enabled', 'disabled']).describe('Only enabled endpoints are sent events; events that happen while one is disabled are not kept for it.'),
  disabledReason: z
    .string()
    .nullable()
    .describe('Why the endpoint is disabled (by its owner, a 410 Gone answer, days of failed deliveries); null while enabled.'),
  failingSince: z.string().nullable().describe('When its current run of failed deliveries began; null while its last attempt succeeded.'),
  previousSecretExpiresAt: z
    .string()
    .nullable()
    .describe('After a rotation, until when the previous secret still signs beside the current one (two signatures per delivery); null otherwise.'),
  batching: z.object({ maxEvents: z.number().int(), maxWaitMs: z.number().int() }).nullable().describe(BATCHING_TEXT),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const withSecret = endpointSchema.extend({
  secret: z.string().describe('The signing secret (whsec_…), shown only in this answer. Verify deliveries with it (Standard Webhooks).'),
});

const deliverySchema = z.object({
  id: z
    .string()
    .describe(
      "The delivery id: digits for a delivery with a row of its own; for an engine event delivered at its first attempt, b and its batch's partition, epoch, sequence and the event's index, joined by '-' (b3-17-1042-0).",
    ),
  endpointId: z.string(),
  eventId: z
    .string()
    .describe(
      "The event's id, the same on every attempt and for every endpoint the event went to: the webhook-id header, or to a batched endpoint the element's id.",
    ),
  type: z.string(),
  payload: z.object({ type: z.string(), timestamp: z.string(), data: z.record(z.string(), z.unknown()) }).describe('The body sent.'),
  status: z.enum(['pending', 'delivered', 'failed']),
  attempts: z.number().int(),
  nextAttemptAt: z.string().nullable().describe('When the next attempt is due; null unless pending.'),
  lastStatusCode: z.number().int().nullable().describe("The receiver's last status code; null when it did not answer (see lastError)."),
  lastError: z.string().nullable(),
  log: z
    .array(z.object({ at: z.string(), statusCode: z.number().int().optional(), durationMs: z.number(), error: z.string().optional() }))
    .describe('Every attempt, oldest first.'),
  createdAt: z.string(),
  deliveredAt: z.string().nullable(),
});

const idParams = z.object({ id: z.string().regex(/^ep_[0-9a-f]{24}$/, 'must be a webhook endpoint id (ep_ and 24 hex digits)') });
const deliveryParams = idParams.extend({
  deliveryId: z
    .string()
    .regex(/^([1-9][0-9]{0,18}|b[0-9]{1,10}-[0-9]{1,16}-[0-9]{1,16}-[0-9]{1,6})$/, "must be a delivery id (digits, or b and four numbers joined by '-')"),
});

const createBody = z.object({
  url: endpointUrlSchema,
  events: eventsSchema,
  description: descriptionSchema.optional(),
  batching: batchingInputSchema.optional(),
});
const updateBody = z
  .object({
    url: endpointUrlSchema.optional(),
    events: eventsSchema.optional(),
    description: descriptionSchema.optional(),
    batching: batchingInputSchema.optional().describe(`${BATCHING_TEXT} Absent: left as it is.`),
  })
  .refine(
    (body) => body.url !== undefined || body.events !== undefined || body.description !== undefined || body.batching !== undefined,
    'must change url, events, description or batching',
  );

export const register: RegisterRoutes = async (app, ctx) => {
  const hooks = ctx.webhooks;

  route(
    app,
    {
      method: 'POST',
      path: '/api/v1/webhooks',
      summary:
        'Create a webhook endpoint: the URL deliveries are POSTed to, the event types it wants and, optionally, batched delivery (several events per request). The answer carries its signing secret, shown only here (and on rotation). A URL resolving to a loopback, private, link-local or other reserved address is refused. An account has at most 20 endpoints (409 beyond).',
      tags: TAGS,
      auth: 'apiKey',
      body: createBody,
      response: { status: 201, schema: withSecret },
      errors: [400, 401, 409],
    },
    async ({ body }, request) => hooks.create(request.account, body),
  );

  route(
    app,
    {
      method: 'GET',
      path: '/api/v1/webhooks',
      summary: "The account's webhook endpoints, oldest first (without their secrets).",
      tags: TAGS,
      auth: 'apiKey',
      query: z.object({ ...pageQuery }),
      response: { status: 200, schema: pageSchema(endpointSchema) },
      errors: [400, 401],
    },
    async ({ query }, request) => hooks.list(request.account, { limit: query.limit, cursor: query.cursor }),
  );

  route(
    app,
    {
      method: 'GET',
      path: '/api/v1/webhooks/:id',
      summary: 'One webhook endpoint (without its secret).',
      tags: TAGS,
      auth: 'apiKey',
      params: idParams,
      response: { status: 200, schema: endpointSchema },
      errors: [400, 401, 404],
    },
    async ({ params }, request) => hooks.get(request.account, params.id),
  );

  route(
    app,
    {
      method: 'PATCH',
      path: '/api/v1/webhooks/:id',
      summary:
        'Change the URL, the event types, the description or the batching of an endpoint (the fields given; batching null turns batched delivery off). A new URL is checked as on creation.',
      tags: TAGS,
      auth: 'apiKey',
      params: idParams,
      body: updateBody,
      response: { status: 200, schema: endpointSchema },
      errors: [400, 401, 404],
    },
    async ({ params, body }, request) => hooks.update(request.account, params.id, body),
  );

  route(
    app,
    {
      method: 'DELETE',
      path: '/api/v1/webhooks/:id',
      summary: 'Delete an endpoint and its delivery log; nothing more is sent to it.',
      tags: TAGS,
      auth: 'apiKey',
      params: idParams,
      response: { status: 204, description: 'Deleted.' },
      errors: [400, 401, 404],
    },
    async ({ params }, request) => hooks.remove(request.account, params.id),
  );

  route(
    app,
    {
      method: 'POST',
      path: '/api/v1/webhooks/:id/disable',
      summary:
        'Disable an endpoint: it is sent nothing until enabled again, and its pending deliveries are given up (failed; send one again after enabling). Its disabledReason says it was disabled through the API.',
      tags: TAGS,
      auth: 'apiKey',
      params: idParams,
      response: { status: 200, schema: endpointSchema },
      errors: [400, 401, 404],
    },
    async ({ params }, request) => hooks.disable(request.account, params.id),
  );

  route(
    app,
    {
      method: 'POST',
      path: '/api/v1/webhooks/:id/enable',
      summary: 'Enable an endpoint again (whoever disabled it, and why): it is sent the events that happen from now on.',
      tags: TAGS,
      auth: 'apiKey',
      params: idParams,
      response: { status: 200, schema: endpointSchema },
      errors: [400, 401, 404],
    },
    async ({ params }, request) => hooks.enable(request.account, params.id),
  );

  route(
    app,
    {
      method: 'POST',
      path: '/api/v1/webhooks/:id/rotate-secret',
      summary:
        'Give the endpoint a new signing secret, shown only in this answer. The previous one keeps signing beside it for 24 hours (each delivery carries both signatures), so the receiver can switch without a gap.',
      tags: TAGS,
      auth: 'apiKey',
      params: idParams,
      response: { status: 200, schema: withSecret },
      errors: [400, 401, 404],
    },
    async ({ params }, request) => hooks.rotateSecret(request.account, params.id),
  );

  route(
    app,
    {
      method: 'POST',
      path: '/api/v1/webhooks/:id/test',
      summary:
        'Send the endpoint a `webhook.test` event (whatever it is subscribed to); the answer is its delivery, to follow in the delivery log. 409 while the endpoint is disabled.',
      tags: TAGS,
      auth: 'apiKey',
      params: idParams,
      response: { status: 202, schema: deliverySchema },
      errors: [400, 401, 404, 409],
    },
    async ({ params }, request) => hooks.sendTest(request.account, params.id),
  );

  route(
    app,
    {
      method: 'GET',
      path: '/api/v1/webhooks/:id/deliveries',
      summary:
        "The endpoint's deliveries, newest first (by when the event was written): every delivery with a row of its own and every engine event delivered at its first attempt, with status, attempts, the last response code or error, and every attempt with its time and duration.",
      tags: TAGS,
      auth: 'apiKey',
      params: idParams,
      query: z.object({ ...pageQuery }),
      response: { status: 200, schema: pageSchema(deliverySchema) },
      errors: [400, 401, 404],
    },
    async ({ params, query }, request) => hooks.deliveries(request.account, params.id, { limit: query.limit, cursor: query.cursor }),
  );

  route(
    app,
    {
      method: 'GET',
      path: '/api/v1/webhooks/:id/deliveries/:deliveryId',
      summary:
        'One delivery of the endpoint, as the delivery log lists it. The id of an engine event delivered at its first attempt (b…) keeps naming it after it was sent again: it then answers with the delivery it became.',
      tags: TAGS,
      auth: 'apiKey',
      params: deliveryParams,
      response: { status: 200, schema: deliverySchema },
      errors: [400, 401, 404],
    },
    async ({ params }, request) => hooks.delivery(request.account, params.id, params.deliveryId),
  );

  route(
    app,
    {
      method: 'POST',
      path: '/api/v1/webhooks/:id/deliveries/:deliveryId/redeliver',
      summary:
        'Send a delivery again, with the same webhook-id: it becomes pending and due now (one more attempt, then retries as its schedule stands). An engine event delivered at its first attempt (id b…) becomes a delivery with an id of its own (digits), its first attempt in its log; the answer is that delivery. 409 while the endpoint is disabled or while the delivery is being sent.',
      tags: TAGS,
      auth: 'apiKey',
      params: deliveryParams,
      response: { status: 202, schema: deliverySchema },
      errors: [400, 401, 404, 409],
    },
    async ({ params }, request) => hooks.redeliver(request.account, params.id, params.deliveryId),
  );
};
