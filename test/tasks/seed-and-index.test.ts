import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { withTenant } from '../../src/db/client.js';
import { todayIn } from '../../src/lib/periods.js';
import { seedDemoTenant } from '../../src/modules/tenants/demo-seed.js';
import { api, setupTestApp } from '../helpers/app.js';
import { newTenant, newUser, tokenFor } from '../helpers/factories.js';

const ctx = setupTestApp();

describe('demo seed', () => {
  it('gives the demo church tasks (some overdue, some done) and cards on the New people board', async () => {
    const demo = await seedDemoTenant(ctx.db);
    const token = tokenFor(ctx, demo.tenant.id, demo.admin.id);
    const client = api(ctx.app, token);
    const tasks = (await client.get('/api/tasks?limit=100')).json();
    expect(tasks.data.some((x: { overdue: boolean }) => x.overdue)).toBe(true);
    expect(tasks.data.some((x: { status: string }) => x.status === 'Done')).toBe(true);
    const [pipeline] = (await client.get('/api/tasks/pipelines')).json().data;
    const board = (await client.get(`/api/tasks/pipelines/${pipeline.id}/board`)).json();
    const cards = board.steps.reduce((n: number, s: { count: number }) => n + s.count, 0);
    expect(cards).toBeGreaterThanOrEqual(3);
    expect(board.steps.filter((s: { count: number }) => s.count > 0).length).toBeGreaterThan(1);
  });
});

describe('the overdue filter is served by an index', () => {
  it('assignee=me&overdue=true plans on tasks_open_due_idx (today a parameter, row level security on)', async () => {
    const t = await newTenant(ctx);
    const users = [t.admin, await newUser(ctx, t, ['tasks:read']), await newUser(ctx, t, ['tasks:read'])];
    const today = todayIn('UTC');
    await withTenant(ctx.db, t.id, async (tx) => {
      await tx.execute(sql`insert into tasks (tenant_id, title, status, due_date, assignee_user_id, created_by_user_id)
        select ${t.id}, 'T' || g, (array['Open','InProgress','Done','Cancelled'])[1 + g % 4], ${today}::date + (g % 400) - 200,
          (${sql.raw(`array[${users.map((u) => u.id).join(',')}]`)})[1 + g % 3], ${t.admin.id}
        from generate_series(1, 20000) g`);
    });
    await ctx.db.execute(sql`analyze tasks`);
    const plan = await withTenant(ctx.db, t.id, (tx) =>
      tx.execute(sql`explain select id from tasks where tenant_id = ${t.id} and assignee_user_id = ${users[1].id}
        and due_date < ${today}::date and status in ('Open', 'InProgress') order by due_date, id limit 20`));
    const text = (plan as unknown as { rows: Record<string, string>[] }).rows.map((r) => Object.values(r)[0]).join('\n');
    expect(text).toMatch(/tasks_open_due_idx/);
    // And the endpoint agrees with a count in SQL.
    const res = (await api(ctx.app, users[1].token).get('/api/tasks?assignee=me&overdue=true&limit=1')).json();
    const counted = await withTenant(ctx.db, t.id, (tx) => tx.execute(sql`select count(*) as n from tasks where tenant_id = ${t.id}
      and assignee_user_id = ${users[1].id} and due_date < ${today}::date and status in ('Open', 'InProgress')`));
    expect(res.total).toBe(Number((counted as unknown as { rows: { n: string }[] }).rows[0].n));
    expect(res.total).toBeGreaterThan(0);
  });
});
