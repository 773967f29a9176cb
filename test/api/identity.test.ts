// Identity over real HTTP without SMTP_URL (mail shown once to its reader,
// as the embedded default prints it, and kept in the outbox without its
// secrets): signup → confirmation link → welcome message with the key; every
// credential position; the 30-minute token and its expiry; rotation
// retiring the key and its tokens at once; bad credentials and bad input as
// problem+json that change nothing; secrets stored only as hashes.
import { createHash } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rows } from '../../engine/store/index.ts';
import { apiFixture, type ApiFixture, type CallResult } from './api-fixture.ts';

const KEY = /orca_[A-Za-z0-9_-]{43}/;
const LINK = /(http:\/\/\S+\/api\/signup\/confirm\?token=(orcas_[A-Za-z0-9_-]{43}))/;

let api: ApiFixture;
// The identity clock: tests move it forward to expire tokens and links.
let clockOffsetMs = 0;

beforeAll(async () => {
  api = await apiFixture({ clock: () => new Date(Date.now() + clockOffsetMs) });
}, 120_000);
afterAll(() => api?.close());

function expectProblem(res: CallResult, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(res.json).toMatchObject({
    status,
    code,
    type: expect.stringMatching(/^https:\/\//),
    title: expect.any(String),
    detail: expect.any(String),
    instance: expect.stringMatching(/^\//),
  });
  expect(res.text).not.toMatch(/\bat .*\.ts:\d+/); // no stack trace
}

function fieldsOf(res: CallResult): string[] {
  return (res.json?.errors ?? []).map((e: { field: string }) => e.field);
}

async function signUp(email: string): Promise<{ link: string; token: string }> {
  const res = await api.call('POST', '/api/signup', { json: { email } });
  expect(res.status).toBe(202);
  expect(res.json.message).toEqual(expect.any(String));
  const [mail] = api.mail(email.toLowerCase());
  const match = LINK.exec(mail.text);
  expect(match, 'confirmation mail carries the link').not.toBeNull();
  return { link: match![1], token: match![2] };
}

async function confirm(link: string): Promise<CallResult> {
  const url = new URL(link);
  return api.call('GET', url.pathname + url.search);
}

describe('signup without SMTP_URL', () => {
  it('confirms by link and mails the API key, which then works', async () => {
    const email = 'Newcomer@Example.com';
    const { link } = await signUp(email);
    expect(link.startsWith(`${api.baseUrl}/api/signup/confirm?token=`)).toBe(true);

    const [confirmation] = await api.outbox('newcomer@example.com');
    expect(confirmation.subject).toMatch(/confirm/i);
    expect(confirmation.body).not.toMatch(KEY);

    const confirmed = await confirm(link);
    expect(confirmed.status).toBe(200);
    expect(confirmed.json.message).toMatch(/sent to newcomer@example\.com/);
    expect(confirmed.text).not.toMatch(KEY);
    expect(confirmed.headers.get('cache-control')).toBe('no-store');

    const [welcome] = api.mail('newcomer@example.com');
    expect(welcome.subject).toMatch(/welcome/i);
    const apiKey = KEY.exec(welcome.text)![0];
    // The outbox keeps both messages, without the link's token or the key.
    const stored = await api.outbox('newcomer@example.com');
    expect(stored.map((m) => m.subject)).toEqual([welcome.subject, confirmation.subject]);
    for (const row of stored) {
      expect(row.body).not.toMatch(KEY);
      expect(row.body).not.toContain(new URL(link).searchParams.get('token'));
    }

    const me = await api.call('GET', '/api/v1/account', { apiKey });
    expect(me.status).toBe(200);
    expect(me.json).toEqual({ account: expect.stringMatching(/^acc_/), email: 'newcomer@example.com', balance: 1000 });
  });

  it('refuses a link used twice, an unknown one and an expired one', async () => {
    const { link, token } = await signUp('twice@example.com');
    expect((await confirm(link)).status).toBe(200);
    const mails = (await api.outbox('twice@example.com')).length;

    expectProblem(await confirm(link), 409, 'CONFLICT');
    expectProblem(await api.call('GET', '/api/signup/confirm', { query: { token: token.slice(0, -2) + 'xx' } }), 404, 'NOT_FOUND');
    expectProblem(await api.call('GET', '/api/signup/confirm', { query: { token: 'nonsense' } }), 404, 'NOT_FOUND');
    expectProblem(await api.call('GET', '/api/signup/confirm'), 400, 'INVALID_INPUT');
    expect((await api.outbox('twice@example.com')).length).toBe(mails);

    const late = await signUp('late@example.com');
    clockOffsetMs = 25 * 3600 * 1000;
    try {
      const expired = await confirm(late.link);
      expectProblem(expired, 404, 'NOT_FOUND');
      expect(expired.json.detail).toMatch(/expired/);
    } finally {
      clockOffsetMs = 0;
    }
    // Nothing was created for the expired link: no welcome message.
    expect((await api.outbox('late@example.com')).map((m) => m.subject)).not.toContainEqual(expect.stringMatching(/welcome/i));
  });

  it('answers a signup for a known address the same way, changing nothing', async () => {
    const { email, apiKey } = await api.newAccount();
    const res = await api.call('POST', '/api/signup', { json: { email } });
    expect(res.status).toBe(202);
    const [note] = await api.outbox(email);
    expect(note.body).toMatch(/already has one/);
    expect(note.body).not.toMatch(LINK);
    expect((await api.call('GET', '/api/v1/account', { apiKey })).status).toBe(200);
  });

  it('rejects bad signup input naming the field, and stores nothing', async () => {
    const before = (await api.outbox()).length;
    const missing = await api.call('POST', '/api/signup', { json: {} });
    expectProblem(missing, 400, 'INVALID_INPUT');
    expect(fieldsOf(missing)).toEqual(['body.email']);

    const notEmail = await api.call('POST', '/api/signup', { json: { email: 'not-an-address' } });
    expectProblem(notEmail, 400, 'INVALID_INPUT');
    expect(fieldsOf(notEmail)).toEqual(['body.email']);

    const wrongType = await api.call('POST', '/api/signup', { json: { email: 42 } });
    expectProblem(wrongType, 400, 'INVALID_INPUT');
    expect(fieldsOf(wrongType)).toEqual(['body.email']);

    expectProblem(await api.call('POST', '/api/signup', { json: ['a@example.com'] }), 400, 'INVALID_INPUT');
    expectProblem(await api.call('POST', '/api/signup', { body: '{"email":', headers: { 'content-type': 'application/json' } }), 400, 'INVALID_INPUT');

    const huge = Buffer.alloc(10 * 1024 * 1024 + 1024, 'a');
    huge.write('{"email":"');
    const tooLarge = await api.call('POST', '/api/signup', { body: huge, headers: { 'content-type': 'application/json' } });
    expectProblem(tooLarge, 413, 'PAYLOAD_TOO_LARGE');

    expect((await api.outbox()).length).toBe(before);
  });
});

describe('credentials', () => {
  it('accepts the key in X-API-Key, as Bearer, and as ?api_key=, and a token as Bearer', async () => {
    const { account, apiKey } = await api.newAccount();
    const asHeader = await api.call('GET', '/api/v1/account', { apiKey });
    const asBearer = await api.call('GET', '/api/v1/account', { headers: { authorization: `Bearer ${apiKey}` } });
    const asQuery = await api.call('GET', '/api/v1/account', { query: { api_key: apiKey } });

    const minted = await api.call('POST', '/api/token', { json: { api_key: apiKey } });
    expect(minted.status).toBe(200);
    expect(minted.json).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: 1800 });
    expect(minted.headers.get('cache-control')).toBe('no-store');
    const token = minted.json.access_token as string;
    expect(token).not.toBe(apiKey);
    const asToken = await api.call('GET', '/api/v1/account', { headers: { authorization: `Bearer ${token}` } });
    const tokenInHeader = await api.call('GET', '/api/v1/account', { headers: { 'x-api-key': token } });

    for (const res of [asHeader, asBearer, asQuery, asToken, tokenInHeader]) {
      expect(res.status).toBe(200);
      expect(res.json.account).toBe(account);
    }
  });

  it('answers a missing or wrong credential with a 401 problem', async () => {
    const { apiKey } = await api.newAccount();
    expectProblem(await api.call('GET', '/api/v1/account'), 401, 'UNAUTHENTICATED');
    expectProblem(await api.call('GET', '/api/v1/account', { apiKey: 'orca_' + 'A'.repeat(43) }), 401, 'UNAUTHENTICATED');
    expectProblem(await api.call('GET', '/api/v1/account', { apiKey: apiKey.slice(0, -1) }), 401, 'UNAUTHENTICATED');
    expectProblem(await api.call('GET', '/api/v1/account', { apiKey: 'x'.repeat(5000) }), 401, 'UNAUTHENTICATED');
    expectProblem(await api.call('GET', '/api/v1/account', { headers: { authorization: 'Basic Zm9vOmJhcg==' } }), 401, 'UNAUTHENTICATED');
    const res = await api.call('GET', '/api/v1/account', { headers: { authorization: 'Bearer orcat_nope' } });
    expectProblem(res, 401, 'UNAUTHENTICATED');
    expect(res.json.instance).toBe('/api/v1/account');
  });

  it('refuses to mint a token for a bad key or bad input', async () => {
    expectProblem(await api.call('POST', '/api/token', { json: { api_key: 'orca_' + 'B'.repeat(43) } }), 401, 'UNAUTHENTICATED');
    const missing = await api.call('POST', '/api/token', { json: {} });
    expectProblem(missing, 400, 'INVALID_INPUT');
    expect(fieldsOf(missing)).toEqual(['body.api_key']);
    const wrongType = await api.call('POST', '/api/token', { json: { api_key: 12 } });
    expectProblem(wrongType, 400, 'INVALID_INPUT');
    expect(fieldsOf(wrongType)).toEqual(['body.api_key']);
    // A token cannot mint another token.
    const { apiKey } = await api.newAccount();
    const token = (await api.call('POST', '/api/token', { json: { api_key: apiKey } })).json.access_token;
    expectProblem(await api.call('POST', '/api/token', { json: { api_key: token } }), 401, 'UNAUTHENTICATED');
  });

  it('lets a token expire after 30 minutes', async () => {
    const { apiKey } = await api.newAccount();
    const token = (await api.call('POST', '/api/token', { json: { api_key: apiKey } })).json.access_token;
    const bearer = { authorization: `Bearer ${token}` };
    try {
      clockOffsetMs = 1_799 * 1000;
      expect((await api.call('GET', '/api/v1/account', { headers: bearer })).status).toBe(200);
      clockOffsetMs = 1_801 * 1000;
      expectProblem(await api.call('GET', '/api/v1/account', { headers: bearer }), 401, 'UNAUTHENTICATED');
      // The key itself does not expire.
      expect((await api.call('GET', '/api/v1/account', { apiKey })).status).toBe(200);
    } finally {
      clockOffsetMs = 0;
    }
  });
});

