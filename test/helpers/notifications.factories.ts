import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll } from 'vitest';
import { buildApp } from '../../src/app.js';
import type { Config } from '../../src/config.js';
import { MemoryMailer } from '../../src/lib/mailer.js';
import { testConfig, type TestContext } from './app.js';
import { newPerson } from './contacts.factories.js';
import type { TestTenant } from './factories.js';

/** Real receivers on loopback for the notifications tests: an HTTP webhook receiver and an SMTP server. */

export interface ReceivedRequest {
  headers: http.IncomingHttpHeaders;
  raw: string;
  json: Record<string, unknown> & { id: number; type: string; occurredAt: string; tenant: string; data: Record<string, unknown> };
}

export interface WebhookReceiver {
  url: string;
  received: ReceivedRequest[];
  /** The status to answer the next requests with (default 200; 0 never answers); a function decides per request. */
  respond: (status: number | ((req: ReceivedRequest) => number)) => void;
  close: () => Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedRequest[] = [];
  let decide: (req: ReceivedRequest) => number = () => 200;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const entry = { headers: req.headers, raw, json: JSON.parse(raw) };
      received.push(entry);
      const status = decide(entry);
      if (status === 0) return; // hang: never answer
      res.statusCode = status;
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    respond: (status) => {
      decide = typeof status === 'number' ? () => status : status;
    },
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** Verifies `Parish-Signature: t=…,v1=…` as a receiver would: HMAC-SHA256 of "<t>.<raw body>". */
export function verifySignature(header: string | string[] | undefined, raw: string, secret: string, toleranceSeconds = 300): boolean {
  if (typeof header !== 'string') return false;
  const parts = Object.fromEntries(header.split(',').map((p) => p.split('=', 2) as [string, string]));
  const t = Number(parts.t);
  if (!Number.isInteger(t) || Math.abs(Date.now() / 1000 - t) > toleranceSeconds || !parts.v1) return false;
  const expected = crypto.createHmac('sha256', secret).update(`${t}.${raw}`).digest();
  const given = Buffer.from(parts.v1, 'hex');
  return given.length === expected.length && crypto.timingSafeEqual(given, expected);
}

export interface ReceivedMail {
  from: string;
  to: string[];
  subject: string;
  text: string;
  raw: string;
}

export interface SmtpReceiver {
  url: string;
  mails: ReceivedMail[];
  /** Makes the server refuse the recipients matching the predicate at RCPT TO (550 by default; 451 is "try later"). */
  refuse: (predicate: (address: string) => boolean, code?: number) => void;
  close: () => Promise<void>;
}

function decodeQuotedPrintable(text: string): string {
  const bytes = text.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

function parseMail(raw: string, envelope: { from: string; to: string[] }): ReceivedMail {
  const split = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ');
  let body = raw.slice(split + 4);
  const header = (name: string) => new RegExp(`^${name}:\\s*(.*)$`, 'im').exec(head)?.[1] ?? '';
  const encoding = header('Content-Transfer-Encoding').toLowerCase();
  if (encoding === 'quoted-printable') body = decodeQuotedPrintable(body);
  if (encoding === 'base64') body = Buffer.from(body, 'base64').toString('utf8');
  let subject = header('Subject');
  subject = subject.replace(/=\?utf-8\?Q\?(.*?)\?=/gi, (_, q: string) => decodeQuotedPrintable(q.replace(/_/g, ' ')));
  return { ...envelope, subject, text: body.replace(/\r\n$/, ''), raw };
}

/** A real SMTP server on 127.0.0.1 (no TLS, no auth): what nodemailer sends lands in `mails`. */
export async function startSmtpReceiver(): Promise<SmtpReceiver> {
  const mails: ReceivedMail[] = [];
  let refused: (address: string) => boolean = () => false;
  let refusalCode = 550;
  const server = new SMTPServer({
    secure: false,
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    disableReverseLookup: true,
    logger: false,
    onRcptTo(address, _session, callback) {
      if (refused(address.address)) return callback(Object.assign(new Error(refusalCode >= 500 ? 'Mailbox unavailable' : 'Try again later'), { responseCode: refusalCode }));
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const envelope = {
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
        };
        mails.push(parseMail(Buffer.concat(chunks).toString('utf8'), envelope));
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    refuse: (predicate, code = 550) => {
      refused = predicate;
      refusalCode = code;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * Like setupTestApp, but the app mails through a real SMTP server on loopback: it is built with
 * `smtpUrl` pointing there and no mailer of its own, so src/app.ts makes the nodemailer transport.
 * `ctx.mailer` is an unused MemoryMailer (kept for the TestContext shape); read `smtp.mails`.
 */
export function setupSmtpTestApp(overrides: Partial<Config> = {}): TestContext & { smtp: SmtpReceiver } {
  const ctx = {} as TestContext & { smtp: SmtpReceiver };
  beforeAll(async () => {
    const { createTestDb } = await import('./db.js');
    const smtp = await startSmtpReceiver();
    const appDb = await createTestDb();
    const config = testConfig({ ...overrides, smtpUrl: smtp.url });
    const app = await buildApp({ config, db: appDb.db, logger: false });
    await app.ready();
    Object.assign(ctx, { app, appDb, db: appDb.db, mailer: new MemoryMailer(), config, smtp });
  });
  afterAll(async () => {
    await ctx.app?.close();
    await ctx.appDb?.close();
    await ctx.smtp?.close();
  });
  return ctx;
}

/** Makes every pending job of `kind` (optionally matching a payload key) due now: skips a backoff wait. */
export async function makeJobsDue(ctx: TestContext, kind: string, payloadKey?: string, value?: number): Promise<number> {
  const res = await ctx.db.execute(sql`update jobs set run_at = now() where kind = ${kind} and status = 'Pending'
    ${payloadKey ? sql`and payload->>${payloadKey} = ${String(value)}` : sql``} returning id`);
  return (res as unknown as { rows: unknown[] }).rows.length;
}

/** Rows of a raw query (tests read tables the API does not expose, e.g. jobs). */
export async function queryRows<T = Record<string, unknown>>(ctx: TestContext, query: ReturnType<typeof sql>): Promise<T[]> {
  return ((await ctx.db.execute(query)) as unknown as { rows: T[] }).rows;
}

/** A person with `email` as their primary email (none without it); `extra` as the contact body takes it (`emailOptOut` …). */
export async function newRecipient(ctx: TestContext, t: TestTenant, firstName: string, lastName: string, email?: string, extra: Record<string, unknown> = {}): Promise<number> {
  return (await newPerson(ctx, t, firstName, lastName, { ...(email ? { emails: [{ value: email, isPrimary: true }] } : {}), ...extra })).id as number;
}

/** The tenant's leaders may send messages: its Leader role gains `notifications:send`. */
export async function letLeadersSend(ctx: TestContext, t: { id: number }): Promise<void> {
  await ctx.db.execute(sql`update roles set permissions = permissions || '{notifications:send}'::text[] where tenant_id = ${t.id} and name = 'Leader'`);
}
