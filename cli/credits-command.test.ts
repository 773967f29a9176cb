// `orca credits grant`, run as an operator runs it (bin/orca.js in a child
// process) against a real server with an operator token: the grant lands as
// a ledger row, and a wrong or missing token or a bad amount is refused with
// the exit code scripts rely on.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiFixture, type ApiFixture } from '../test/api/api-fixture.ts';
import { orca } from './testing.ts';

const ADMIN_TOKEN = 'cli-operator-token-0123456789';
let api: ApiFixture;

beforeAll(async () => {
  api = await apiFixture({ config: { credits: { adminToken: ADMIN_TOKEN } } });
}, 120_000);
afterAll(() => api?.close());

describe('orca credits grant', () => {
  it('adds credits over the server, as a ledger row', async () => {
    const { email, apiKey, account } = await api.newAccount();
    const granted = await orca(['credits', 'grant', email, '40', '--reason', 'trial extension'], { ORCA_URL: api.baseUrl, ORCA_ADMIN_TOKEN: ADMIN_TOKEN });
    expect(granted.stderr).toBe('');
    expect(granted.code).toBe(0);
    expect(granted.stdout).toBe(`granted 40 credits to ${email} (account ${account}); balance now 1040\n`);
    const [entry] = (await api.call('GET', '/api/v1/account/ledger', { apiKey })).json.items;
    expect(entry).toMatchObject({ amount: 40, balanceAfter: 1_040, reason: 'grant: trial extension' });

    const json = await orca(['credits', 'grant', email, '2', '--json', '--admin-token', ADMIN_TOKEN], { ORCA_URL: api.baseUrl });
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({ account, ledgerEntryId: expect.any(String), amount: 2, balance: 1_042 });
  });

  it('refuses a wrong token (exit 4), no token and a bad amount (exit 2), granting nothing', async () => {
    const { email, apiKey } = await api.newAccount();
    const wrong = await orca(['credits', 'grant', email, '40'], { ORCA_URL: api.baseUrl, ORCA_ADMIN_TOKEN: 'not-the-operator-token' });
    expect(wrong.code).toBe(4);
    expect(wrong.stderr).toMatch(/UNAUTHENTICATED \(401\)/);
    expect(wrong.stderr).toMatch(/check ORCA_ADMIN_TOKEN/);
    const none = await orca(['credits', 'grant', email, '40'], { ORCA_URL: api.baseUrl });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/no operator token/);
    const bad = await orca(['credits', 'grant', email, '-3'], { ORCA_URL: api.baseUrl, ORCA_ADMIN_TOKEN: ADMIN_TOKEN });
    expect(bad.code).toBe(2);
    expect((await api.call('GET', '/api/v1/account', { apiKey })).json.balance).toBe(1_000);
  });
});
