// Outgoing mail. Every message becomes a row in the mail outbox, the record
// of what was sent and when, which never holds a message's secrets (API
// keys, confirmation tokens: DESIGN §5 keeps them only as hashes); they are
// blanked in the stored copy and travel only to the reader. With SMTP_URL
// the reader's mailbox gets the whole message by nodemailer and the row is
// marked sent. Without it, the embedded default prints the whole message
// once to stdout (`echo`), so a newcomer can follow signup end to end
// without any mail server. With neither there is no one to give a secret
// to: such a message is refused (MailUndeliverableError) and nothing is
// stored, while messages without secrets still go to the outbox and the log.
import nodemailer, { type Transporter } from 'nodemailer';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  /** Substrings that must reach only the reader: never the log, never the stored copy. */
  secrets?: string[];
}

/** A message as printed once in the embedded default, whole. */
export interface EchoedMail {
  id: number;
  to: string;
  subject: string;
  text: string;
}

/** How the embedded default prints a message on the console. */
export function consoleText(mail: EchoedMail): string {
  return `\n--- mail ${mail.id} to ${mail.to}: ${mail.subject}\n${mail.text}\n---\n`;
}

/** No SMTP_URL and no console to print to: a message carrying a secret has no reader. */
export class MailUndeliverableError extends Error {
  override readonly name = 'MailUndeliverableError';
  constructor() {
    super('no SMTP_URL: a message carrying a secret cannot be delivered and is not stored');
  }
}

export interface Mailer {
  readonly mode: 'smtp' | 'outbox';
  /** Stores (without secrets) and delivers; rejects when SMTP refuses (the row then stays unsent) or no one can read a secret. */
  send(message: MailMessage): Promise<{ id: number }>;
  close(): Promise<void>;
}

/** The part of the store the mailer needs (engine/store mailOutboxRepository). */
export interface OutboxStore {
  add(message: { to: string; subject: string; body: string; sentAt?: Date | null }): Promise<number>;
  markSent(id: number, at: Date): Promise<void>;
}

export interface MailerOptions {
  outbox: OutboxStore;
  /** smtp:// or smtps:// URL (nodemailer syntax, query options allowed); absent → outbox only. */
  smtpUrl?: string;
  /** From address; default no-reply@localhost. */
  from?: string;
  /** Operator log; never receives secrets. */
  log?: (fields: Record<string, unknown>, message: string) => void;
  /** Shows whole messages (with their secrets) to their reader — only in the embedded default. */
  echo?: (message: EchoedMail) => void;
  /** SMTP connection and greeting timeouts (ms). */
  timeoutMs?: number;
}

export const REDACTED = '[delivered once, not stored]';

export function redact(text: string, secrets: readonly string[] = []): string {
  let out = text;
  for (const secret of secrets) if (secret !== '') out = out.split(secret).join(REDACTED);
  return out;
}

export function createMailer(options: MailerOptions): Mailer {
  const { outbox, log = () => {}, echo } = options;
  const from = options.from ?? 'Orca <no-reply@localhost>';
  const timeoutMs = options.timeoutMs ?? 10_000;
  let transport: Transporter | undefined;
  if (options.smtpUrl) {
    if (!/^smtps?:\/\//.test(options.smtpUrl)) throw new Error('SMTP_URL must start with smtp:// or smtps://');
    // Timeouts given here apply unless the URL's query sets its own.
    transport = nodemailer.createTransport({ url: options.smtpUrl, connectionTimeout: timeoutMs, greetingTimeout: timeoutMs, socketTimeout: timeoutMs * 3 });
  }

  return {
    mode: transport ? 'smtp' : 'outbox',

    async send(message) {
      if (!transport) {
        if (!echo && (message.secrets ?? []).some((secret) => secret !== '')) {
          log({ to: message.to, subject: message.subject }, 'no SMTP_URL: a message carrying a secret cannot be delivered; set SMTP_URL');
          throw new MailUndeliverableError();
        }
        const id = await outbox.add({ to: message.to, subject: message.subject, body: redact(message.text, message.secrets) });
        log({ mailId: id, to: message.to, subject: message.subject }, 'no SMTP_URL: message stored in the mail_outbox table without its secrets');
        echo?.({ id, to: message.to, subject: message.subject, text: message.text });
        return { id };
      }
      const id = await outbox.add({ to: message.to, subject: message.subject, body: redact(message.text, message.secrets) });
      try {
        await transport.sendMail({ from, to: message.to, subject: message.subject, text: message.text });
      } catch (error) {
        // The SMTP error text may echo the message; log only its code.
        log({ mailId: id, to: message.to, code: (error as { code?: unknown }).code ?? 'unknown' }, 'sending mail failed');
        throw new Error(`sending mail ${id} failed`, { cause: error });
      }
      await outbox.markSent(id, new Date());
      log({ mailId: id, to: message.to, subject: message.subject }, 'mail sent');
      return { id };
    },

    async close() {
      transport?.close();
    },
  };
}
