import { and, eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { changes } from '../../src/db/schema/index.js';
import { api, setupTestApp } from '../helpers/app.js';
import { newPerson } from '../helpers/contacts.factories.js';
import { newTenant, type TestTenant, type TestUser } from '../helpers/factories.js';
import { newBatch, newFund, newGift, newTreasurer } from '../helpers/finance.factories.js';

const ctx = setupTestApp();

async function changesOf(tenantId: number, type: string) {
  return ctx.db.select().from(changes).where(and(eq(changes.tenantId, tenantId), eq(changes.type, type))).orderBy(changes.id);
}

describe('contributions', () => {
  let t: TestTenant;
  let tr: TestUser;
  let general: { id: number; name: string };
  let building: { id: number; name: string };
  let donor: { id: number };
  beforeAll(async () => {
    t = await newTenant(ctx);
    tr = await newTreasurer(ctx, t);
    general = await newFund(ctx, tr.token, { name: 'General', code: 'GEN' });
    building = await newFund(ctx, tr.token, { name: 'Building', isTaxDeductible: false });
    donor = await newPerson(ctx, t, 'Grace', 'Hopper');
  });

  it('records a split gift with integer lines, currency, contact and batch, and a change', async () => {
    const batch = await newBatch(ctx, tr.token, { controlAmount: 9999, controlCount: 1 });
    const res = await api(ctx.app, tr.token).post('/api/finance/contributions', {
      contactId: donor.id, date: '2026-02-01', amount: 9999, method: 'Check', reference: 'CHK-1', notes: 'thanks', batchId: batch.id,
      lines: [{ fundId: general.id, amount: 3333 }, { fundId: building.id, amount: 6666 }],
    });
    expect(res.statusCode, res.body).toBe(201);
    const c = res.json();
    expect(c).toMatchObject({
      date: '2026-02-01', amount: 9999, currency: 'USD', method: 'Check', reference: 'CHK-1', notes: 'thanks', status: 'Completed', refundedAmount: 0,
      contact: { id: donor.id, firstName: 'Grace', lastName: 'Hopper' }, batch: { id: batch.id, name: batch.name }, unmatched: false,
      lines: [{ fund: { id: general.id, name: 'General' }, amount: 3333 }, { fund: { id: building.id, name: 'Building' }, amount: 6666 }],
    });
    const [change] = (await changesOf(t.id, 'contribution.created')).filter((x) => x.entityId === c.id);
    expect(change.actorUserId).toBe(tr.id);
    expect(change.data).toMatchObject({ contactId: donor.id, amount: 9999, batchId: batch.id, fundIds: [general.id, building.id] });
    const got = await api(ctx.app, tr.token).get(`/api/finance/contributions/${c.id}`);
    expect(got.json()).toEqual(c);
    const b = await api(ctx.app, tr.token).get(`/api/finance/batches/${batch.id}`);
    expect(b.json()).toMatchObject({ totalAmount: 9999, contributionCount: 1, variance: 0, currency: 'USD', status: 'Open' });
  });

  it('anonymous gifts have contact null', async () => {
    const c = await newGift(ctx, tr.token, { fundId: general.id, amount: 500, contactId: null });
    expect(c.contact).toBeNull();
  });

  it('updates fields and lines, recording the diff', async () => {
    const c = await newGift(ctx, tr.token, { fundId: general.id, amount: 1000, contactId: donor.id });
    const res = await api(ctx.app, tr.token).put(`/api/finance/contributions/${c.id}`, {
      amount: 1500, method: 'Card', lines: [{ fundId: general.id, amount: 1000 }, { fundId: building.id, amount: 500 }],
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ amount: 1500, method: 'Card', lines: [{ amount: 1000 }, { amount: 500 }] });
    const [change] = (await changesOf(t.id, 'contribution.updated')).filter((x) => x.entityId === c.id);
    expect(change.changes).toMatchObject({ amount: { from: 1000, to: 1500 }, method: { from: 'Cash', to: 'Card' } });
    expect(change.data).toMatchObject({ contactId: donor.id, amount: 1500, fundIds: [general.id, building.id] });
  });

  it('refunds partly then fully; statuses and line apportioning stay integer', async () => {
    const c = await newGift(ctx, tr.token, { contactId: donor.id, date: '2026-04-04', amount: 10000, lines: [{ fundId: general.id, amount: 3333 }, { fundId: building.id, amount: 6667 }] });
    const part = await api(ctx.app, tr.token).post(`/api/finance/contributions/${c.id}/refund`, { amount: 2500, reason: 'duplicate charge' });
    expect(part.statusCode, part.body).toBe(200);
    expect(part.json()).toMatchObject({ status: 'PartiallyRefunded', refundedAmount: 2500, amount: 10000 });
    // 2500 of 10000 apportioned by largest remainder: 833 + 1667, so the net by fund is 2500 + 5000 exactly.
    const st = (await api(ctx.app, tr.token).get(`/api/finance/statements/${donor.id}?from=2026-04-04&to=2026-04-04`)).json();
    const byFund = Object.fromEntries(st.totals.byFund.map((f: { fund: { name: string }; amount: number }) => [f.fund.name, f.amount]));
    expect(byFund).toMatchObject({ General: 2500, Building: 5000 });
    const full = await api(ctx.app, tr.token).post(`/api/finance/contributions/${c.id}/refund`, { amount: 7500 });
    expect(full.json()).toMatchObject({ status: 'Refunded', refundedAmount: 10000 });
    const refunds = (await changesOf(t.id, 'contribution.refunded')).filter((x) => x.entityId === c.id);
    expect(refunds.map((r) => r.data.status)).toEqual(['PartiallyRefunded', 'Refunded']);
    expect(refunds[0].data).toMatchObject({ contactId: donor.id, refundAmount: 2500 });
  });

  it("deleting the donor keeps the gift, unlinked (ON DELETE SET NULL of contact_id only)", async () => {
    const gone = await newPerson(ctx, t, 'Gone', 'Away');
    const c = await newGift(ctx, tr.token, { fundId: general.id, contactId: gone.id, amount: 777 });
    expect((await api(ctx.app, t.admin.token).delete(`/api/crm/contacts/${gone.id}`)).statusCode).toBe(204);
    expect((await api(ctx.app, tr.token).get(`/api/finance/contributions/${c.id}`)).json()).toMatchObject({ contact: null, amount: 777 });
  });

  it('deletes an open-batch contribution with a change', async () => {
    const c = await newGift(ctx, tr.token, { fundId: general.id, contactId: donor.id });
    expect((await api(ctx.app, tr.token).delete(`/api/finance/contributions/${c.id}`)).statusCode).toBe(204);
    expect((await api(ctx.app, tr.token).get(`/api/finance/contributions/${c.id}`)).statusCode).toBe(404);
    const [change] = (await changesOf(t.id, 'contribution.deleted')).filter((x) => x.entityId === c.id);
    expect(change.data).toMatchObject({ contactId: donor.id, amount: 1000, fundIds: [general.id] });
  });
});

describe('contribution list filters and sorts', () => {
  let t: TestTenant;
  let tr: TestUser;
  const ids: Record<string, number> = {};
  let f1: { id: number };
  let f2: { id: number };
  let batchId: number;
  let ada: { id: number };
  beforeAll(async () => {
    t = await newTenant(ctx);
    tr = await newTreasurer(ctx, t);
    f1 = await newFund(ctx, tr.token);
    f2 = await newFund(ctx, tr.token);
    ada = await newPerson(ctx, t, 'Ada', 'Lovelace');
    const bob = await newPerson(ctx, t, 'Bob', 'Builder');
    batchId = (await newBatch(ctx, tr.token)).id;
    ids.a = (await newGift(ctx, tr.token, { fundId: f1.id, amount: 100, date: '2026-01-05', contactId: ada.id, method: 'Cash' })).id;
    ids.b = (await newGift(ctx, tr.token, { fundId: f2.id, amount: 300, date: '2026-01-10', contactId: bob.id, method: 'Card', batchId })).id;
    ids.c = (await newGift(ctx, tr.token, { fundId: f1.id, amount: 200, date: '2026-01-10', contactId: ada.id, method: 'Online' })).id;
    ids.d = (await newGift(ctx, tr.token, { fundId: f1.id, amount: 50, date: '2026-02-01', contactId: null, method: 'Cash' })).id;
  });
  const list = async (query: string) => {
    const res = await api(ctx.app, tr.token).get(`/api/finance/contributions?${query}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };

  it('sorts -date by default, then date, amount, -amount; ties by id', async () => {
    expect((await list('')).data.map((c: { id: number }) => c.id)).toEqual([ids.d, ids.c, ids.b, ids.a]);
    expect((await list('sort=date')).data.map((c: { id: number }) => c.id)).toEqual([ids.a, ids.b, ids.c, ids.d]);
    expect((await list('sort=amount')).data.map((c: { id: number }) => c.id)).toEqual([ids.d, ids.a, ids.c, ids.b]);
    expect((await list('sort=-amount')).data.map((c: { id: number }) => c.id)).toEqual([ids.b, ids.c, ids.a, ids.d]);
  });

  it('filters by contact, fund, batch, method, dates, amounts and donor name', async () => {
    const idsOf = async (q: string) => (await list(q)).data.map((c: { id: number }) => c.id).sort((x: number, y: number) => x - y);
    expect(await idsOf(`contactId=${ada.id}`)).toEqual([ids.a, ids.c]);
    expect(await idsOf(`fundId=${f2.id}`)).toEqual([ids.b]);
    expect(await idsOf(`batchId=${batchId}`)).toEqual([ids.b]);
    expect(await idsOf('method=Cash')).toEqual([ids.a, ids.d]);
    expect(await idsOf('from=2026-01-10&to=2026-01-31')).toEqual([ids.b, ids.c]);
    expect(await idsOf('minAmount=100&maxAmount=200')).toEqual([ids.a, ids.c]);
    expect(await idsOf('q=lovel')).toEqual([ids.a, ids.c]);
    expect(await idsOf('fundId=999999')).toEqual([]);
  });

  it('pages with the true total', async () => {
    const page = await list('limit=3&page=2');
    expect(page).toMatchObject({ total: 4, page: 2, limit: 3 });
    expect(page.data).toHaveLength(1);
    expect(await list('limit=3&page=5')).toMatchObject({ total: 4, data: [] });
    expect((await list('limit=500')).limit).toBe(100);
  });
});
