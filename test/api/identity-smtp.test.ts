// Signup delivered by a real SMTP server (smtp-server, in this process on a
// random port): the confirmation link and then the API key arrive as mail,
// the outbox keeps a record without either secret, and a welcome message
// the server refuses withdraws its key and leaves the link usable.
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { rows } from '../../engine/store/index.ts';
import { apiFixture, type ApiFixture } from './api-fixture.ts';
import { parseMessage } from './smtp-peer.ts';

const KEY = /orca_[A-Za-z0-9_-]{43}/;
const LINK = /(http:\/\/\S+\/api\/signup\/confirm\?token=(orcas_[A-Za-z0-9_-]{43}))/;

interface Received {
  from: string;
  to: string[];
  subject: string;
  text: string;
}

const inbox: Received[] = [];
// Set to make the server refuse the next message (a 5xx after DATA).
let refuseNext = false;

const smtp = new SMTPServer({
  disabledCommands: ['AUTH', 'STARTTLS'],
  authOptional: true,
  logger: false,
  onData(stream, session, callback) {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => {
      if (refuseNext) {
        refuseNext = false;
        const error = new Error('mailbox unavailable') as Error & { responseCode: number };
        error.responseCode = 550;
        callback(error);
        return;
      }
      const { subject, text } = parseMessage(Buffer.concat(chunks).toString('utf8'));
      inbox.push({
        from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
        to: session.envelope.rcptTo.map((r) => r.address),
        subject,
        text,
      });
      callback();
    });
  },
});

let api: ApiFixture;

beforeAll(async () => {
  smtp.listen(0, '127.0.0.1');
  await once(smtp.server, 'listening');
  const { port } = smtp.server.address() as AddressInfo;
  api = await apiFixture({ config: { mail: { smtpUrl: `smtp://127.0.0.1:${port}`, from: 'Orca <orca@example.org>' } } });
}, 120_000);

afterAll(async () => {
  await api?.close();
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
});

function mailsTo(address: string): Received[] {
  return inbox.filter((m) => m.to.includes(address));
}

async function confirm(link: string) {
  const url = new URL(link);
  return api.call('GET', url.pathname + url.search);
}

it('mails the confirmation link, then the API key, and keeps no secret in the outbox', async () => {
  const email = 'smtp-user@example.com';
  const signup = await api.call('POST', '/api/signup', { json: { email } });
  expect(signup.status).toBe(202);

  expect(mailsTo(email)).toHaveLength(1);
  const [confirmation] = mailsTo(email);
  expect(confirmation.from).toBe('orca@example.org');
  expect(confirmation.subject).toMatch(/confirm/i);
  const [, link, token] = LINK.exec(confirmation.text) ?? [];
  expect(link?.startsWith(`${api.baseUrl}/api/signup/confirm?token=`)).toBe(true);

  const confirmed = await confirm(link);
  expect(confirmed.status).toBe(200);
  expect(confirmed.text).not.toMatch(KEY);

  expect(mailsTo(email)).toHaveLength(2);
  const welcome = mailsTo(email)[1];
  expect(welcome.subject).toMatch(/welcome/i);
  const apiKey = KEY.exec(welcome.text)?.[0] as string;
  expect(apiKey).toBeDefined();

  const me = await api.call('GET', '/api/v1/account', { apiKey });
  expect(me.status).toBe(200);
  expect(me.json).toMatchObject({ email, balance: 1000 });

  const outbox = await api.outbox(email);
  expect(outbox).toHaveLength(2);
  for (const row of outbox) {
    expect(row.sentAt).toBeInstanceOf(Date);
    expect(row.body).not.toContain(apiKey);
    expect(row.body).not.toContain(token);
  }
});

it('withdraws the key of a welcome message the server refused, and the same link works again', async () => {
  const email = 'refused@example.com';
  expect((await api.call('POST', '/api/signup', { json: { email } })).status).toBe(202);
  const [, link] = LINK.exec(mailsTo(email)[0].text) ?? [];

  refuseNext = true;
  const failed = await confirm(link);
  expect(failed.status).toBe(503);
  expect(failed.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(failed.headers.get('retry-after')).toBe('60');
  expect(failed.json).toMatchObject({ status: 503, code: 'UNAVAILABLE' });
  expect(mailsTo(email)).toHaveLength(1);

  const retried = await confirm(link);
  expect(retried.status).toBe(200);
  const apiKey = KEY.exec(mailsTo(email)[1].text)?.[0] as string;
  const me = await api.call('GET', '/api/v1/account', { apiKey });
  expect(me.status).toBe(200);
  expect(me.json.email).toBe(email);

  // One account for the address; the withdrawn key is retired, the mailed one is not.
  expect(await api.engine.store.identity.accountOfEmail(email)).toBe(me.json.account);
  const keys = await rows<{ retired_at: Date | null }>(
    api.engine.store.db,
    sql`select retired_at from api_keys where account = ${me.json.account} order by created_at`,
  );
  expect(keys.map((k) => k.retired_at === null)).toEqual([false, true]);
  expect((await confirm(link)).status).toBe(409);
});

it('answers 503 when the confirmation message cannot be sent', async () => {
  refuseNext = true;
  const res = await api.call('POST', '/api/signup', { json: { email: 'unlucky@example.com' } });
  expect(res.status).toBe(503);
  expect(res.json).toMatchObject({ code: 'UNAVAILABLE' });
  expect(mailsTo('unlucky@example.com')).toHaveLength(0);
});
