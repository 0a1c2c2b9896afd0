import { beforeAll, describe, expect, it } from 'vitest';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { newPerson } from '../helpers/contacts.factories.js';
import { newTenant, newUser, type TestTenant, type TestUser } from '../helpers/factories.js';
import { newBatch, newFund, newGift, newTreasurer } from '../helpers/finance.factories.js';

const ctx = setupTestApp();

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** Every finance route with a body that passes validation, and the permission it needs. */
function routes(ids: { fund: number; batch: number; contribution: number; pledge: number; contact: number }) {
  const gift = { date: '2026-03-01', method: 'Cash', amount: 1, lines: [{ fundId: ids.fund, amount: 1 }] };
  const list: [Method, string, unknown, string][] = [
    ['GET', '/api/finance/funds', undefined, 'finance:read'],
    ['POST', '/api/finance/funds', { name: 'X' }, 'finance:write'],
    ['GET', `/api/finance/funds/${ids.fund}`, undefined, 'finance:read'],
    ['PUT', `/api/finance/funds/${ids.fund}`, { name: 'Y' }, 'finance:write'],
    ['DELETE', `/api/finance/funds/${ids.fund}`, undefined, 'finance:write'],
    ['GET', '/api/finance/batches', undefined, 'finance:read'],
    ['POST', '/api/finance/batches', { name: 'b', date: '2026-01-01' }, 'finance:write'],
    ['GET', `/api/finance/batches/${ids.batch}`, undefined, 'finance:read'],
    ['PUT', `/api/finance/batches/${ids.batch}`, { name: 'b2' }, 'finance:write'],
    ['DELETE', `/api/finance/batches/${ids.batch}`, undefined, 'finance:write'],
    ['PUT', `/api/finance/batches/${ids.batch}/close`, { force: true }, 'finance:write'],
    ['PUT', `/api/finance/batches/${ids.batch}/reopen`, undefined, 'finance:admin'],
    ['GET', '/api/finance/contributions', undefined, 'finance:read'],
    ['POST', '/api/finance/contributions', gift, 'finance:write'],
    ['GET', `/api/finance/contributions/${ids.contribution}`, undefined, 'finance:read'],
    ['PUT', `/api/finance/contributions/${ids.contribution}`, { notes: 'x' }, 'finance:write'],
    ['DELETE', `/api/finance/contributions/${ids.contribution}`, undefined, 'finance:write'],
    ['POST', `/api/finance/contributions/${ids.contribution}/refund`, { amount: 1 }, 'finance:write'],
    ['POST', '/api/finance/contributions/import', { rows: [], dryRun: true }, 'finance:write'],
    ['GET', '/api/finance/contributions/export', undefined, 'finance:read'],
    ['GET', '/api/finance/pledges', undefined, 'finance:read'],
    ['POST', '/api/finance/pledges', { contactId: ids.contact, fundId: ids.fund, amount: 1, frequency: 'OneTime', startDate: '2026-01-01' }, 'finance:write'],
    ['GET', `/api/finance/pledges/${ids.pledge}`, undefined, 'finance:read'],
    ['PUT', `/api/finance/pledges/${ids.pledge}`, { amount: 2 }, 'finance:write'],
    ['DELETE', `/api/finance/pledges/${ids.pledge}`, undefined, 'finance:write'],
    ['GET', `/api/finance/statements/${ids.contact}`, undefined, 'finance:read'],
    ['GET', `/api/finance/statements/${ids.contact}?format=pdf`, undefined, 'finance:read'],
    ['POST', '/api/finance/statements/bulk', {}, 'finance:admin'],
    ['GET', '/api/finance/summary', undefined, 'finance:read'],
  ];
  return list;
}

const send = (token: string | undefined, method: Method, url: string, payload?: unknown) =>
  ctx.app.inject({ method, url, payload: payload as never, headers: token ? { authorization: `Bearer ${token}` } : {} });

