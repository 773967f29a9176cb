// A real SMTP server (smtp-server) in this process on a loopback port, for
// tests of what the service mails: it keeps every message it accepts, as
// the reader's mail client would show it.
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  to: string[];
  subject: string;
  text: string;
}

/** Decodes the single-part text/plain messages nodemailer sends (7bit or quoted-printable). */
export function parseMessage(raw: string): { subject: string; text: string } {
  const split = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ');
  const body = raw.slice(split + 4);
  const header = (name: string) => new RegExp(`^${name}:\\s*(.*)$`, 'im').exec(head)?.[1].trim() ?? '';
  const text = /quoted-printable/i.test(header('Content-Transfer-Encoding'))
    ? Buffer.from(
        body.replace(/=\r\n/g, '').replace(/=([0-9A-F]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))),
        'latin1',
      ).toString('utf8')
    : body;
  return { subject: header('Subject'), text: text.replace(/\r\n/g, '\n') };
}

export interface SmtpPeer {
  url: string;
  inbox: ReceivedMail[];
  /** The newest message to `address`, waiting up to 5 s for it to arrive after `since` messages. */
  next(address: string, since: number): Promise<ReceivedMail>;
  /** Messages received so far for `address`. */
  count(address: string): number;
  close(): Promise<void>;
}

export async function smtpPeer(): Promise<SmtpPeer> {
  const inbox: ReceivedMail[] = [];
  const server = new SMTPServer({
    disabledCommands: ['AUTH', 'STARTTLS'],
    authOptional: true,
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        inbox.push({ to: session.envelope.rcptTo.map((r) => r.address), ...parseMessage(Buffer.concat(chunks).toString('utf8')) });
        callback();
      });
    },
  });
  server.listen(0, '127.0.0.1');
  await once(server.server, 'listening');
  const { port } = server.server.address() as AddressInfo;
  const of = (address: string) => inbox.filter((m) => m.to.includes(address));
  return {
    url: `smtp://127.0.0.1:${port}`,
    inbox,
    count: (address) => of(address).length,
    async next(address, since) {
      for (let i = 0; i < 200 && of(address).length <= since; i++) await new Promise((r) => setTimeout(r, 25));
      const mine = of(address);
      if (mine.length <= since) throw new Error(`no new mail for ${address}`);
      return mine[mine.length - 1];
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
