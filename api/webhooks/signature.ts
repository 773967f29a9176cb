// Standard Webhooks signing: the headers a delivery carries so its receiver
// can check who sent it and that it was not altered or replayed late —
// `webhook-id` (the event id, the same on every attempt), `webhook-timestamp`
// (unix seconds of this attempt) and `webhook-signature`, one `v1,<base64
// HMAC-SHA256("id.timestamp.body")>` per live secret, space-separated: the
// current one and, during a rotation's grace, the previous one too.
import { createHmac } from 'node:crypto';

export function signature(key: Buffer, id: string, timestamp: number | string, body: string): string {
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/** The signature header's value: one `v1,…` per key, space-separated. */
export function signatures(keys: readonly Buffer[], id: string, timestamp: number | string, body: string): string {
  if (keys.length === 1) return signature(keys[0], id, timestamp, body);
  return keys.map((key) => signature(key, id, timestamp, body)).join(' ');
}

export function signedHeaders(keys: readonly Buffer[], id: string, timestamp: number, body: string): Record<string, string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signatures(keys, id, timestamp, body),
  };
}
