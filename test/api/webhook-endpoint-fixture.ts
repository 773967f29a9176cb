// The setup the end-to-end webhook tests share: an API with its own
// dispatcher (private networks allowed, so it may reach loopback), a
// receiver that verifies every request with the `standardwebhooks` package,
// and an account whose endpoint — created over REST, subscribed to
// process_instance.completed — points at it, with a model that completes as
// soon as it starts deployed.
import { expect } from 'vitest';
import { end, flow, processXml, start } from '../../engine/runtime/testing.ts';
import { startReceiver, type Receiver } from '../webhooks/receiver.ts';
import { apiFixture, type ApiFixture } from './api-fixture.ts';
import { mustDeploy, type Json } from './workflow-support.ts';

/** Completes as soon as it starts: one process_instance.completed per start. */
export const QUICK = processXml('quick', start() + end() + flow('f1', 'start', 'end'));

export interface WebhookEndpointFixture {
  api: ApiFixture;
  receiver: Receiver;
  apiKey: string;
  endpointId: string;
  /** The creation's answer (the endpoint, with its secret). */
  created: Json;
  close(): Promise<void>;
}

/** The endpoint at the receiver's `path`, created with `fields` added to its url and events. */
export async function webhookEndpointFixture(path: string, fields: Record<string, unknown> = {}): Promise<WebhookEndpointFixture> {
  const api = await apiFixture({ config: { webhooks: { allowPrivateNetworks: true, dispatcher: true } } });
  let secrets: string[] = [];
  const receiver = await startReceiver(() => secrets);
  const { apiKey } = await api.newAccount();
  const res = await api.call('POST', '/api/v1/webhooks', {
    apiKey,
    json: { url: `${receiver.url}${path}`, events: ['process_instance.completed'], ...fields },
  });
  expect(res.status, res.text).toBe(201);
  secrets = [res.json.secret];
  await mustDeploy(api, apiKey, QUICK);
  return {
    api,
    receiver,
    apiKey,
    endpointId: res.json.id,
    created: res.json,
    async close() {
      await receiver.close();
      await api.close();
    },
  };
}
