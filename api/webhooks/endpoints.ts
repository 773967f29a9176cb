// Webhook endpoints as the API offers them (issue #19): the rules behind
// /api/v1/webhooks and the MCP webhook tools. It checks what the request
// schemas cannot (where a URL resolves, the per-account cap, the endpoint's
// state), seals signing secrets before they are stored and hands a secret
// out only on creation and rotation, and fills in the defaults of batched
// delivery. Failures are ApiError; another account's endpoint is NOT_FOUND
// like a missing one.
import { randomBytes } from 'node:crypto';
import { webhookEventId, type Page, type PageRequest, type Store, type WebhookDeliveryRow, type WebhookEndpointRow } from '../../engine/index.ts';
import { newId } from '../identity/secrets.ts';
import { ApiError } from '../problem.ts';
import { readPage } from '../services/pages.ts';
import { forbiddenUrl } from './endpoint-url.ts';
import { newSigningSecret, secretSealer } from './signing-secret.ts';

/** Batched delivery: up to maxEvents events per request, the first of them waiting at most maxWaitMs. */
export interface EndpointBatching {
  maxEvents: number;
  maxWaitMs: number;
}

/**
 * What an endpoint's batching may be, and what an absent field becomes:
 * one set of numbers for the request schemas (REST, MCP) and the
 * dispatcher. The caps bound a request's body and an event's delay
 * whatever an endpoint asks for.
 */
export const BATCHING_LIMITS = {
  maxEvents: { min: 1, max: 1000, default: 100 },
  maxWaitMs: { min: 0, max: 10_000, default: 0 },
} as const;

export interface WebhookEndpoint {
  id: string;
  url: string;
  description: string;
  events: string[];
  status: 'enabled' | 'disabled';
  /** Why it is disabled (by its owner, a 410, days of failures); null while enabled. */
  disabledReason: string | null;
  /** When its current run of failed deliveries began; null while its last attempt succeeded. */
  failingSince: string | null;
  /** Until when the secret before the last rotation still signs beside the current one; null when none does. */
  previousSecretExpiresAt: string | null;
  /** Batched delivery (docs/webhooks.md); null: one event per request. */
  batching: EndpointBatching | null;
  createdAt: string;
  updatedAt: string;
}

export interface WebhookDelivery {
  id: string;
  endpointId: string;
  /** The `webhook-id` header (to a batched endpoint, the element's `id`): the same on every attempt and every endpoint the event went to. */
  eventId: string;
  type: string;
  payload: { type: string; timestamp: string; data: Record<string, unknown> };
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  /** When the next attempt is due; null unless pending. */
  nextAttemptAt: string | null;
  lastStatusCode: number | null;
  lastError: string | null;
  /** Every attempt, oldest first. */
  log: { at: string; statusCode?: number; durationMs: number; error?: string }[];
  createdAt: string;
  deliveredAt: string | null;
}

export interface NewEndpointInput {
  url: string;
  events: string[];
  description?: string;
  /** An object turns batched delivery on (absent fields take BATCHING_LIMITS' defaults); null turns it off. On update, absent leaves it. */
  batching?: Partial<EndpointBatching> | null;
}

export interface WebhookEndpoints {
  /** The endpoint and its signing secret, shown only here and on rotation. */
  create(account: string, input: NewEndpointInput): Promise<WebhookEndpoint & { secret: string }>;
  list(account: string, page: PageRequest): Promise<Page<WebhookEndpoint>>;
  get(account: string, id: string): Promise<WebhookEndpoint>;
  update(account: string, id: string, change: Partial<NewEndpointInput>): Promise<WebhookEndpoint>;
  disable(account: string, id: string): Promise<WebhookEndpoint>;
  enable(account: string, id: string): Promise<WebhookEndpoint>;
  remove(account: string, id: string): Promise<void>;
  /** A new signing secret (returned once); the previous one signs beside it for ROTATION_GRACE_MS. */
  rotateSecret(account: string, id: string): Promise<WebhookEndpoint & { secret: string }>;
  /** Writes a `webhook.test` event to this endpoint alone, subscribed to it or not. */
  sendTest(account: string, id: string): Promise<WebhookDelivery>;
  deliveries(account: string, id: string, page: PageRequest): Promise<Page<WebhookDelivery>>;
  /** One delivery by id (a delivery row's digits or a batch entry's b…). */
  delivery(account: string, id: string, deliveryId: string): Promise<WebhookDelivery>;
  redeliver(account: string, id: string, deliveryId: string): Promise<WebhookDelivery>;
}

