// Bearer tokens exchanged for the API key (SPEC.md: POST /api/token, valid
// 30 minutes), against a real server whose token clock the test moves along
// with the client's: the client renews before expiry, renews once and
// repeats after a 401 on a token it thought valid, and gives up with
// UNAUTHENTICATED when the key itself is gone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OrcaClient, OrcaError } from '../../client/index.ts';
import { apiFixture, type ApiFixture } from '../api/api-fixture.ts';

const TTL_SECONDS = 600;

let api: ApiFixture;
let serverNow = Date.UTC(2026, 0, 1);

beforeAll(async () => {
  api = await apiFixture({ config: { accounts: { tokenTtlSeconds: TTL_SECONDS } }, clock: () => new Date(serverNow) });
}, 60_000);
afterAll(() => api?.close());

/** A fetch that counts token exchanges and 401 answers, and records the credential each request carried. */
function countingFetch() {
  const counts = { exchanges: 0, unauthorized: 0, credentials: [] as string[] };
  const wrapped: typeof fetch = async (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (new URL(url).pathname === '/api/token') counts.exchanges++;
    else counts.credentials.push(new Headers(init?.headers).get('authorization') ?? new Headers(init?.headers).get('x-api-key') ?? '');
    const response = await fetch(input, init);
    if (response.status === 401) counts.unauthorized++;
    return response;
  };
  return { counts, fetch: wrapped };
}

describe('token exchange', () => {
  it('sends the API key itself by default', async () => {
    const { apiKey } = await api.newAccount();
    const { counts, fetch } = countingFetch();
    await new OrcaClient({ url: api.baseUrl, apiKey, fetch }).getAccount();
    expect(counts).toMatchObject({ exchanges: 0, credentials: [apiKey] });
  });

  it('exchanges the key once, renews before expiry, and never sends an expired token', async () => {
    const { apiKey } = await api.newAccount();
    const { counts, fetch } = countingFetch();
    let clientNow = serverNow;
    const client = new OrcaClient({ url: api.baseUrl, apiKey, token: 'exchange', fetch, clock: () => clientNow });
    const advance = (seconds: number) => {
      clientNow += seconds * 1000;
      serverNow += seconds * 1000;
    };

    await client.getAccount();
    await client.listInstances();
    expect(counts.exchanges).toBe(1);
    expect(counts.credentials[0]).toMatch(/^Bearer /);
    expect(counts.credentials[0]).not.toContain(apiKey);

    advance(TTL_SECONDS - 120); // Well inside the token's life: no renewal.
    await client.getAccount();
    expect(counts.exchanges).toBe(1);

    advance(90); // Within the last tenth of its life: renewed before it expires.
    await client.getAccount();
    expect(counts.exchanges).toBe(2);
    expect(counts.credentials.at(-1)).not.toBe(counts.credentials[0]);

    advance(TTL_SECONDS * 3); // Long past both tokens' expiry.
    await client.getAccount();
    expect(counts.exchanges).toBe(3);
    expect(counts.unauthorized).toBe(0);
  });

  it('after a 401 on a token it thought valid, renews once and repeats the request', async () => {
    const { apiKey } = await api.newAccount();
    const { counts, fetch } = countingFetch();
    const clientNow = serverNow; // The client's clock stands still: it never thinks the token old.
    const client = new OrcaClient({ url: api.baseUrl, apiKey, token: 'exchange', fetch, clock: () => clientNow });
    await client.getAccount();
    serverNow += (TTL_SECONDS + 1) * 1000;
    const account = await client.getAccount();
    expect(account).toBeDefined();
    expect(counts).toMatchObject({ exchanges: 2, unauthorized: 1 });
  });

  it('gives up with UNAUTHENTICATED when the key is retired, without a loop', async () => {
    const { apiKey } = await api.newAccount();
    const { counts, fetch } = countingFetch();
    const client = new OrcaClient({ url: api.baseUrl, apiKey, token: 'exchange', fetch, clock: () => serverNow });
    await client.getAccount();
    const rotated = await api.call('POST', '/api/keys/rotate', { apiKey });
    expect(rotated.status).toBe(200);
    const error = await client.getAccount().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OrcaError);
    expect(error).toMatchObject({ status: 401, code: 'UNAUTHENTICATED', retryable: false });
    // The first 401 (token retired with the key), one renewal refused.
    expect(counts).toMatchObject({ exchanges: 2, unauthorized: 2 });
  });
});
