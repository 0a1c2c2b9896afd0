import { and, eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { changes } from '../../src/db/schema/index.js';
import { api, setupTestApp } from '../helpers/app.js';
import { newTenant, newUser, type TestTenant, type TestUser } from '../helpers/factories.js';
import { newBatch, newFund, newGift, newTreasurer } from '../helpers/finance.factories.js';

const ctx = setupTestApp();

describe('funds', () => {
  let t: TestTenant;
  let tr: TestUser;
  beforeAll(async () => {
    t = await newTenant(ctx);
    tr = await newTreasurer(ctx, t);
  });

  it('creates with defaults, reads, lists by name with isActive filter, updates and deletes an unused fund', async () => {
    const http = api(ctx.app, tr.token);
    const res = await http.post('/api/finance/funds', { name: 'Missions', code: 'MIS', description: 'Abroad' });
    expect(res.statusCode, res.body).toBe(201);
    const missions = res.json();
    expect(missions).toEqual({ id: missions.id, name: 'Missions', code: 'MIS', description: 'Abroad', isTaxDeductible: true, isActive: true });
    const general = await newFund(ctx, tr.token, { name: 'General', isTaxDeductible: false });
    expect(general).toMatchObject({ code: null, description: null, isTaxDeductible: false });
    await newFund(ctx, tr.token, { name: 'Archive', isActive: false });
    expect((await http.get(`/api/finance/funds/${missions.id}`)).json()).toEqual(missions);
    const all = (await http.get('/api/finance/funds')).json();
    expect(all).toMatchObject({ total: 3, page: 1, limit: 20 });
    expect(all.data.map((f: { name: string }) => f.name)).toEqual(['Archive', 'General', 'Missions']);
    expect((await http.get('/api/finance/funds?isActive=true')).json().data.map((f: { name: string }) => f.name)).toEqual(['General', 'Missions']);
    expect((await http.get('/api/finance/funds?isActive=false')).json().total).toBe(1);
    const upd = await http.put(`/api/finance/funds/${missions.id}`, { isActive: false, description: null });
    expect(upd.json()).toMatchObject({ isActive: false, description: null, name: 'Missions', code: 'MIS' });
    expect((await http.delete(`/api/finance/funds/${missions.id}`)).statusCode).toBe(204);
    expect((await http.get(`/api/finance/funds/${missions.id}`)).statusCode).toBe(404);
  });
});

describe('batches', () => {
  let t: TestTenant;
  let tr: TestUser;
  let fin: TestUser;
  let fund: { id: number };
  beforeAll(async () => {
    t = await newTenant(ctx);
    tr = await newTreasurer(ctx, t);
    fin = await newTreasurer(ctx, t, ['finance:admin']);
    fund = await newFund(ctx, tr.token);
  });

  it('keeps live totals and variance (controlAmount − totalAmount) in integers', async () => {
    const b = await newBatch(ctx, tr.token, { controlAmount: 10000, controlCount: 3 });
    expect(b).toMatchObject({ status: 'Open', controlAmount: 10000, controlCount: 3, totalAmount: 0, contributionCount: 0, variance: 10000, currency: 'USD', closedAt: null, closedBy: null });
    for (let i = 0; i < 3; i++) await newGift(ctx, tr.token, { fundId: fund.id, amount: 3333, batchId: b.id });
    const got = (await api(ctx.app, tr.token).get(`/api/finance/batches/${b.id}`)).json();
    expect(got).toMatchObject({ totalAmount: 9999, contributionCount: 3, variance: 1 });
  });

  it('refuses to close while unbalanced, closes with force, records batch.closed; reopen needs finance:admin', async () => {
    const b = await newBatch(ctx, tr.token, { controlAmount: 500, controlCount: 1 });
    await newGift(ctx, tr.token, { fundId: fund.id, amount: 400, batchId: b.id });
    const refused = await api(ctx.app, tr.token).put(`/api/finance/batches/${b.id}/close`, {});
    expect(refused.statusCode).toBe(409);
    // The treasurer's words: amounts in the church's currency and the gap, not minor units.
    expect(refused.json().message).toMatch(/does not balance: USD 4\.00 in 1 gift recorded against a control total of USD 5\.00 in 1 gift \(short by USD 1\.00\); fix the gifts or the control totals, or close it anyway with force: true$/);
    const closed = await api(ctx.app, tr.token).put(`/api/finance/batches/${b.id}/close`, { force: true });
    expect(closed.statusCode, closed.body).toBe(200);
    expect(closed.json()).toMatchObject({ status: 'Closed', variance: 100, closedBy: { id: tr.id, username: tr.username } });
    expect(typeof closed.json().closedAt).toBe('string');
    const [change] = await ctx.db.select().from(changes).where(and(eq(changes.tenantId, t.id), eq(changes.type, 'batch.closed'), eq(changes.entityId, b.id)));
    expect(change).toMatchObject({ actorUserId: tr.id, data: { batchId: b.id, forced: true, varianceAmount: 100 } });
    expect((await api(ctx.app, tr.token).put(`/api/finance/batches/${b.id}/reopen`)).statusCode).toBe(403);
    const reopened = await api(ctx.app, fin.token).put(`/api/finance/batches/${b.id}/reopen`);
    expect(reopened.statusCode, reopened.body).toBe(200);
    expect(reopened.json()).toMatchObject({ status: 'Open', closedAt: null, closedBy: null });
    const [re] = await ctx.db.select().from(changes).where(and(eq(changes.tenantId, t.id), eq(changes.type, 'batch.reopened'), eq(changes.entityId, b.id)));
    expect(re.actorUserId).toBe(fin.id);
  });

  it('closes a balanced batch without force; its contributions are then immutable (409) except delete by finance:admin', async () => {
    const b = await newBatch(ctx, tr.token, { controlAmount: 700, controlCount: 2 });
    const c1 = await newGift(ctx, tr.token, { fundId: fund.id, amount: 300, batchId: b.id });
    const c2 = await newGift(ctx, tr.token, { fundId: fund.id, amount: 400, batchId: b.id });
    expect((await api(ctx.app, tr.token).put(`/api/finance/batches/${b.id}/close`, {})).statusCode).toBe(200);
    const http = api(ctx.app, tr.token);
    expect((await http.put(`/api/finance/contributions/${c1.id}`, { notes: 'x' })).statusCode).toBe(409);
    expect((await http.delete(`/api/finance/contributions/${c1.id}`)).statusCode).toBe(409);
    expect((await http.put(`/api/finance/batches/${b.id}`, { name: 'renamed' })).statusCode).toBe(409);
    expect((await http.delete(`/api/finance/batches/${b.id}`)).statusCode).toBe(409);
    const add = await http.post('/api/finance/contributions', { date: '2026-03-01', method: 'Cash', amount: 5, batchId: b.id, lines: [{ fundId: fund.id, amount: 5 }] });
    expect(add.statusCode).toBe(409);
    expect((await api(ctx.app, fin.token).delete(`/api/finance/contributions/${c2.id}`)).statusCode).toBe(204);
    expect((await http.get(`/api/finance/batches/${b.id}`)).json()).toMatchObject({ totalAmount: 300, contributionCount: 1, status: 'Closed' });
    expect((await http.put(`/api/finance/batches/${b.id}/close`, {})).statusCode).toBe(409);
  });

  it('lists newest first with status and date filters; updates and deletes an empty open batch', async () => {
    const t2 = await newTenant(ctx);
    const u = await newTreasurer(ctx, t2);
    const a = await newBatch(ctx, u.token, { date: '2026-01-04' });
    const b = await newBatch(ctx, u.token, { date: '2026-01-11' });
    const c = await newBatch(ctx, u.token, { date: '2026-01-18' });
    await api(ctx.app, u.token).put(`/api/finance/batches/${b.id}/close`, {});
    const http = api(ctx.app, u.token);
    expect((await http.get('/api/finance/batches')).json().data.map((x: { id: number }) => x.id)).toEqual([c.id, b.id, a.id]);
    expect((await http.get('/api/finance/batches?status=Closed')).json().data.map((x: { id: number }) => x.id)).toEqual([b.id]);
    expect((await http.get('/api/finance/batches?from=2026-01-05&to=2026-01-18')).json().data.map((x: { id: number }) => x.id)).toEqual([c.id, b.id]);
    const upd = await http.put(`/api/finance/batches/${a.id}`, { name: 'Sunday', controlAmount: 5, controlCount: 1, date: '2026-01-05' });
    expect(upd.json()).toMatchObject({ name: 'Sunday', controlAmount: 5, controlCount: 1, date: '2026-01-05', variance: 5 });
    expect((await http.delete(`/api/finance/batches/${a.id}`)).statusCode).toBe(204);
    const member = await newUser(ctx, t2, 'Member');
    expect((await api(ctx.app, member.token).get('/api/finance/batches')).statusCode).toBe(403);
  });
});
