import { describe, expect, it } from 'vitest';
import type { ClaimedDelivery } from './delivery-statements.ts';
import { requestBody } from './request-body.ts';

const delivery = (eventId: string, body: string, batching: ClaimedDelivery['batching']): ClaimedDelivery => ({
  id: '1',
  endpointId: 'ep_1',
  eventId,
  body,
  attempts: 0,
  url: 'http://127.0.0.1/',
  secret: null,
  previousSecret: null,
  previousSecretExpiresAt: null,
  endpointStatus: 'enabled',
  disabledReason: null,
  failingSince: null,
  batching,
});

const BATCHED = { maxEvents: 10, maxWaitMs: 0 };

describe('requestBody', () => {
  it('sends one event of an endpoint without batching as it is stored, under its event id', () => {
    const body = '{"type": "a", "timestamp": "t", "data": {"x": 1}}';
    expect(requestBody([delivery('msg_1', body, null)])).toEqual({ id: 'msg_1', body });
  });

  it('sends a batched endpoint an array of its events, each with its id first, stored text spliced as it is', () => {
    const made = requestBody([delivery('msg_1', '{"type": "a", "data": {"x": 1}}', BATCHED), delivery('msg_"2', ' {}', BATCHED)]);
    expect(made.body).toBe('[{"id":"msg_1","type": "a", "data": {"x": 1}},{"id":"msg_\\"2"}]');
    expect(JSON.parse(made.body)).toEqual([{ id: 'msg_1', type: 'a', data: { x: 1 } }, { id: 'msg_"2' }]);
  });

  it('names a batch by its events: the same events, the same id; others, another', () => {
    const a = [delivery('msg_1', '{}', BATCHED), delivery('msg_2', '{}', BATCHED)];
    const id = requestBody(a).id;
    expect(id).toMatch(/^msg_b[0-9a-f]{32}$/);
    expect(requestBody(a.map((d) => ({ ...d }))).id).toBe(id);
    expect(requestBody([a[0]]).id).not.toBe(id);
    expect(requestBody([a[1], a[0]]).id).not.toBe(id);
    // An array of one, too, for a batched endpoint: receivers of it always get arrays.
    expect(JSON.parse(requestBody([a[0]]).body)).toEqual([{ id: 'msg_1' }]);
  });
});