describe('finance security', () => {
  let t: TestTenant;
  let other: TestTenant;
  let tr: TestUser;
  let leader: TestUser;
  let member: TestUser;
  let ids: { fund: number; batch: number; contribution: number; pledge: number; contact: number };
  let foreign: typeof ids;

  async function seed(tenant: TestTenant) {
    const u = await newTreasurer(ctx, tenant);
    const fund = await newFund(ctx, u.token);
    const batch = await newBatch(ctx, u.token);
    const contact = await newPerson(ctx, tenant, 'Sec', 'Urity');
    const contribution = await newGift(ctx, u.token, { fundId: fund.id, contactId: contact.id, batchId: batch.id });
    const pledge = (await api(ctx.app, u.token).post('/api/finance/pledges', { contactId: contact.id, fundId: fund.id, amount: 5, frequency: 'OneTime', startDate: '2026-01-01' })).json();
    return { user: u, ids: { fund: fund.id, batch: batch.id, contribution: contribution.id, pledge: pledge.id, contact: contact.id } };
  }

  beforeAll(async () => {
    t = await newTenant(ctx);
    other = await newTenant(ctx);
    const mine = await seed(t);
    tr = mine.user;
    ids = mine.ids;
    foreign = (await seed(other)).ids;
    leader = await newUser(ctx, t, 'Leader');
    member = await newUser(ctx, t, 'Member');
  });

  it('no token: 401 on every finance route, my/* included', async () => {
    for (const [method, url, body] of [...routes(ids), ['GET', '/api/finance/my/contributions', undefined], ['GET', '/api/finance/my/statement', undefined]] as [Method, string, unknown][]) {
      expectError(await send(undefined, method, url, body), 401);
    }
  });

  it('Leader and Member (no finance permission) get 403 everywhere but my/*', async () => {
    for (const user of [leader, member]) {
      for (const [method, url, body] of routes(ids)) {
        const res = await send(user.token, method, url, body);
        expect(res.statusCode, `${method} ${url}`).toBe(403);
      }
    }
  });

  it('finance:read alone cannot write; the Treasurer (no finance:admin) cannot reopen or bulk', async () => {
    const reader = await newUser(ctx, t, ['finance:read']);
    for (const [method, url, body, permission] of routes(ids)) {
      const res = await send(reader.token, method, url, body);
      if (permission === 'finance:read') expect(res.statusCode, `${method} ${url}`).toBe(200);
      else expect(res.statusCode, `${method} ${url}`).toBe(403);
    }
    for (const [method, url, body, permission] of routes(ids)) {
      if (permission === 'finance:admin') expect((await send(tr.token, method, url, body)).statusCode, url).toBe(403);
    }
  });

  it("another tenant's ids are 404 everywhere, in paths and in bodies; filters naming them list nothing", async () => {
    const http = api(ctx.app, tr.token);
    const admin = await newTreasurer(ctx, t, ['finance:admin']);
    for (const [method, url, body, permission] of routes(foreign)) {
      if (!/\/\d+/.test(url)) continue;
      const res = await send(permission === 'finance:admin' ? admin.token : tr.token, method, url, body);
      expect(res.statusCode, `${method} ${url}`).toBe(404);
    }
    const gift = { date: '2026-03-01', method: 'Cash', amount: 1 };
    expectError(await http.post('/api/finance/contributions', { ...gift, lines: [{ fundId: foreign.fund, amount: 1 }] }), 404);
    expectError(await http.post('/api/finance/contributions', { ...gift, lines: [{ fundId: ids.fund, amount: 1 }], contactId: foreign.contact }), 404);
    expectError(await http.post('/api/finance/contributions', { ...gift, lines: [{ fundId: ids.fund, amount: 1 }], batchId: foreign.batch }), 404);
    expectError(await http.put(`/api/finance/contributions/${ids.contribution}`, { batchId: foreign.batch }), 404);
    expectError(await http.post('/api/finance/pledges', { contactId: foreign.contact, fundId: ids.fund, amount: 1, frequency: 'OneTime', startDate: '2026-01-01' }), 404);
    expectError(await http.post('/api/finance/contributions/import', { rows: [], batchId: foreign.batch }), 404);
    const imported = await http.post('/api/finance/contributions/import', { rows: [{ date: '2026-01-01', amount: 1, fund: 'x', contactId: foreign.contact }], dryRun: true });
    expect(imported.json().rows[0].status).toBe('failed');
    expectError(await api(ctx.app, admin.token).post('/api/finance/statements/bulk', { fundIds: [foreign.fund] }), 404);
    for (const q of [`contactId=${foreign.contact}`, `fundId=${foreign.fund}`, `batchId=${foreign.batch}`]) {
      expect((await http.get(`/api/finance/contributions?${q}`)).json()).toMatchObject({ total: 0, data: [] });
    }
    expect((await http.get(`/api/finance/pledges?contactId=${foreign.contact}`)).json().total).toBe(0);
    const all = (await http.get('/api/finance/contributions')).json();
    expect(all.data.map((c: { id: number }) => c.id)).toEqual([ids.contribution]);
  });

  it('my/* needs only a valid token and shows only the caller own giving', async () => {
    const donor = await newPerson(ctx, t, 'Own', 'Giver');
    const fund = await newFund(ctx, tr.token);
    await newGift(ctx, tr.token, { fundId: fund.id, contactId: donor.id, amount: 4242 });
    const self = await newUser(ctx, t, 'Member', { contactId: donor.id });
    const mine = (await api(ctx.app, self.token).get('/api/finance/my/contributions')).json();
    expect(mine.data.map((c: { amount: number }) => c.amount)).toEqual([4242]);
    expect((await api(ctx.app, leader.token).get('/api/finance/my/contributions')).json()).toMatchObject({ total: 0 });
    const st = await api(ctx.app, self.token).get('/api/finance/my/statement?from=2026-01-01&to=2026-12-31');
    expect(st.json().totals.total).toBe(4242);
    // Another user's giving is not reachable through my/*: there is no contact parameter, and guessing one is 400.
    expect(expectError(await api(ctx.app, self.token).get(`/api/finance/my/contributions?contactId=${ids.contact}`), 400))
      .toBe('querystring/contactId is not a parameter of GET /api/finance/my/contributions');
    expectError(await api(ctx.app, self.token).get(`/api/finance/statements/${donor.id}`), 403);
  });
});
