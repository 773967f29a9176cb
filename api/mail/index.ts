// Outgoing mail. Every message becomes a row in the mail outbox first. With
// SMTP_URL it is then sent by nodemailer and the row marked sent; the stored
// copy has its secrets (keys, confirmation tokens) blanked, because the mail
// server is the only place they belong. Without SMTP_URL the outbox is the
// mailbox: the row keeps the whole text, the log says a message is waiting,
// and in the embedded default the text is also printed to stdout so a
// newcomer can follow signup end to end without any mail server.
import nodemailer, { type Transporter } from 'nodemailer';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  /** Substrings that must not reach the log, nor the stored copy of a message sent by SMTP. */
  secrets?: string[];
}

export interface Mailer {
  readonly mode: 'smtp' | 'outbox';
  /** Stores and (with SMTP) sends; rejects when SMTP refuses, the row then stays unsent. */
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
  /** Prints whole messages (with their secrets) — only for the embedded default. */
  echo?: (text: string) => void;
  /** SMTP connection and greeting timeouts (ms). */
  timeoutMs?: number;
}

export const REDACTED = '[sent by mail, not stored]';

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
        const id = await outbox.add({ to: message.to, subject: message.subject, body: message.text });
        log({ mailId: id, to: message.to, subject: message.subject }, 'no SMTP_URL: message stored in the mail_outbox table');
        echo?.(`\n--- mail ${id} to ${message.to}: ${message.subject}\n${message.text}\n---\n`);
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
