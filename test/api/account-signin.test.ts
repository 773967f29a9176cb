// People's sign-in through a real SMTP peer, and what a session opens: the
// code and the link arrive by mail; the session reaches the dashboard,
// wallet and key routes and nothing else; an API key, an expired session
// (the service's clock moved) and a logged-out one are refused there; the
// answers to an unknown address are the same as to a known one, and every
// failed verify is one answer; wrong codes spend the code; the link's GET
// page uses nothing and its POST does; the sign-in requests of a caller and
// of an address, and a caller's code tries, are rate-limited (429 with
// Retry-After).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiFixture, type ApiFixture } from './api-fixture.ts';
import { smtpPeer, type SmtpPeer } from './smtp-peer.ts';
import { eventually, mustDeploy, serviceProcess, startInstance } from './workflow-support.ts';

const CODE = /^ {2}(\d{8})$/m;
const LINK = /(http:\/\/\S+\/api\/login\/link\?token=(orcal_[A-Za-z0-9_-]{43}))/;

let smtp: SmtpPeer;
let api: ApiFixture;
let offset = 0;
const clock = () => new Date(Date.now() + offset);

beforeAll(async () => {
  smtp = await smtpPeer();
  api = await apiFixture({ clock, config: { mail: { smtpUrl: smtp.url }, accounts: { loginBurst: 6 } } });
}, 120_000);

afterAll(async () => {
  await api?.close();
  await smtp?.close();
});

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** Asks for a code and reads it and the link from the mail that arrives. */
async function mailedCode(email: string): Promise<{ code: string; link: string; linkToken: string }> {
  const before = smtp.count(email);
  const res = await api.call('POST', '/api/login', { json: { email } });
  expect(res.status).toBe(202);
  const mail = await smtp.next(email, before);
  const [, link, linkToken] = LINK.exec(mail.text)!;
  return { code: CODE.exec(mail.text)![1], link, linkToken };
}

/** A code other than `code`. */
const otherThan = (code: string) => String((Number(code) + 1) % 100_000_000).padStart(8, '0');

// Headers that differ between any two answers, whatever they say.
const VARYING = new Set(['date', 'keep-alive', 'x-request-id']);

/** A verify's answer as its caller can compare it: status, whole body and headers. */
async function verifyAnswer(email: string, code: string): Promise<{ status: number; body: string; headers: Record<string, string> }> {
  const res = await api.call('POST', '/api/login/verify', { json: { email, code } });
  const headers = Object.fromEntries([...res.headers].filter(([name]) => !VARYING.has(name)));
  return { status: res.status, body: res.text, headers };
}

async function signIn(email: string): Promise<string> {
  const { code } = await mailedCode(email);
  const res = await api.call('POST', '/api/login/verify', { json: { email, code } });
  expect(res.status).toBe(200);
  return res.json.token as string;
}

