import { and, count, eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { changes, contributions } from '../../src/db/schema/index.js';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { newPerson } from '../helpers/contacts.factories.js';
import { newTenant, type TestTenant, type TestUser } from '../helpers/factories.js';
import { newBatch, newFund, newGift, newTreasurer } from '../helpers/finance.factories.js';

const ctx = setupTestApp();

describe('finance bad input', () => {
  let t: TestTenant;
  let tr: TestUser;
  let fund: { id: number; name: string };
  let inactive: { id: number; name: string };
  let donor: { id: number };
  const gift = (over: Record<string, unknown> = {}) => ({ date: '2026-03-01', method: 'Cash', amount: 100, lines: [{ fundId: fund.id, amount: 100 }], ...over });
  const counts = async () => {
    const [c] = await ctx.db.select({ n: count() }).from(contributions).where(eq(contributions.tenantId, t.id));
    const [ch] = await ctx.db.select({ n: count() }).from(changes).where(eq(changes.tenantId, t.id));
    return [Number(c.n), Number(ch.n)];
  };
  beforeAll(async () => {
    t = await newTenant(ctx);
    tr = await newTreasurer(ctx, t);
    fund = await newFund(ctx, tr.token, { name: 'General', code: 'GEN' });
    inactive = await newFund(ctx, tr.token, { name: 'Old', isActive: false });
    donor = await newPerson(ctx, t, 'Eve', 'Error');
  });

  it('amounts must be integers from 1 to 10^12', async () => {
    const before = await counts();
    const http = api(ctx.app, tr.token);
    for (const amount of [0, -5, 12.5, 1_000_000_000_001, '100']) {
      expect(expectError(await http.post('/api/finance/contributions', gift({ amount, lines: [{ fundId: fund.id, amount }] })), 400)).toMatch(/amount/);
    }
    expectError(await http.post('/api/finance/contributions/1/refund', { amount: 0 }), 400);
    expectError(await http.post('/api/finance/pledges', { contactId: donor.id, fundId: fund.id, amount: 1.5, frequency: 'OneTime', startDate: '2026-01-01' }), 400);
    expectError(await http.post('/api/finance/batches', { name: 'b', date: '2026-01-01', controlAmount: -1 }), 400);
    expect(await counts()).toEqual(before);
  });

  it('lines must sum to the amount (naming both sums), 1 to 20, each fund once', async () => {
    const before = await counts();
    const http = api(ctx.app, tr.token);
    const msg = expectError(await http.post('/api/finance/contributions', gift({ amount: 100, lines: [{ fundId: fund.id, amount: 60 }, { fundId: inactive.id, amount: 30 }] })), 400);
    expect(msg).toContain('90');
    expect(msg).toContain('100');
    expectError(await http.post('/api/finance/contributions', gift({ lines: [] })), 400);
    expectError(await http.post('/api/finance/contributions', gift({ amount: 21, lines: Array.from({ length: 21 }, () => ({ fundId: fund.id, amount: 1 })) })), 400);
    expectError(await http.post('/api/finance/contributions', gift({ amount: 2, lines: [{ fundId: fund.id, amount: 1 }, { fundId: fund.id, amount: 1 }] })), 400);
    expect(await counts()).toEqual(before);
  });

  it('inactive fund 400; unknown fund, contact and batch 404 naming them; closed batch 409; nothing written', async () => {
    const before = await counts();
    const http = api(ctx.app, tr.token);
    expect(expectError(await http.post('/api/finance/contributions', gift({ lines: [{ fundId: inactive.id, amount: 100 }] })), 400)).toContain('Old');
    expect(expectError(await http.post('/api/finance/contributions', gift({ amount: 200, lines: [{ fundId: 987654, amount: 100 }, { fundId: 987655, amount: 100 }] })), 404)).toBe('Funds with id 987654, 987655 not found');
    expect(expectError(await http.post('/api/finance/contributions', gift({ contactId: 987654 })), 404)).toBe('Contact with id 987654 not found');
    expect(expectError(await http.post('/api/finance/contributions', gift({ batchId: 987654 })), 404)).toBe('Batch with id 987654 not found');
    const closed = await newBatch(ctx, tr.token);
    await http.put(`/api/finance/batches/${closed.id}/close`, {});
    expectError(await http.post('/api/finance/contributions', gift({ batchId: closed.id })), 409);
    expectError(await http.get('/api/finance/contributions/987654'), 404);
    expectError(await http.put('/api/finance/contributions/987654', { notes: 'x' }), 404);
    expectError(await http.post('/api/finance/contributions/987654/refund', { amount: 1 }), 404);
    expect((await counts())[0]).toBe(before[0]);
    expect((await counts())[1]).toBe(before[1] + 2); // the batch.created and batch.closed only
  });

  it('dates outside 0001–9999 and malformed query values are 400', async () => {
    const http = api(ctx.app, tr.token);
    expectError(await http.post('/api/finance/contributions', gift({ date: '0000-01-01' })), 400);
    expectError(await http.post('/api/finance/contributions', gift({ date: '10000-01-01' })), 400);
    expectError(await http.post('/api/finance/contributions', gift({ method: 'Gold' })), 400);
    expectError(await http.get('/api/finance/contributions?sort=name'), 400);
    expectError(await http.get('/api/finance/contributions?fundId=abc'), 400);
    expectError(await http.get('/api/finance/summary?interval=day'), 400);
    expectError(await http.get('/api/finance/summary?from=2026-02-01&to=2026-01-01'), 400);
    expectError(await http.get(`/api/finance/statements/${donor.id}?format=doc`), 400);
    expectError(await http.get(`/api/finance/statements/${donor.id}?from=2026-02-01&to=2026-01-01`), 400);
    expectError(await http.get('/api/finance/contributions/1.5'), 400);
  });

  it('refunds: above what is left 400; amount and lines frozen once refunded 409', async () => {
    const c = await newGift(ctx, tr.token, { fundId: fund.id, amount: 1000 });
    const http = api(ctx.app, tr.token);
    expect(expectError(await http.post(`/api/finance/contributions/${c.id}/refund`, { amount: 1001 }), 400)).toContain('1000');
    await http.post(`/api/finance/contributions/${c.id}/refund`, { amount: 400 });
    expect(expectError(await http.post(`/api/finance/contributions/${c.id}/refund`, { amount: 601 }), 400)).toContain('600');
    expectError(await http.put(`/api/finance/contributions/${c.id}`, { amount: 900, lines: [{ fundId: fund.id, amount: 900 }] }), 409);
    expect((await http.put(`/api/finance/contributions/${c.id}`, { notes: 'ok' })).statusCode).toBe(200);
    expect(expectError(await http.put(`/api/finance/contributions/${c.id}`, { notes: 'x', amount: 5 }), 409)).toContain('refund');
  });

  it('an update whose lines do not sum to the amount is 400 and changes nothing', async () => {
    const c = await newGift(ctx, tr.token, { fundId: fund.id, amount: 1000 });
    const http = api(ctx.app, tr.token);
    expectError(await http.put(`/api/finance/contributions/${c.id}`, { amount: 1200 }), 400);
    expectError(await http.put(`/api/finance/contributions/${c.id}`, { contactId: 987654 }), 404);
    expect((await http.get(`/api/finance/contributions/${c.id}`)).json()).toEqual(c);
    const updates = await ctx.db.select().from(changes).where(and(eq(changes.tenantId, t.id), eq(changes.type, 'contribution.updated'), eq(changes.entityId, c.id)));
    expect(updates).toHaveLength(0);
  });

  it('funds: duplicate name or code 409 (any case); delete while used 409; unknown 404', async () => {
    const http = api(ctx.app, tr.token);
    expectError(await http.post('/api/finance/funds', { name: 'general' }), 409);
    expectError(await http.post('/api/finance/funds', { name: 'Other', code: 'gen' }), 409);
    const f = await newFund(ctx, tr.token);
    expectError(await http.put(`/api/finance/funds/${f.id}`, { name: 'GENERAL' }), 409);
    await newGift(ctx, tr.token, { fundId: f.id });
    expect(expectError(await http.delete(`/api/finance/funds/${f.id}`), 409)).toContain('deactivate');
    const g = await newFund(ctx, tr.token);
    await http.post('/api/finance/pledges', { contactId: donor.id, fundId: g.id, amount: 5, frequency: 'OneTime', startDate: '2026-01-01' });
    expectError(await http.delete(`/api/finance/funds/${g.id}`), 409);
    expectError(await http.get('/api/finance/funds/987654'), 404);
    expectError(await http.post('/api/finance/funds', { name: '' }), 400);
  });

  it('batches: delete of a non-empty batch 409; reopen of an open batch 409; close without a body object 400', async () => {
    const http = api(ctx.app, tr.token);
    const b = await newBatch(ctx, tr.token);
    await newGift(ctx, tr.token, { fundId: fund.id, batchId: b.id });
    expectError(await http.delete(`/api/finance/batches/${b.id}`), 409);
    const admin = await newTreasurer(ctx, t, ['finance:admin']);
    expectError(await api(ctx.app, admin.token).put(`/api/finance/batches/${b.id}/reopen`), 409);
    expectError(await http.get('/api/finance/batches/987654'), 404);
    expectError(await http.put('/api/finance/batches/987654/close', {}), 404);
  });

  it('pledges: period and references', async () => {
    const http = api(ctx.app, tr.token);
    const p = { contactId: donor.id, fundId: fund.id, amount: 100, frequency: 'Monthly', startDate: '2026-02-01', endDate: '2026-12-31' };
    expectError(await http.post('/api/finance/pledges', { ...p, endDate: '2026-01-01' }), 400);
    expectError(await http.post('/api/finance/pledges', { ...p, endDate: null }), 400);
    expectError(await http.post('/api/finance/pledges', { ...p, frequency: 'Daily' }), 400);
    expect(expectError(await http.post('/api/finance/pledges', { ...p, contactId: 987654 }), 404)).toBe('Contact with id 987654 not found');
    expectError(await http.post('/api/finance/pledges', { ...p, fundId: 987654 }), 404);
    expectError(await http.post('/api/finance/pledges', { ...p, fundId: inactive.id }), 400);
    expectError(await http.put('/api/finance/pledges/987654', { amount: 5 }), 404);
  });

  it('pledges: a total (amount × occurrences) past 10^12 is 400, on create and update, never a 500 on read', async () => {
    const http = api(ctx.app, tr.token);
    // Weekly at 10^12 over 8,000 years passes 2^53 (the fuzzing's find of issue 29).
    const huge = { contactId: donor.id, fundId: fund.id, amount: 1_000_000_000_000, frequency: 'Weekly', startDate: '0001-01-01', endDate: '9999-12-31' };
    const message = expectError(await http.post('/api/finance/pledges', huge), 400);
    expect(message).toContain('1000000000000');
    expect(message).toContain('at most 1000000000000');
    expectError(await http.post('/api/finance/pledges', { ...huge, amount: 1_000_000_000, frequency: 'Monthly', startDate: '2000-01-01', endDate: '2083-05-01' }), 400);
    // At the bound exactly: 10^12 in 1,000 monthly occurrences of 10^9.
    const edge = await http.post('/api/finance/pledges', { ...huge, amount: 1_000_000_000, frequency: 'Monthly', startDate: '2000-01-01', endDate: '2083-04-30' });
    expect(edge.statusCode, edge.body).toBe(201);
    expect(edge.json()).toMatchObject({ occurrences: 1000, totalPledged: 1_000_000_000_000 });
    expectError(await http.put(`/api/finance/pledges/${edge.json().id}`, { amount: 1_000_000_001 }), 400);
    expectError(await http.put(`/api/finance/pledges/${edge.json().id}`, { endDate: '2083-05-01' }), 400);
    expect((await http.get(`/api/finance/pledges/${edge.json().id}`)).json()).toMatchObject({ totalPledged: 1_000_000_000_000 });
    expect((await http.get('/api/finance/pledges')).statusCode).toBe(200);
  });

  it('import: too many rows, missing CSV columns, bad batch, content type', async () => {
    const before = await counts();
    const http = api(ctx.app, tr.token);
    expectError(await http.post('/api/finance/contributions/import', { rows: Array.from({ length: 10_001 }, () => ({ date: '2026-01-01', amount: 1, fund: 'General' })) }), 400);
    const csv = (body: string, query = '') =>
      ctx.app.inject({ method: 'POST', url: `/api/finance/contributions/import${query}`, payload: body, headers: { authorization: `Bearer ${tr.token}`, 'content-type': 'text/csv' } });
    expect(expectError(await csv('date,name\n2026-01-01,Eve Error\n'), 400)).toContain('amount, fund');
    expectError(await csv('date,amount,fund\n"2026-01-01,1,General\n'), 400);
    expect(expectError(await csv('date,amount,fund\n2026-01-01,1,General\n', '?batchId=987654'), 404)).toBe('Batch with id 987654 not found');
    const tooMany = `date,amount,fund\n${'2026-01-01,1,General\n'.repeat(10_001)}`;
    expectError(await csv(tooMany), 400);
    const closed = await newBatch(ctx, tr.token);
    await http.put(`/api/finance/batches/${closed.id}/close`, {});
    expectError(await http.post('/api/finance/contributions/import', { rows: [{ date: '2026-01-01', amount: 1, fund: 'General' }], batchId: closed.id }), 409);
    const xml = await ctx.app.inject({ method: 'POST', url: '/api/finance/contributions/import', payload: '<rows/>', headers: { authorization: `Bearer ${tr.token}`, 'content-type': 'application/xml' } });
    expect(xml.statusCode).toBe(415);
    const inactiveRow = await http.post('/api/finance/contributions/import', { rows: [{ date: '2026-01-01', amount: 1, fund: 'Old' }], dryRun: true });
    expect(inactiveRow.json().rows[0]).toMatchObject({ status: 'failed', message: 'Fund Old is not active' });
    expect((await counts())[0]).toBe(before[0]);
  });

  it('statements and bulk: unknown contact or fund 404', async () => {
    const http = api(ctx.app, tr.token);
    expect(expectError(await http.get('/api/finance/statements/987654'), 404)).toBe('Contact with id 987654 not found');
    const admin = await newTreasurer(ctx, t, ['finance:admin']);
    expect(expectError(await api(ctx.app, admin.token).post('/api/finance/statements/bulk', { fundIds: [987654] }), 404)).toBe('Fund with id 987654 not found');
  });
});
