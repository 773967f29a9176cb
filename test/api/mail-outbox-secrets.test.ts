// The mail outbox keeps no secret (DESIGN §5: keys only as hashes). Without
// SMTP_URL a message is shown whole once to its reader — the console of the
// embedded default (here, the fixture reads what it would print) — and the
// outbox row has the link's token and the API key blanked. With no reader
// at all (Postgres, no SMTP_URL) a message carrying a secret is refused and
// nothing is stored: signup answers 503 saying mail is not set up.
import { afterAll, describe, expect, it } from 'vitest';
import { REDACTED } from '../../api/mail/index.ts';
import { apiFixture, type ApiFixture } from './api-fixture.ts';
import { expectProblem } from './hostile-support.ts';

const KEY = /orca_[A-Za-z0-9_-]{43}/;
const TOKEN = /orcas_[A-Za-z0-9_-]{43}/;
const LINK = /https?:\/\/\S+\/api\/signup\/confirm\?token=\S+/;

const fixtures: ApiFixture[] = [];
afterAll(() => Promise.all(fixtures.map((f) => f.close())));

async function fixture(overrides: Parameters<typeof apiFixture>[0] = {}): Promise<ApiFixture> {
  const api = await apiFixture(overrides);
  fixtures.push(api);
  return api;
}

async function confirm(api: ApiFixture, link: string) {
  const url = new URL(link);
  return api.call('GET', url.pathname + url.search);
}

describe('with a reader and no SMTP_URL', () => {
  it('shows the link and the key once, and stores both messages without them', async () => {
    const api = await fixture();
    const email = 'reader@example.com';
    expect((await api.call('POST', '/api/signup', { json: { email } })).status).toBe(202);
    const link = LINK.exec(api.mail(email)[0].text)![0];
    expect((await confirm(api, link)).status).toBe(200);
    const apiKey = KEY.exec(api.mail(email)[0].text)![0];
    expect((await api.call('GET', '/api/v1/account', { apiKey })).status).toBe(200);

    const rows = await api.outbox(email);
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(row.body).not.toMatch(KEY);
      expect(row.body).not.toMatch(TOKEN);
      expect(row.body).not.toContain(apiKey);
      expect(row.body).toContain(REDACTED);
    }
    // Nothing anywhere in the table holds the key.
    const all = await api.outbox();
    expect(all.some((row) => row.body.includes(apiKey))).toBe(false);
  });
});

describe('with the default reader of the backend in use', () => {
  it(
    process.env.DATABASE_URL
      ? 'on Postgres without SMTP_URL: signup is 503 and no secret is stored'
      : 'in the embedded default: the outbox still holds no secret',
    async () => {
      const api = await fixture({ mailEcho: undefined });
      const email = 'nobody-reads@example.com';
      const signup = await api.call('POST', '/api/signup', { json: { email } });
      if (process.env.DATABASE_URL) {
        expectProblem(signup, 503);
        expect(signup.json.detail).toMatch(/SMTP_URL/);
        expect(await api.outbox(email)).toEqual([]);
      } else {
        expect(signup.status).toBe(202);
        const [row] = await api.outbox(email);
        expect(row.body).not.toMatch(TOKEN);
        expect(row.body).toContain(REDACTED);
      }
      // A message without secrets (an already registered address) is stored as ever.
      const { email: known } = await api.newAccount();
      expect((await api.call('POST', '/api/signup', { json: { email: known } })).status).toBe(202);
      expect((await api.outbox(known))[0].body).toMatch(/already has one/);
    },
  );
});
