import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { recordChanges } from '../../src/changes/recorder.js';
import { openDb, withTenant, type AppDb } from '../../src/db/client.js';
import { withDatabase } from '../../src/db/admin.js';
import { MemoryMailer } from '../../src/lib/mailer.js';
import { api, setupTestApp } from '../helpers/app.js';
import { newTenant, type TestTenant } from '../helpers/factories.js';
import { queryRows, startWebhookReceiver, type WebhookReceiver } from '../helpers/notifications.factories.js';

/**
 * Several server processes on one PostgreSQL: each job is taken by exactly one of them, and a
 * process that dies mid-batch loses nothing. PostgreSQL only (PGlite is one embedded process).
 */
const url = process.env.DATABASE_URL;
const ctx = setupTestApp();
const EVENTS = 1000;

async function until(condition: () => boolean | Promise<boolean>, timeoutMs: number) {
  const end = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe.skipIf(!url)('webhooks: two server processes on one PostgreSQL', () => {
  let second: { app: FastifyInstance; appDb: AppDb };
  let receiver: WebhookReceiver;
  let t: TestTenant;
  beforeAll(async () => {
    const [{ name }] = await queryRows<{ name: string }>(ctx, sql`select current_database() as name`);
    const appDb = await openDb({ dataDir: '', databaseUrl: withDatabase(url!, name), poolSize: 5 });
    const app = await buildApp({ config: ctx.config, db: appDb.db, mailer: new MemoryMailer(), logger: false });
    await app.ready();
    second = { app, appDb };
    receiver = await startWebhookReceiver();
    t = await newTenant(ctx);
  });
  afterAll(async () => {
    await ctx.app.worker.stop();
    await second?.app.worker.stop();
    await second?.app.close();
    await second?.appDb.close().catch(() => {});
    await receiver?.close();
  });

  async function fire(count: number, entityBase: number) {
    const items = Array.from({ length: count }, (_, i) => ({ type: 'contact.updated' as const, entityId: entityBase + i, data: { contactId: entityBase + i } }));
    return withTenant(ctx.db, t.id, (tx) => recordChanges(tx, { tenantId: t.id, userId: t.admin.id }, items));
  }

  const distinct = () => new Set(receiver.received.map((r) => r.json.id)).size;

  it(`${EVENTS} changes delivered exactly once each while both workers run`, async () => {
    const hook = (await api(ctx.app, t.admin.token).post('/api/notifications/webhooks', { url: receiver.url, events: ['contact.updated'] })).json();
    receiver.received.length = 0;
    const ids = await fire(EVENTS, 1);
    ctx.app.worker.start();
    second.app.worker.start();
    const started = Date.now();
    await until(() => receiver.received.length >= EVENTS, 120_000);
    const seconds = (Date.now() - started) / 1000;
    await new Promise((r) => setTimeout(r, 500)); // a late duplicate would show up here
    expect(receiver.received).toHaveLength(EVENTS);
    expect(distinct()).toBe(EVENTS);
    expect(new Set(receiver.received.map((r) => r.json.id))).toEqual(new Set(ids));
    const [row] = await queryRows<{ succeeded: string; jobs: string }>(ctx, sql`
      select (select count(*) from webhook_deliveries where tenant_id = ${t.id} and webhook_id = ${hook.id} and status = 'Succeeded') as succeeded,
             (select count(*) from jobs where tenant_id = ${t.id} and kind = 'webhooks.deliver' and status = 'Done') as jobs`);
    expect(Number(row.succeeded)).toBe(EVENTS);
    expect(Number(row.jobs)).toBe(EVENTS);
    console.info(`two workers: ${EVENTS} webhook deliveries in ${seconds.toFixed(1)} s (${Math.round(EVENTS / seconds)}/s)`);
    await ctx.app.worker.stop();
    await second.app.worker.stop();
  }, 180_000);

  it('a process cut off from the database mid-batch loses nothing: its leased jobs are taken again by the other', async () => {
    receiver.received.length = 0;
    const ids = await fire(EVENTS / 2, 10_000);
    ctx.app.worker.start();
    second.app.worker.start();
    await until(() => receiver.received.length >= 50, 60_000);
    // The second process dies: its connections end while its jobs are Running (leased).
    void second.appDb.close().catch(() => {});
    await second.app.worker.stop().catch(() => {});
    // Its leases would expire after 5 minutes; expire them now instead of waiting.
    await ctx.db.execute(sql`update jobs set locked_until = now() where tenant_id = ${t.id} and status = 'Running'`);
    await until(() => distinct() >= EVENTS / 2, 120_000);
    await ctx.app.worker.stop();
    expect(new Set(receiver.received.map((r) => r.json.id))).toEqual(new Set(ids));
    const [row] = await queryRows<{ pending: string }>(ctx, sql`
      select count(*) as pending from webhook_deliveries where tenant_id = ${t.id} and status <> 'Succeeded'`);
    expect(Number(row.pending)).toBe(0);
    // At least once: a job cut off after its POST but before it was marked done is delivered again.
    expect(receiver.received.length).toBeGreaterThanOrEqual(EVENTS / 2);
  }, 180_000);
});