describe('key rotation', () => {
  it('retires the old key and every token minted from it at once', async () => {
    const { account, apiKey } = await api.newAccount();
    const tokens = await Promise.all([1, 2].map(async () => (await api.call('POST', '/api/token', { json: { api_key: apiKey } })).json.access_token as string));

    const rotated = await api.call('POST', '/api/keys/rotate', { apiKey });
    expect(rotated.status).toBe(200);
    expect(rotated.json).toEqual({ new_key: expect.stringMatching(KEY), message: expect.any(String) });
    const newKey = rotated.json.new_key as string;
    expect(newKey).not.toBe(apiKey);

    expectProblem(await api.call('GET', '/api/v1/account', { apiKey }), 401, 'UNAUTHENTICATED');
    for (const token of tokens)
      expectProblem(await api.call('GET', '/api/v1/account', { headers: { authorization: `Bearer ${token}` } }), 401, 'UNAUTHENTICATED');
    expectProblem(await api.call('POST', '/api/token', { json: { api_key: apiKey } }), 401, 'UNAUTHENTICATED');
    expectProblem(await api.call('POST', '/api/keys/rotate', { apiKey }), 401, 'UNAUTHENTICATED');

    const me = await api.call('GET', '/api/v1/account', { apiKey: newKey });
    expect(me.status).toBe(200);
    expect(me.json.account).toBe(account);
  });

  it('rotates only with the key itself, not with a token', async () => {
    const { apiKey } = await api.newAccount();
    const token = (await api.call('POST', '/api/token', { json: { api_key: apiKey } })).json.access_token;
    expectProblem(await api.call('POST', '/api/keys/rotate', { headers: { authorization: `Bearer ${token}` } }), 401, 'UNAUTHENTICATED');
    expectProblem(await api.call('POST', '/api/keys/rotate'), 401, 'UNAUTHENTICATED');
    expect((await api.call('GET', '/api/v1/account', { apiKey })).status).toBe(200);
  });

  it('lets exactly one of two concurrent rotations win', async () => {
    const { apiKey } = await api.newAccount();
    const results = await Promise.all([1, 2, 3].map(() => api.call('POST', '/api/keys/rotate', { apiKey })));
    const winners = results.filter((r) => r.status === 200);
    expect(winners).toHaveLength(1);
    for (const r of results.filter((x) => x.status !== 200)) expectProblem(r, 401, 'UNAUTHENTICATED');
    expect((await api.call('GET', '/api/v1/account', { apiKey: winners[0].json.new_key })).status).toBe(200);
  });
});

describe('secrets at rest', () => {
  it('stores keys, tokens and signup links only as sha256 hashes', async () => {
    const { apiKey } = await api.newAccount();
    const token = (await api.call('POST', '/api/token', { json: { api_key: apiKey } })).json.access_token as string;
    const { token: signupToken } = await signUp('hashed@example.com');
    const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
    const db = api.engine.store.db;

    const keys = await rows<{ hash: string }>(db, sql`select hash from api_keys`);
    const tokens = await rows<{ hash: string }>(db, sql`select hash from access_tokens`);
    const signups = await rows<{ token_hash: string }>(db, sql`select token_hash from signups`);
    expect(keys.map((k) => k.hash)).toContain(sha256(apiKey));
    expect(tokens.map((t) => t.hash)).toContain(sha256(token));
    expect(signups.map((s) => s.token_hash)).toContain(sha256(signupToken));

    const dump = JSON.stringify(
      await Promise.all(['api_keys', 'access_tokens', 'signups', 'account_emails', 'accounts', 'ledger'].map((t) => rows(db, sql.raw(`select * from ${t}`)))),
    );
    for (const secret of [apiKey, token, signupToken]) expect(dump).not.toContain(secret);
  });
});