export interface CreateWebhookEndpointsOptions {
  store: Pick<Store, 'webhooks'>;
  /** config.webhooks: the key sealing stored secrets and whether private networks may be reached. */
  config: { secretKey?: string; allowPrivateNetworks: boolean };
  /** Most endpoints an account may have (default MAX_ENDPOINTS). */
  maxEndpoints?: number;
  now?: () => Date;
}

export const MAX_ENDPOINTS = 20;
/** How long the secret before a rotation keeps signing beside the new one. */
export const ROTATION_GRACE_MS = 24 * 60 * 60 * 1000;
const DISABLED_BY_OWNER = 'Disabled through the API.';

const iso = (at: Date | null) => at?.toISOString() ?? null;

function endpointView(row: WebhookEndpointRow, now: Date): WebhookEndpoint {
  const previousLive = row.previousSecret !== null && row.previousSecretExpiresAt !== null && row.previousSecretExpiresAt > now;
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    events: row.events,
    status: row.status === 'disabled' ? 'disabled' : 'enabled',
    disabledReason: row.status === 'disabled' ? (row.disabledReason ?? DISABLED_BY_OWNER) : null,
    failingSince: iso(row.failingSince),
    previousSecretExpiresAt: previousLive ? iso(row.previousSecretExpiresAt) : null,
    batching: row.batching === null ? null : { maxEvents: row.batching.maxEvents, maxWaitMs: row.batching.maxWaitMs },
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export function deliveryView(row: WebhookDeliveryRow): WebhookDelivery {
  return {
    id: row.id,
    endpointId: row.endpointId,
    eventId: row.eventId,
    type: row.type,
    payload: row.payload,
    status: row.status as WebhookDelivery['status'],
    attempts: row.attempts,
    nextAttemptAt: row.status === 'pending' ? row.nextAttemptAt.toISOString() : null,
    lastStatusCode: row.lastStatusCode,
    lastError: row.lastError,
    log: row.log,
    createdAt: row.createdAt.toISOString(),
    deliveredAt: iso(row.deliveredAt),
  };
}

/**
 * The batching to store: given fields kept, absent ones defaulted. The
 * request schemas hold the limits; this holds them again for any other
 * caller, since the dispatcher trusts what is stored.
 */
export function batchingOf(input: Partial<EndpointBatching> | null): EndpointBatching | null {
  if (input === null) return null;
  const batching = {
    maxEvents: input.maxEvents ?? BATCHING_LIMITS.maxEvents.default,
    maxWaitMs: input.maxWaitMs ?? BATCHING_LIMITS.maxWaitMs.default,
  };
  for (const field of ['maxEvents', 'maxWaitMs'] as const) {
    const { min, max } = BATCHING_LIMITS[field];
    const value = batching[field];
    if (!Number.isInteger(value) || value < min || value > max) {
      const message = `must be an integer from ${min} to ${max}`;
      throw new ApiError('INVALID_INPUT', `batching.${field} ${message}.`, { errors: [{ field: `body.batching.${field}`, message }] });
    }
  }
  return batching;
}

const noSuchEndpoint = () =>
  new ApiError('NOT_FOUND', 'No webhook endpoint with this id on your account.', {
    errors: [{ field: 'params.id', message: 'not an endpoint of this account' }],
  });

const noSuchDelivery = () =>
  new ApiError('NOT_FOUND', 'No delivery with this id on this endpoint.', {
    errors: [{ field: 'params.deliveryId', message: 'not a delivery of this endpoint' }],
  });

export function createWebhookEndpoints(options: CreateWebhookEndpointsOptions): WebhookEndpoints {
  const repo = options.store.webhooks;
  const sealer = secretSealer(options.config.secretKey);
  const maxEndpoints = options.maxEndpoints ?? MAX_ENDPOINTS;
  const now = options.now ?? (() => new Date());
  const view = (row: WebhookEndpointRow) => endpointView(row, now());

  async function checkUrl(url: string): Promise<void> {
    const why = await forbiddenUrl(url, { allowPrivateNetworks: options.config.allowPrivateNetworks });
    if (why === undefined) return;
    const hint = options.config.allowPrivateNetworks ? '' : ' Receivers inside a private network need ORCA_WEBHOOK_ALLOW_PRIVATE_NETWORKS=on.';
    throw new ApiError('INVALID_INPUT', `Webhooks may not be sent there: ${why}.${hint}`, { errors: [{ field: 'body.url', message: why }] });
  }

  async function found<T>(row: Promise<T | null>): Promise<T> {
    const value = await row;
    if (value === null) throw noSuchEndpoint();
    return value;
  }

  return {
    async create(account, input) {
      await checkUrl(input.url);
      const batching = batchingOf(input.batching ?? null);
      const secret = newSigningSecret();
      const row = await repo.createEndpoint(
        {
          id: newId('ep_'),
          account,
          url: input.url,
          description: input.description ?? '',
          events: [...new Set(input.events)],
          secret: sealer.seal(secret),
          batching,
        },
        maxEndpoints,
      );
      if (row === null) {
        throw new ApiError(
          'CONFLICT',
          `Your account has ${maxEndpoints} webhook endpoints, the most it may have. Delete one you no longer use, or subscribe an existing one to more events.`,
        );
      }
      return { ...view(row), secret };
    },

    async list(account, page) {
      const result = await readPage(() => repo.listEndpoints(account, page));
      return { items: result.items.map(view), nextCursor: result.nextCursor };
    },

    get: async (account, id) => view(await found(repo.getEndpoint(account, id))),

    async update(account, id, change) {
      const batching = change.batching === undefined ? undefined : batchingOf(change.batching);
      if (change.url !== undefined) {
        // Not found before refused: another account's id says nothing about its URL.
        await found(repo.getEndpoint(account, id));
        await checkUrl(change.url);
      }
      const events = change.events === undefined ? undefined : [...new Set(change.events)];
      return view(await found(repo.updateEndpoint(account, id, { url: change.url, events, description: change.description, batching })));
    },

    disable: async (account, id) => view(await found(repo.disableEndpoint(account, id, DISABLED_BY_OWNER))),

    enable: async (account, id) => view(await found(repo.enableEndpoint(account, id))),

    async remove(account, id) {
      if (!(await repo.deleteEndpoint(account, id))) throw noSuchEndpoint();
    },

    async rotateSecret(account, id) {
      const secret = newSigningSecret();
      const row = await found(repo.rotateSecret(account, id, sealer.seal(secret), new Date(now().getTime() + ROTATION_GRACE_MS)));
      return { ...view(row), secret };
    },

    async sendTest(account, id) {
      const endpoint = await found(repo.getEndpoint(account, id));
      if (endpoint.status !== 'enabled') throw new ApiError('CONFLICT', 'The endpoint is disabled; enable it (POST …/enable) before sending it a test event.');
      const event = {
        id: webhookEventId('webhook.test', randomBytes(12).toString('hex')),
        account,
        type: 'webhook.test' as const,
        timestamp: now().toISOString(),
        data: { endpointId: id },
      };
      return deliveryView(await found(repo.enqueueTo(account, id, event)));
    },

    async deliveries(account, id, page) {
      const result = await found(readPage(() => repo.listDeliveries(account, id, page)));
      return { items: result.items.map(deliveryView), nextCursor: result.nextCursor };
    },

    async delivery(account, id, deliveryId) {
      await found(repo.getEndpoint(account, id));
      const row = await repo.getDelivery(account, id, deliveryId);
      if (row === null) throw noSuchDelivery();
      return deliveryView(row);
    },

    async redeliver(account, id, deliveryId) {
      const endpoint = await found(repo.getEndpoint(account, id));
      if (endpoint.status !== 'enabled') {
        if ((await repo.getDelivery(account, id, deliveryId)) === null) throw noSuchDelivery();
        throw new ApiError('CONFLICT', 'The endpoint is disabled; enable it (POST …/enable) before sending it deliveries again.');
      }
      const outcome = await repo.redeliver(account, id, deliveryId);
      if (outcome.status === 'not-found') throw noSuchDelivery();
      if (outcome.status === 'in-flight') throw new ApiError('CONFLICT', 'The delivery is being sent right now; see its outcome in the delivery log.');
      return deliveryView(outcome.delivery);
    },
  };
}
