// Fresh accounts the way a newcomer gets one: POST /api/signup, the
// confirmation link from the mail, then the API key from the welcome mail.
// The mail arrives at a small SMTP server in this process (smtp-server on
// loopback) that the Orca server under test is pointed at with SMTP_URL; it
// keeps only messages for addresses someone is waiting for, so the fuzzer's
// own signups with made-up addresses cost nothing.
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

const KEY = /orca_[A-Za-z0-9_-]{20,}/;
const CONFIRM = /\/api\/signup\/confirm\?token=([A-Za-z0-9_-]+)/;

/** Decodes the single-part text/plain messages nodemailer sends (7bit, quoted-printable or base64). */
export function mailText(raw: string): string {
  const split = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ');
  const body = raw.slice(split + 4);
  const encoding = /^Content-Transfer-Encoding:\s*(.*)$/im.exec(head)?.[1].trim().toLowerCase() ?? '';
  if (encoding === 'base64') return Buffer.from(body, 'base64').toString('utf8');
  if (encoding === 'quoted-printable') {
    return Buffer.from(
      body.replace(/=\r\n/g, '').replace(/=([0-9A-F]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))),
      'latin1',
    ).toString('utf8');
  }
  return body;
}

export class MailSink {
  private readonly inbox = new Map<string, string[]>();
  private readonly waiters = new Set<() => void>();
  private readonly server: SMTPServer;
  private port = 0;

  private constructor() {
    this.server = new SMTPServer({
      disabledCommands: ['AUTH', 'STARTTLS'],
      authOptional: true,
      logger: false,
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          this.deliver(
            session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
            mailText(Buffer.concat(chunks).toString('utf8')),
          );
          callback();
        });
      },
    });
  }

  static async start(port = 0): Promise<MailSink> {
    const sink = new MailSink();
    sink.server.listen(port, '127.0.0.1');
    await once(sink.server.server, 'listening');
    sink.port = (sink.server.server.address() as AddressInfo).port;
    return sink;
  }

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  /** Starts keeping mail for `address`. */
  expect(address: string): void {
    this.inbox.set(address.toLowerCase(), []);
  }

  /** The first message to `address` matching `pattern` (its match), within `timeoutMs`. */
  async waitFor(address: string, pattern: RegExp, timeoutMs: number): Promise<RegExpExecArray> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      for (const text of this.inbox.get(address.toLowerCase()) ?? []) {
        const match = pattern.exec(text);
        if (match) return match;
      }
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no mail to ${address} matching ${pattern} within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, Math.min(left, 250));
        function done() {
          clearTimeout(timer);
          resolve();
        }
        this.waiters.add(done);
      });
    }
  }

  forget(address: string): void {
    this.inbox.delete(address.toLowerCase());
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private deliver(to: string[], text: string): void {
    for (const address of to) this.inbox.get(address)?.push(text);
    for (const wake of this.waiters) wake();
    this.waiters.clear();
  }
}

/** Signs up `email` on the server at `baseUrl` and returns the API key the welcome mail carries. */
export async function signUp(baseUrl: string, sink: MailSink, email: string, timeoutMs = 15_000): Promise<string> {
  sink.expect(email);
  try {
    const signup = await fetch(`${baseUrl}/api/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (signup.status !== 202) throw new Error(`signup answered ${signup.status}: ${await signup.text()}`);
    await signup.arrayBuffer().catch(() => undefined);
    const [, token] = await sink.waitFor(email, CONFIRM, timeoutMs);
    const confirm = await fetch(`${baseUrl}/api/signup/confirm?token=${token}`, { signal: AbortSignal.timeout(timeoutMs) });
    if (confirm.status !== 200) throw new Error(`confirming the signup answered ${confirm.status}: ${await confirm.text()}`);
    await confirm.arrayBuffer();
    const [key] = await sink.waitFor(email, KEY, timeoutMs);
    return key;
  } finally {
    sink.forget(email);
  }
}
