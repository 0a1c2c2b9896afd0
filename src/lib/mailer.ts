import nodemailer from 'nodemailer';
import type { FastifyBaseLogger } from 'fastify';

export interface Mail {
  to: string;
  subject: string;
  text: string;
  /** Where a recipient's reply goes (a message's sender), else the From address. */
  replyTo?: string;
}

export interface Mailer {
  send(mail: Mail): Promise<void>;
  /** False when mail only goes to the server's log (no SMTP_URL): what it "sends" is Logged, not Sent. */
  readonly delivers: boolean;
  /** Ends kept connections (the app calls it on close). */
  close?(): void;
}

/**
 * SMTP through nodemailer with a connection pool (up to 5 connections, each reused for up to 100
 * messages): a batch of a message's emails does not open a connection per email. `?pool=false`
 * in SMTP_URL turns it off.
 */
export function smtpMailer(smtpUrl: string, from: string): Mailer {
  const url = new URL(smtpUrl);
  if (!url.searchParams.has('pool')) url.searchParams.set('pool', 'true');
  const transport = nodemailer.createTransport(url.toString());
  return {
    delivers: true,
    send: async ({ replyTo, ...mail }) => void (await transport.sendMail({ from, ...mail, ...(replyTo ? { replyTo } : {}) })),
    close: () => transport.close(),
  };
}

/** Without SMTP_URL mail goes to the log, so a developer can follow a reset link locally. */
export function logMailer(log: FastifyBaseLogger): Mailer {
  return { delivers: false, send: async (mail) => log.info({ mail }, 'mail (no SMTP_URL configured)') };
}

/** Tests read what was sent. */
export class MemoryMailer implements Mailer {
  readonly sent: Mail[] = [];
  /** `delivers: false` stands in for the log mailer. */
  constructor(public delivers = true) {}
  async send(mail: Mail): Promise<void> {
    this.sent.push(mail);
  }
}
