import { beforeAll, describe, expect, it } from 'vitest';
import { todayIn } from '../../src/lib/periods.js';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { newPerson } from '../helpers/contacts.factories.js';
import { newTenant, type TestTenant, type TestUser } from '../helpers/factories.js';
import { newBatch, newFund, newTreasurer } from '../helpers/finance.factories.js';

/**
 * What a treasurer met in the API and should not (issue 34): a one-fund gift as `fundId` + `amount`;
 * closing a batch without a body; a church's first statement in its first year.
 */
const ctx = setupTestApp();

describe('the treasurer\'s API', () => {
  let t: TestTenant;
  let tr: TestUser;
  let general: { id: number };
  let building: { id: number };
  let donor: { id: number };
  beforeAll(async () => {
    t = await newTenant(ctx);
    tr = await newTreasurer(ctx, t, ['finance:admin']);
    general = await newFund(ctx, tr.token, { name: 'General' });
    building = await newFund(ctx, tr.token, { name: 'Building' });
    donor = await newPerson(ctx, t, 'Ruth', 'Adams');
  });

  it('a one-fund gift is fundId + amount; a split is lines; both or neither is 400, nothing written', async () => {
    const client = api(ctx.app, tr.token);
    const today = todayIn('UTC');
    const one = await client.post('/api/finance/contributions', { contactId: donor.id, date: today, amount: 5000, method: 'Cash', fundId: general.id });
    expect(one.statusCode, one.body).toBe(201);
    expect(one.json().lines).toEqual([{ fund: { id: general.id, name: 'General' }, amount: 5000 }]);
    // On update, fundId moves the whole (new) amount to one fund.
    const moved = await client.put(`/api/finance/contributions/${one.json().id}`, { amount: 6000, fundId: building.id });
    expect(moved.statusCode, moved.body).toBe(200);
    expect(moved.json()).toMatchObject({ amount: 6000, lines: [{ fund: { id: building.id }, amount: 6000 }] });

    const before = (await client.get('/api/finance/contributions')).json().total;
    expect(expectError(await client.post('/api/finance/contributions', { date: today, amount: 100, method: 'Cash' }), 400)).toMatch(/either fundId .* or lines/);
    expect(expectError(await client.post('/api/finance/contributions', {
      date: today, amount: 100, method: 'Cash', fundId: general.id, lines: [{ fundId: general.id, amount: 100 }],
    }), 400)).toMatch(/not both/);
    expect(expectError(await client.put(`/api/finance/contributions/${one.json().id}`, { fundId: general.id, lines: [{ fundId: general.id, amount: 6000 }] }), 400)).toMatch(/not both/);
    expect((await client.get('/api/finance/contributions')).json().total).toBe(before);
  });

  it('closing a batch without a body is closing without force; a body that is not an object is still 400', async () => {
    const client = api(ctx.app, tr.token);
    const balanced = await newBatch(ctx, tr.token, { controlAmount: 0, controlCount: 0 });
    const closed = await ctx.app.inject({ method: 'PUT', url: `/api/finance/batches/${balanced.id}/close`, headers: { authorization: `Bearer ${tr.token}` } });
    expect(closed.statusCode, closed.body).toBe(200);
    expect(closed.json().status).toBe('Closed');
    const short = await newBatch(ctx, tr.token, { controlAmount: 500, controlCount: 1 });
    const refused = await ctx.app.inject({ method: 'PUT', url: `/api/finance/batches/${short.id}/close`, headers: { authorization: `Bearer ${tr.token}` } });
    expect(expectError(refused, 409)).toMatch(/does not balance: .*short by USD 5\.00, 0 gifts against 1 counted/);
    // A body that is not an object is still 400.
    expectError(await client.put(`/api/finance/batches/${short.id}/close`, [] as never), 400);
    expect((await client.get(`/api/finance/batches/${short.id}`)).json().status).toBe('Open');
  });

  it("a church's first statement: no gift last year, so the default period is this year to date (and says so); with last year's gifts, last year", async () => {
    const fresh = await newTenant(ctx);
    const treasurer = await newTreasurer(ctx, fresh);
    const fund = await newFund(ctx, treasurer.token, { name: 'General' });
    const giver = await newPerson(ctx, fresh, 'First', 'Year');
    const client = api(ctx.app, treasurer.token);
    const today = todayIn('UTC');
    const year = Number(today.slice(0, 4));
    expect((await client.post('/api/finance/contributions', { contactId: giver.id, date: `${year}-01-01`, amount: 700, method: 'Cash', fundId: fund.id })).statusCode).toBe(201);
    const first = (await client.get(`/api/finance/statements/${giver.id}`)).json();
    expect(first.period).toEqual({ from: `${year}-01-01`, to: today });
    expect(first.totals.total).toBe(700);
    expect((await client.post('/api/finance/contributions', { contactId: giver.id, date: `${year - 1}-06-01`, amount: 300, method: 'Cash', fundId: fund.id })).statusCode).toBe(201);
    const next = (await client.get(`/api/finance/statements/${giver.id}`)).json();
    expect(next.period).toEqual({ from: `${year - 1}-01-01`, to: `${year - 1}-12-31` });
    expect(next.totals.total).toBe(300);
    // A date given is a date kept.
    expect((await client.get(`/api/finance/statements/${giver.id}?from=${year - 5}-01-01`)).json().period.from).toBe(`${year - 5}-01-01`);
  });
});
