// What one request carries (docs/webhooks.md): a single event's stored
// payload as it is, with the event id as `webhook-id`; or, for an endpoint
// with batched delivery, a JSON array of its events, each with its `id`
// first, under a batch id derived from those ids, so the same events sent
// again carry the same `webhook-id`. The payloads are stored JSON text and
// are spliced, never parsed.
import { createHash } from 'node:crypto';
import type { ClaimedDelivery } from './delivery-statements.ts';

export interface RequestBody {
  /** The `webhook-id` header. */
  id: string;
  body: string;
}

export function requestBody(deliveries: readonly ClaimedDelivery[]): RequestBody {
  const first = deliveries[0];
  if (deliveries.length === 1 && first.batching === null) return { id: first.eventId, body: first.body };
  const hash = createHash('sha256');
  const parts: string[] = [];
  for (const d of deliveries) {
    hash.update(d.eventId).update('\n');
    parts.push(withId(d.eventId, d.body));
  }
  return { id: `msg_b${hash.digest('hex').slice(0, 32)}`, body: `[${parts.join(',')}]` };
}

/** `{"id":…, …the payload's members}` from the payload's text (always a JSON object). */
function withId(id: string, body: string): string {
  const rest = body.slice(body.indexOf('{') + 1).trimStart();
  return `{"id":${JSON.stringify(id)}${rest.startsWith('}') ? '' : ','}${rest}`;
}
