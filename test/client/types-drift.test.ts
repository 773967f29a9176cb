// The client's generated types (client/generated/openapi.ts) are what
// `npm run client:types` makes of the OpenAPI document the server serves
// now: a route or schema change without regenerating fails here.
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CLIENT_TYPES_FILE, renderClientTypes } from '../../scripts/client-types.ts';
import { apiFixture, type ApiFixture } from '../api/api-fixture.ts';

let api: ApiFixture;

beforeAll(async () => {
  api = await apiFixture();
}, 60_000);
afterAll(() => api?.close());

it('client/generated/openapi.ts matches the served OpenAPI document (run `npm run client:types` when it does not)', async () => {
  const served = await api.call('GET', '/api/v1/openapi.json');
  expect(served.status).toBe(200);
  const regenerated = await renderClientTypes(served.json);
  const committed = await readFile(CLIENT_TYPES_FILE, 'utf8');
  expect(regenerated === committed, 'client/generated/openapi.ts is stale: run `npm run client:types`').toBe(true);
  // The document the types come from has the routes the client calls.
  expect(committed).toContain("'/api/v1/jobs/activate'");
});
