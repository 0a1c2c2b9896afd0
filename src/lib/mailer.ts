import nodemailer from 'nodemailer';
import type { FastifyBaseLogger } from 'fastify';

export interface Mail {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  send(mail: Mail): Promise<void>;
}

export function smtpMailer(smtpUrl: string, from = 'Parish <no-reply@parish.local>'): Mailer {
  const transport = nodemailer.createTransport(smtpUrl);
  return { send: async (mail) => void (await transport.sendMail({ from, ...mail })) };
}

/** Without SMTP_URL mail goes to the log, so a developer can follow a reset link locally. */
export function logMailer(log: FastifyBaseLogger): Mailer {
  return { send: async (mail) => log.info({ mail }, 'mail (no SMTP_URL configured)') };
}

/** Tests read what was sent. */
export class MemoryMailer implements Mailer {
  readonly sent: Mail[] = [];
  async send(mail: Mail): Promise<void> {
    this.sent.push(mail);
  }
}
