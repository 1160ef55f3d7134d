// Outgoing mail (invitations and digests; verification and reset links later): one module on nodemailer.
// With SMTP_URL, mail goes through that server. Without it, each message is written as an .eml
// file under MAIL_DIR (./data/mail by default) and the log says where, so a fresh `npm start`
// needs no mail server (docs/operating.md#mail).
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import nodemailer, { type Transporter } from 'nodemailer';
import type { Logger } from 'pino';

export interface MailSettings {
  /** SMTP_URL: `smtp://user:pass@host:587` or `smtps://...`; null: write files. */
  smtpUrl: string | null;
  /** MAIL_FROM: the sender of every message. */
  from: string;
  /** MAIL_DIR: where messages are written when there is no SMTP_URL. */
  dir: string;
}

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
  /** Extra header fields (e.g. `List-Unsubscribe`), sent as given. */
  headers?: Record<string, string>;
  /** A Message-ID of the caller's, `<...@...>`: the same message sent again keeps it, so receivers can tell. */
  messageId?: string;
}

export interface SentMail {
  messageId: string;
  /** The file the message was written to, when there is no SMTP server; else null. */
  file: string | null;
}

/** Sends mail through SMTP, or writes it to files; the one way any process sends mail. */
export class Mailer {
  private readonly transport: Transporter;

  constructor(
    private readonly settings: MailSettings,
    private readonly log: Logger,
  ) {
    // streamTransport with buffer: the whole RFC 5322 message, exactly as SMTP would carry it.
    this.transport = settings.smtpUrl ? nodemailer.createTransport(settings.smtpUrl) : nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  }

  get mode(): 'smtp' | 'files' {
    return this.settings.smtpUrl ? 'smtp' : 'files';
  }

  async send(message: MailMessage): Promise<SentMail> {
    const info = await this.transport.sendMail({ from: this.settings.from, to: message.to, subject: message.subject, text: message.text, html: message.html, headers: message.headers, messageId: message.messageId });
    if (this.settings.smtpUrl) {
      this.log.info({ messageId: info.messageId, subject: message.subject }, 'mail sent');
      return { messageId: info.messageId, file: null };
    }
    fs.mkdirSync(this.settings.dir, { recursive: true, mode: 0o700 });
    const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${crypto.randomBytes(4).toString('hex')}.eml`;
    const file = path.resolve(this.settings.dir, name);
    // Mail can carry single-use links: readable by this user only.
    fs.writeFileSync(file, (info as unknown as { message: Buffer }).message, { mode: 0o600 });
    this.log.info({ messageId: info.messageId, subject: message.subject, file }, `mail written to ${file} (no SMTP_URL set)`);
    return { messageId: info.messageId, file };
  }

  close(): void {
    this.transport.close();
  }
}
