import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { withTenant } from '../../src/db/client.js';
import { api, setupTestApp } from '../helpers/app.js';
import { newTenant } from '../helpers/factories.js';
import { newGroup } from '../helpers/groups.factories.js';
import { queryRows } from '../helpers/notifications.factories.js';

const ctx = setupTestApp();
const N = 5000;

describe('messages at scale', () => {
  it(`queues an email to ${N} recipients (a group) in one request (< 2 s on PostgreSQL), without sending anything yet`, async () => {
    const t = await newTenant(ctx);
    const group = await newGroup(ctx, t, { name: 'Everyone', category: 'Church' });
    // The audience in bulk, straight in SQL: N people with an email, every 10th opted out, each a member.
    await withTenant(ctx.db, t.id, async (tx) => {
      await tx.execute(sql`
        with c as (
          insert into contacts (tenant_id, category, sort_last, sort_first, email_opt_out)
          select ${t.id}, 'Person', 'Bulk', 'P' || g, g % 10 = 0 from generate_series(1, ${N}) g
          returning id, sort_first
        ), p as (
          insert into persons (tenant_id, contact_id, first_name, last_name) select ${t.id}, id, sort_first, 'Bulk' from c
        ), e as (
          insert into contact_emails (tenant_id, contact_id, value, is_primary) select ${t.id}, id, lower(sort_first) || '@example.org', true from c
        )
        insert into group_memberships (tenant_id, group_id, contact_id) select ${t.id}, ${group.id}, id from c`);
    });
    const started = performance.now();
    const res = await api(ctx.app, t.admin.token).post('/api/notifications/messages', {
      audience: { groupIds: [group.id] }, subject: 'News for {{firstName}}', body: 'Dear {{firstName}}, …',
    });
    const ms = performance.now() - started;
    expect(res.statusCode).toBe(202);
    expect(res.json()).toMatchObject({ status: 'Queued', recipientCount: N - N / 10, skipped: { noEmail: 0, optedOut: N / 10 } });
    console.info(`messages: ${N} recipients queued in ${Math.round(ms)} ms`);
    // The target (< 2 s) holds on PostgreSQL (~0.6 s measured on the shared 2-core box); embedded
    // PGlite (single-threaded WebAssembly) took ~2.4 s there, so it gets a looser bound.
    expect(ms).toBeLessThan(process.env.DATABASE_URL ? 2000 : 6000);
    const [row] = await queryRows<{ n: string }>(ctx, sql`select count(*) as n from message_deliveries where tenant_id = ${t.id} and status = 'Queued'`);
    expect(Number(row.n)).toBe(N - N / 10);
    expect(ctx.mailer.sent).toHaveLength(0);
  }, 60_000);

  it('the unread count reads the partial index of unread notifications', async () => {
    const t = await newTenant(ctx);
    await ctx.db.execute(sql`insert into notifications (tenant_id, user_id, type, title, body, read_at)
      select ${t.id}, ${t.admin.id}, 'task.assigned', 'x', 'y', case when g % 50 = 0 then null else now() end from generate_series(1, 20000) g`);
    await ctx.db.execute(sql`analyze notifications`);
    const started = performance.now();
    const res = await api(ctx.app, t.admin.token).get('/api/notifications/unread-count');
    const ms = performance.now() - started;
    expect(res.json()).toEqual({ count: 400 });
    console.info(`notifications: unread count of 20,000 rows (400 unread) in ${ms.toFixed(1)} ms`);
    const plan = await queryRows<Record<string, string>>(ctx, sql`explain select count(*) from notifications
      where tenant_id = ${t.id} and user_id = ${t.admin.id} and read_at is null`);
    expect(plan.map((r) => Object.values(r)[0]).join('\n')).toMatch(/notifications_unread_idx/);
  });
});
