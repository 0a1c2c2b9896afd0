/**
 * Issue 35's email-job figure: one message to N recipients (default 100,000), sent to the end by the
 * message job (`messages.jobs.ts`, 50 recipients a run) with an in-memory mailer, on PostgreSQL. It
 * prints the time of each tenth of the queue: a linear job takes about the same time for every
 * tenth; the count of the remaining queue it made per batch before made the first tenths the slowest.
 *
 *   npx tsx bench/message-send.ts [--recipients 100000] [--database-url postgres://postgres@127.0.0.1:5432/postgres]
 *
 * It makes (and drops afterwards) a scratch database `parish_messages_<pid>` next to the given one.
 */
import { parseArgs } from 'node:util';
import { sql } from 'drizzle-orm';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { adminQuery, withDatabase } from '../src/db/admin.js';
import { openDb, withTenant } from '../src/db/client.js';
import { migrate } from '../src/db/migrate.js';
import { MemoryMailer } from '../src/lib/mailer.js';
import { messageSendJob } from '../src/modules/notifications/messages.jobs.js';
import { createTenant } from '../src/provisioning/create-tenant.js';

const { values } = parseArgs({
  options: {
    recipients: { type: 'string', default: '100000' },
    'database-url': { type: 'string', default: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' },
  },
});
const n = Number(values.recipients);
const baseUrl = values['database-url']!;
const name = `parish_messages_${process.pid}`;

await adminQuery(baseUrl, `CREATE DATABASE ${name}`);
const appDb = await openDb({ dataDir: '', databaseUrl: withDatabase(baseUrl, name), poolSize: 4 });
try {
  await migrate(appDb);
  const db = appDb.db;
  const config = loadConfig({ NODE_ENV: 'development', JWT_SECRET: 'bench-secret-that-is-long-enough-for-hs256-0', DATA_DIR: '/nonexistent', LOG_LEVEL: 'warn' });
  const mailer = new MemoryMailer();
  const app = await buildApp({ config, db, mailer, logger: false });
  await app.ready();
  const { tenant, admin } = await createTenant(db, { slug: 'messages', name: 'Messages Church', adminUsername: 'admin', adminPassword: 'bench-password-123' });
  const messageId = await withTenant(db, tenant.id, async (tx) => {
    const [m] = ((await tx.execute(sql`
      insert into messages (tenant_id, channel, subject, body, status, recipient_count, created_by)
      values (${tenant.id}, 'Email', 'News', 'Dear {{firstName}}', 'Queued', ${n}, ${admin.id}) returning id`)) as unknown as { rows: { id: string }[] }).rows;
    await tx.execute(sql`
      with c as (
        insert into contacts (tenant_id, category, sort_last, sort_first)
        select ${tenant.id}, 'Person', 'Bulk', 'P' || g from generate_series(1, ${n}) g returning id, sort_first
      ), p as (
        insert into persons (tenant_id, contact_id, first_name, last_name) select ${tenant.id}, id, sort_first, 'Bulk' from c
      )
      insert into message_deliveries (tenant_id, message_id, contact_id, email, status)
      select ${tenant.id}, ${m.id}, id, lower(sort_first) || '@example.org', 'Queued' from c`);
    return Number(m.id);
  });
  await db.execute(sql`analyze`);
  // The job as the worker would hand it over: each run queues the next with where it stopped.
  let payload: Record<string, unknown> = { messageId };
  const ctx = { db, mailer, config, log: app.log };
  const tenth = n / 10;
  const laps: number[] = [];
  let lap = performance.now();
  const started = lap;
  while (mailer.sent.length < n) {
    await messageSendJob.run!({ tenantId: tenant.id, id: 0, kind: 'messages.send', payload, attempts: 1, maxAttempts: 5 }, ctx);
    const [queued] = ((await db.execute(sql`select payload from jobs where kind = 'messages.send' order by id desc limit 1`)) as unknown as { rows: { payload: Record<string, unknown> }[] }).rows;
    if (queued) payload = queued.payload;
    if (mailer.sent.length >= (laps.length + 1) * tenth) {
      const now = performance.now();
      laps.push(now - lap);
      lap = now;
    }
  }
  const total = performance.now() - started;
  const [status] = ((await db.execute(sql`select status, sent from messages where id = ${messageId}`)) as unknown as { rows: { status: string; sent: number }[] }).rows;
  console.log(`${n} recipients in ${(total / 1000).toFixed(1)} s (${Math.round(n / (total / 1000))}/s); message ${status.status}, sent ${status.sent}`);
  console.log(`each tenth (s): ${laps.map((l) => (l / 1000).toFixed(2)).join(' ')}`);
  await app.close();
} finally {
  await appDb.close();
  await adminQuery(baseUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
}