describe('sign-in by mailed code', () => {
  it('opens a session that reaches the dashboard, the wallet and the key list', async () => {
    const { account, apiKey, email } = await api.newAccount();
    const before = smtp.count(email);
    const asked = await api.call('POST', '/api/login', { json: { email: email.toUpperCase() } });
    expect(asked.status).toBe(202);
    const mail = await smtp.next(email, before);
    expect(mail.subject).toBe('Your Orca sign-in code');
    const code = CODE.exec(mail.text)![1];
    // What the service keeps of the message holds neither the code nor the link's token.
    const [kept] = await api.outbox(email);
    expect(kept.body).not.toContain(code);
    expect(kept.body).not.toContain(LINK.exec(mail.text)![2]);

    const verified = await api.call('POST', '/api/login/verify', { json: { email, code } });
    expect(verified.status).toBe(200);
    expect(verified.headers.get('cache-control')).toBe('no-store');
    expect(verified.json.token).toMatch(/^orcass_[A-Za-z0-9_-]{43}$/);
    const life = Date.parse(verified.json.expiresAt) - clock().getTime();
    expect(life).toBeGreaterThan(11.9 * 3_600_000);
    expect(life).toBeLessThanOrEqual(12 * 3_600_000);
    const session = verified.json.token as string;

    // The code works once.
    const again = await api.call('POST', '/api/login/verify', { json: { email, code } });
    expect(again.status).toBe(401);

    const dashboard = await api.call('GET', '/api/dashboard', { headers: bearer(session) });
    expect(dashboard.status).toBe(200);
    expect(dashboard.json).toMatchObject({ account, email, balance: 1_000, credits: { enabled: true }, definitions: 0, openIncidents: 0, jobsWaiting: [] });

    const wallet = await api.call('GET', '/api/wallet', { headers: bearer(session) });
    expect(wallet.status).toBe(200);
    expect(wallet.json.balance).toBe(1_000);
    expect(wallet.json.items).toEqual([expect.objectContaining({ amount: 1_000, balanceAfter: 1_000, reason: 'opening balance', reference: null })]);

    const keys = await api.call('GET', '/api/account/keys', { headers: bearer(session) });
    expect(keys.status).toBe(200);
    expect(keys.json.items).toEqual([{ id: expect.stringMatching(/^key_/), prefix: apiKey.slice(0, 12), createdAt: expect.any(String) }]);
  });

  it('pages the wallet ledger by cursor, newest first, each entry balance following from the one before', async () => {
    const { apiKey, email } = await api.newAccount();
    await mustDeploy(api, apiKey, serviceProcess('wallet-paged', 'wallet-work'));
    for (let i = 0; i < 5; i++) await startInstance(api, apiKey, 'wallet-paged');
    const session = await signIn(email);
    const items: { id: string; amount: number; balanceAfter: number; reason: string; reference: string | null }[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 10; page++) {
      const res = await api.call('GET', '/api/wallet', { headers: bearer(session), query: { limit: 2, ...(cursor ? { cursor } : {}) } });
      expect(res.status, res.text).toBe(200);
      expect(res.json.items.length).toBeLessThanOrEqual(2);
      items.push(...res.json.items);
      cursor = res.json.nextCursor ?? undefined;
      if (cursor === undefined) break;
    }
    expect(cursor).toBeUndefined();
    expect(new Set(items.map((e) => e.id)).size).toBe(items.length);
    expect(items.map((e) => e.reason)).toEqual([...Array(5).fill('process-instance-start'), 'opening balance']);
    expect(items.slice(0, 5).every((e) => e.amount === -1 && e.reference === 'wallet-paged')).toBe(true);
    for (let i = 0; i + 1 < items.length; i++) expect(items[i].balanceAfter).toBe(items[i + 1].balanceAfter + items[i].amount);
    expect(items[0].balanceAfter).toBe(995);
    const bad = await api.call('GET', '/api/wallet', { headers: bearer(session), query: { cursor: 'not-a-cursor' } });
    expect(bad.status).toBe(400);
  });

  it('refuses an API key on the session routes and a session on the workflow API', async () => {
    const { email, apiKey } = await api.newAccount();
    const session = await signIn(email);
    for (const path of ['/api/dashboard', '/api/wallet', '/api/account/keys']) {
      for (const headers of [{ 'x-api-key': apiKey }, bearer(apiKey), {}] as Record<string, string>[]) {
        const res = await api.call('GET', path, { headers });
        expect(res.status, `${path} ${JSON.stringify(Object.keys(headers))}`).toBe(401);
        expect(res.json.code).toBe('UNAUTHENTICATED');
        expect(res.json.detail).toMatch(/sign-in session/);
        expect(res.headers.get('www-authenticate')).toBe('Bearer realm="orca-account"');
      }
    }
    const token = await api.call('POST', '/api/token', { json: { api_key: apiKey } });
    expect((await api.call('GET', '/api/dashboard', { headers: bearer(token.json.access_token) })).status).toBe(401);
    expect((await api.call('GET', '/api/v1/account', { headers: bearer(session) })).status).toBe(401);
    expect((await api.call('GET', '/api/v1/process-definitions', { headers: { 'x-api-key': session } })).status).toBe(401);
  });

  it('ends a session at logout and at its expiry', async () => {
    const { email } = await api.newAccount();
    const first = await signIn(email);
    const second = await signIn(email);
    expect((await api.call('POST', '/api/logout', { headers: bearer(first) })).status).toBe(204);
    const refused = await api.call('GET', '/api/wallet', { headers: bearer(first) });
    expect(refused.status).toBe(401);
    expect(refused.json.detail).toMatch(/ended or expired/);
    // Another session of the same person goes on, until its time is up.
    expect((await api.call('GET', '/api/wallet', { headers: bearer(second) })).status).toBe(200);
    offset += 12 * 3_600_000 + 1_000;
    try {
      expect((await api.call('GET', '/api/wallet', { headers: bearer(second) })).status).toBe(401);
    } finally {
      offset -= 12 * 3_600_000 + 1_000;
    }
  });

  it('answers an unknown address exactly as a known one, and issues it no code', async () => {
    const { email } = await api.newAccount();
    const { email: idle } = await api.newAccount();
    const stranger = `nobody-${Date.now()}@example.org`;
    const beforeKnown = smtp.count(email);
    const known = await api.call('POST', '/api/login', { json: { email } });
    const code = CODE.exec((await smtp.next(email, beforeKnown)).text)![1];
    const before = smtp.count(stranger);
    const unknown = await api.call('POST', '/api/login', { json: { email: stranger } });
    expect(unknown.status).toBe(known.status);
    expect(unknown.text).toBe(known.text);
    const note = await smtp.next(stranger, before);
    expect(note.text).toMatch(/has no account, so no code was issued/);
    expect(note.text).not.toMatch(CODE);

    // A wrong code: for an address with a live code, for one with an account
    // but no code, and for one without an account, the very same answer.
    const wrong = otherThan(code);
    const refused = await verifyAnswer(email, wrong);
    expect(refused.status).toBe(401);
    expect(JSON.parse(refused.body)).toEqual({
      type: 'https://orca.dev/problems/unauthenticated',
      title: 'Missing or invalid credential',
      status: 401,
      detail: 'The code is wrong, used up or expired. Ask for a new one with POST /api/login.',
      instance: '/api/login/verify',
      code: 'UNAUTHENTICATED',
    });
    expect(await verifyAnswer(stranger, wrong)).toEqual(refused);
    expect(await verifyAnswer(idle, wrong)).toEqual(refused);
    // And the right code once it has expired.
    offset += 15 * 60_000 + 1_000;
    try {
      expect(await verifyAnswer(email, code)).toEqual(refused);
    } finally {
      offset -= 15 * 60_000 + 1_000;
    }
  });

  it('spends a code after five wrong tries', async () => {
    const { email } = await api.newAccount();
    const { code } = await mailedCode(email);
    const wrong = otherThan(code);
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push(await verifyAnswer(email, wrong));
    // No answer counts the tries down: that would tell an account's address from others.
    expect(answers[0].status).toBe(401);
    expect(JSON.parse(answers[0].body).detail).toMatch(/used up or expired/);
    for (const answer of answers) expect(answer).toEqual(answers[0]);
    // The right code comes too late: nothing is opened, and the answer is the same.
    expect(await verifyAnswer(email, code)).toEqual(answers[0]);
    // Bad input changes nothing and says which field.
    const bad = await api.call('POST', '/api/login/verify', { json: { email: 'not-an-address', code } });
    expect(bad.status).toBe(400);
    expect(bad.json.errors).toEqual([expect.objectContaining({ field: 'body.email' })]);
  });

  it('uses the link only on the POST of its page', async () => {
    const { email } = await api.newAccount();
    const { link, linkToken, code } = await mailedCode(email);
    // A mail scanner opening the link, twice.
    for (let i = 0; i < 2; i++) {
      const page = await fetch(link);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/text\/html/);
      const html = await page.text();
      expect(html).toContain('<form method="post" action="link">');
      expect(html).toContain(`value="${linkToken}"`);
    }
    // The page's form, as a browser posts it.
    const posted = await fetch(new URL('/api/login/link', link), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: linkToken }).toString(),
    });
    expect(posted.status).toBe(200);
    const session = /(orcass_[A-Za-z0-9_-]{43})/.exec(await posted.text())![1];
    expect((await api.call('GET', '/api/dashboard', { headers: bearer(session) })).status).toBe(200);
    // Used: neither the link nor its code opens another session.
    expect((await api.call('POST', '/api/login/link', { json: { token: linkToken } })).status).toBe(404);
    expect((await fetch(link)).status).toBe(404);
    expect((await api.call('POST', '/api/login/verify', { json: { email, code } })).status).toBe(401);
  });

  it('rotates a key with a session, showing the new key once', async () => {
    const { email, apiKey } = await api.newAccount();
    const session = await signIn(email);
    const [listed] = (await api.call('GET', '/api/account/keys', { headers: bearer(session) })).json.items;
    const rotated = await api.call('POST', `/api/account/keys/${listed.id}/rotate`, { headers: bearer(session) });
    expect(rotated.status).toBe(200);
    expect(rotated.json.key.slice(0, 12)).toBe(rotated.json.prefix);
    expect((await api.call('GET', '/api/v1/account', { apiKey })).status).toBe(401);
    expect((await api.call('GET', '/api/v1/account', { apiKey: rotated.json.key })).status).toBe(200);
    const keys = await api.call('GET', '/api/account/keys', { headers: bearer(session) });
    expect(keys.json.items.map((k: { id: string }) => k.id)).toEqual([rotated.json.id]);
    expect((await api.call('POST', `/api/account/keys/${listed.id}/rotate`, { headers: bearer(session) })).status).toBe(404);
  });

  it('counts the account on the dashboard', async () => {
    const { email, apiKey } = await api.newAccount();
    await mustDeploy(api, apiKey, serviceProcess('dash-one', 'dash-work'));
    await mustDeploy(api, apiKey, serviceProcess('dash-two', 'dash-other'));
    for (let i = 0; i < 3; i++) await startInstance(api, apiKey, 'dash-one');
    await startInstance(api, apiKey, 'dash-two');
    const session = await signIn(email);
    const dashboard = async () => (await api.call('GET', '/api/dashboard', { headers: bearer(session) })).json;
    // The figures are the engine's rows, written as its batches commit.
    await eventually(async () => ((await dashboard()).jobsWaiting.length === 2 ? true : undefined), 'the jobs on the dashboard');
    expect(await dashboard()).toMatchObject({
      balance: 996,
      definitions: 2,
      instances: { active: 4, incident: 0, completed: 0, terminated: 0 },
      jobsWaiting: [
        { type: 'dash-other', waiting: 1 },
        { type: 'dash-work', waiting: 3 },
      ],
      usage: { day: { starts: 4, taskCompletions: 0 }, month: { starts: 4, taskCompletions: 0 } },
      saturated: [],
    });
    // The usage windows end at the service's clock: a day later the starts have left the day, not the month.
    offset += 25 * 3_600_000;
    try {
      const later = await signIn(email);
      const moved = (await api.call('GET', '/api/dashboard', { headers: bearer(later) })).json;
      expect(moved.usage).toEqual({ day: { starts: 0, taskCompletions: 0 }, month: { starts: 4, taskCompletions: 0 } });
    } finally {
      offset -= 25 * 3_600_000;
    }
  });

  it('limits sign-in requests per e-mail address', async () => {
    const { email } = await api.newAccount();
    const answers: number[] = [];
    for (let i = 0; i < 7; i++) answers.push((await api.call('POST', '/api/login', { json: { email } })).status);
    // The fixture's budget: bursts of 6 per address.
    expect(answers).toEqual([202, 202, 202, 202, 202, 202, 429]);
    const refused = await api.call('POST', '/api/login', { json: { email } });
    expect(refused.status).toBe(429);
    expect(refused.json.detail).toMatch(/for this e-mail address/);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another address from the same caller is still served.
    expect((await api.call('POST', '/api/login', { json: { email: `other-${Date.now()}@example.org` } })).status).toBe(202);
  });

  // After every other test that tries a code: it empties this caller's budget of tries.
  it('limits code tries per caller address, before any code is looked at', async () => {
    const { email } = await api.newAccount();
    const { code, linkToken } = await mailedCode(email);
    let last;
    let tries = 0;
    // The fixture's budget: bursts of 48 tries (6 × 4 × 2) per caller address, some spent above.
    for (; tries < 100; tries++) {
      last = await api.call('POST', '/api/login/verify', { json: { email: `guess-${tries}@example.org`, code: '00000000' } });
      if (last.status === 429) break;
      expect(last.status).toBe(401);
    }
    expect(tries).toBeLessThan(48);
    expect(last!.json.code).toBe('RATE_LIMITED');
    expect(last!.json.detail).toMatch(/from this caller address/);
    expect(Number(last!.headers.get('retry-after'))).toBeGreaterThan(0);
    // Even the right code is refused now, and opens nothing.
    const right = await api.call('POST', '/api/login/verify', { json: { email, code } });
    expect(right.status).toBe(429);
    expect(Number(right.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(right.json.token).toBeUndefined();
    // The refused tries cost the code nothing: its link still signs in.
    expect((await api.call('POST', '/api/login/link', { json: { token: linkToken } })).status).toBe(200);
  });

  // Last: it empties this caller's sign-in budget.
  it('limits sign-in requests per caller address', async () => {
    let last;
    for (let i = 0; i < 40; i++) {
      last = await api.call('POST', '/api/login', { json: { email: `flood-${i}@example.org` } });
      if (last.status === 429) break;
    }
    expect(last!.status).toBe(429);
    expect(last!.json.code).toBe('RATE_LIMITED');
    expect(last!.json.detail).toMatch(/for this caller address/);
    expect(Number(last!.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
