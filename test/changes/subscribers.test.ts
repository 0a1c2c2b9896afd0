import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { dispatchChanges, type ChangeSubscriber } from '../../src/changes/subscribers.js';
import { createWorker } from '../../src/jobs/worker.js';
import { api, setupTestApp } from '../helpers/app.js';
import { newTenant, type TestTenant } from '../helpers/factories.js';
import { rows } from './helpers.js';

/**
 * The change feed's delivery (src/changes/subscribers.ts) seen from a test consumer that writes what
 * it saw into its own table: at least once delivery, exactly once effect, order per tenant.
 */
describe('change subscribers', () => {
  const ctx = setupTestApp();
  /** Every call of the consumer (a change handled again after a failure shows up twice here). */
  const calls: number[] = [];
  const failOn = new Set<number>();
  const crashOn = new Set<number>();
  const breakConnectionOn = new Set<number>();

  const consumer = (name: string): ChangeSubscriber => ({
    name,
    async handle(tx, change) {
      calls.push(change.id);
      await tx.execute(sql`insert into test_seen (consumer, tenant_id, change_id, type) values (${name}, ${change.tenantId}, ${change.id}, ${change.type})`);
      if (failOn.has(change.id)) throw new Error(`consumer failed on change ${change.id}`);
      if (crashOn.delete(change.id)) {
        // The transaction is lost mid-batch (as when the process dies): its savepoint is gone, so the
        // dispatcher cannot recover it and the whole batch's transaction rolls back.
        await tx.execute(sql`release savepoint dispatch_change`);
        throw new Error('crash');
      }
      if (breakConnectionOn.delete(change.id)) {
        const [{ pid }] = ((await tx.execute(sql`select pg_backend_pid() as pid`)) as unknown as { rows: { pid: number }[] }).rows;
        // A pooled client that loses its connection while checked out emits 'error' with no listener
        // (pg-pool listens only on idle clients): the process would crash. See the report of issue 11.
        (tx as unknown as { $client: { on(event: string, fn: () => void): void } }).$client.on('error', () => {});
        await ctx.db.execute(sql`select pg_terminate_backend(${pid})`);
        await tx.execute(sql`select 1`);
      }
    },
  });

  const seen = (tenantId: number, name = 'probe') =>
    rows<{ change_id: string | number; n: string | number }>(ctx, sql`select change_id, count(*) as n from test_seen
      where tenant_id = ${tenantId} and consumer = ${name} group by change_id order by change_id`);
  const changeIds = async (tenantId: number) =>
    (await rows<{ id: string | number }>(ctx, sql`select id from changes where tenant_id = ${tenantId} order by id`)).map((r) => Number(r.id));
  const queued = async (tenantId: number) =>
    (await rows<{ change_id: string | number; attempts: number }>(ctx, sql`select change_id, attempts from change_queue where tenant_id = ${tenantId} order by change_id`))
      .map((r) => ({ changeId: Number(r.change_id), attempts: r.attempts }));
  const makeDue = () => ctx.db.execute(sql`update change_queue set available_at = now()`);

  async function contactsIn(tenant: TestTenant, n: number, tag: string) {
    const res = await api(ctx.app, tenant.admin.token).post('/api/crm/contacts/import', {
      contacts: Array.from({ length: n }, (_, i) => ({ firstName: `${tag}${i}`, lastName: 'Sub' })),
    });
    expect(res.json().created).toBe(n);
  }

  beforeAll(async () => {
    await ctx.db.execute(sql`create table test_seen (seq bigserial primary key, consumer text not null, tenant_id bigint not null, change_id bigint not null, type text not null)`);
    await ctx.db.execute(sql`grant all on test_seen to app_user`);
    await ctx.db.execute(sql`grant usage, select on sequence test_seen_seq_seq to app_user`);
    ctx.app.worker.subscribe(consumer('probe'));
  });

  it('a consumer that throws on the N-th change: the rest is delivered, that change is retried, and its work is kept once', async () => {
    const t = await newTenant(ctx);
    await contactsIn(t, 12, 'fail');
    const ids = await changeIds(t.id);
    expect(ids).toHaveLength(12);
    failOn.add(ids[4]);
    await ctx.app.worker.drain();
    // The failed change's insert was rolled back with its savepoint; it waits in the queue.
    expect((await seen(t.id)).map((r) => Number(r.change_id))).toEqual(ids.filter((id) => id !== ids[4]));
    // (It keeps failing while failOn holds it: a slow drain may have retried it already.)
    const waiting = await queued(t.id);
    expect(waiting.map((q) => q.changeId)).toEqual([ids[4]]);
    expect(waiting[0].attempts).toBeGreaterThanOrEqual(1);
    failOn.clear();
    await makeDue();
    await ctx.app.worker.drain();
    const after = await seen(t.id);
    expect(after.map((r) => Number(r.change_id))).toEqual(ids);
    expect(after.every((r) => Number(r.n) === 1)).toBe(true);
    expect(await queued(t.id)).toEqual([]);
    // Delivered at least once: the failed change reached the consumer again, its effect is kept once.
    // (Its batch was handed over whole first, then change by change once something threw: the
    // changes before it reached the consumer twice, their effect kept once.)
    expect(calls.filter((id) => id === ids[4]).length).toBeGreaterThanOrEqual(2);
    expect(calls.filter((id) => id === ids[3])).toHaveLength(2);
    expect(calls.filter((id) => id === ids[5])).toHaveLength(1);
  });

  it('delivery killed mid-batch: nothing of the batch is kept, the next drain delivers everything once', async () => {
    const t = await newTenant(ctx);
    await contactsIn(t, 12, 'crash');
    const ids = await changeIds(t.id);
    crashOn.add(ids[6]);
    await expect(ctx.app.worker.drain()).rejects.toThrow();
    expect(await seen(t.id)).toEqual([]);
    expect((await queued(t.id)).map((q) => q.changeId)).toEqual(ids);
    await ctx.app.worker.drain();
    const after = await seen(t.id);
    expect(after.map((r) => Number(r.change_id))).toEqual(ids);
    expect(after.every((r) => Number(r.n) === 1)).toBe(true);
    expect(await queued(t.id)).toEqual([]);
    expect(calls.filter((id) => id === ids[0])).toHaveLength(2);
  });

  it.runIf(process.env.DATABASE_URL)('the database connection broken mid-batch (PostgreSQL): the batch is redelivered, each change kept once', async () => {
    const t = await newTenant(ctx);
    await contactsIn(t, 10, 'conn');
    const ids = await changeIds(t.id);
    breakConnectionOn.add(ids[3]);
    await expect(ctx.app.worker.drain()).rejects.toThrow();
    expect(await seen(t.id)).toEqual([]);
    await ctx.app.worker.drain();
    const after = await seen(t.id);
    expect(after.map((r) => Number(r.change_id))).toEqual(ids);
    expect(after.every((r) => Number(r.n) === 1)).toBe(true);
  });

  it('changes reach the consumer in order per tenant', async () => {
    const a = await newTenant(ctx);
    const b = await newTenant(ctx);
    for (let i = 0; i < 4; i++) {
      await api(ctx.app, a.admin.token).post('/api/crm/contacts', { category: 'Person', person: { firstName: `A${i}`, lastName: 'Order' } });
      await api(ctx.app, b.admin.token).post('/api/crm/contacts', { category: 'Person', person: { firstName: `B${i}`, lastName: 'Order' } });
      await contactsIn(a, 3, `a${i}-`);
    }
    await ctx.app.worker.drain();
    for (const tenant of [a, b]) {
      const order = (await rows<{ change_id: string | number }>(ctx, sql`select change_id from test_seen where tenant_id = ${tenant.id} and consumer = 'probe' order by seq`))
        .map((r) => Number(r.change_id));
      expect(order).toEqual(await changeIds(tenant.id));
      expect(order.length).toBe(tenant === a ? 16 : 4);
    }
  });

  it('a failed change holds back the later changes of the same record until its retry succeeds; other records go on', async () => {
    const t = await newTenant(ctx);
    const admin = api(ctx.app, t.admin.token);
    const first = (await admin.post('/api/crm/contacts', { category: 'Person', person: { firstName: 'Held', lastName: 'Back' } })).json().id;
    await admin.put(`/api/crm/contacts/${first}`, { status: 'Inactive' });
    const other = (await admin.post('/api/crm/contacts', { category: 'Person', person: { firstName: 'Goes', lastName: 'On' } })).json().id;
    await admin.put(`/api/crm/contacts/${first}`, { status: 'Active' });
    await admin.put(`/api/crm/contacts/${other}`, { status: 'Inactive' });
    const byEntity = async () => rows<{ id: string | number; entity_id: string | number }>(ctx, sql`select id, entity_id from changes where tenant_id = ${t.id} order by id`);
    const all = await byEntity();
    const ofFirst = all.filter((r) => Number(r.entity_id) === first).map((r) => Number(r.id));
    const ofOther = all.filter((r) => Number(r.entity_id) === other).map((r) => Number(r.id));
    expect(ofFirst.length).toBeGreaterThanOrEqual(3);
    failOn.add(ofFirst[0]);
    await ctx.app.worker.drain();
    // The other contact's changes went through; none of the first contact's overtook its failed creation.
    expect((await seen(t.id)).map((r) => Number(r.change_id))).toEqual(ofOther);
    expect((await queued(t.id)).map((q) => q.changeId)).toEqual(ofFirst);
    // A retry that is due but fails again still holds them back.
    await makeDue();
    await ctx.app.worker.drain();
    expect((await seen(t.id)).map((r) => Number(r.change_id))).toEqual(ofOther);
    failOn.clear();
    await makeDue();
    await ctx.app.worker.drain();
    const order = (await rows<{ change_id: string | number }>(ctx, sql`select change_id from test_seen where tenant_id = ${t.id} and consumer = 'probe' order by seq`))
      .map((r) => Number(r.change_id));
    expect(order.filter((id) => ofFirst.includes(id))).toEqual(ofFirst);
    expect(order.filter((id) => ofOther.includes(id))).toEqual(ofOther);
    expect(await queued(t.id)).toEqual([]);
  });

  it('two workers draining the same queue at once never hand one change to the consumer twice', async () => {
    const tenants = [await newTenant(ctx), await newTenant(ctx), await newTenant(ctx)];
    for (const t of tenants) await contactsIn(t, 150, 'pair');
    const options = { db: ctx.db, mailer: ctx.mailer, config: ctx.config, log: ctx.app.log, jobs: {}, schedules: [], subscribers: [consumer('pair')] };
    const first = createWorker(options);
    const second = createWorker(options);
    const before = calls.length;
    const [x, y] = await Promise.all([first.drain(), second.drain()]);
    expect(x.changes + y.changes).toBeGreaterThanOrEqual(450);
    for (const t of tenants) {
      const handled = await seen(t.id, 'pair');
      expect(handled).toHaveLength(150);
      expect(handled.every((r) => Number(r.n) === 1)).toBe(true);
    }
    // No change was even delivered twice: nothing failed, and SKIP LOCKED kept the workers apart.
    const delivered = calls.slice(before);
    expect(new Set(delivered).size).toBe(delivered.length);
  });

  it("one tenant's backlog of 1,500 queued changes does not delay another tenant's single change", async () => {
    const busy = await newTenant(ctx);
    const quiet = await newTenant(ctx);
    await contactsIn(busy, 1000, 'busy');
    await contactsIn(busy, 500, 'busier');
    expect(await queued(busy.id)).toHaveLength(1500);
    // The quiet tenant's change comes after the whole backlog.
    const created = await api(ctx.app, quiet.admin.token).post('/api/crm/contacts', { category: 'Person', person: { firstName: 'Quiet', lastName: 'One' } });
    expect(created.statusCode).toBe(201);
    const [quietChange] = await changeIds(quiet.id);
    expect(quietChange).toBeGreaterThan(Math.max(...(await changeIds(busy.id))));
    // One pass of the dispatcher (one worker tick): the quiet tenant is served in it, the busy one a batch.
    const errors: unknown[] = [];
    const handled = await dispatchChanges(ctx.db, [consumer('fair')], (err) => errors.push(err));
    expect(errors).toEqual([]);
    expect((await seen(quiet.id, 'fair')).map((r) => Number(r.change_id))).toEqual([quietChange]);
    expect(await queued(quiet.id)).toEqual([]);
    expect(await seen(busy.id, 'fair')).toHaveLength(100);
    expect(handled).toBe(101);
    expect(await queued(busy.id)).toHaveLength(1400);
    await ctx.app.worker.drain();
    expect(await queued(busy.id)).toEqual([]);
  });
});
