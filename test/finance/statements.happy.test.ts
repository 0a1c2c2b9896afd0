import { and, eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { changes } from '../../src/db/schema/index.js';
import { api, setupTestApp } from '../helpers/app.js';
import { newPerson } from '../helpers/contacts.factories.js';
import { newTenant, newUser, type TestTenant, type TestUser } from '../helpers/factories.js';
import { newFund, newGift, newTreasurer, pdfText } from '../helpers/finance.factories.js';

const ctx = setupTestApp();

/** Collects an inject response body as a Buffer (PDF and ZIP are binary). */
async function raw(url: string, token: string, method: 'GET' | 'POST' = 'GET', payload?: unknown) {
  const res = await ctx.app.inject({ method, url, payload: payload as never, headers: { authorization: `Bearer ${token}` } });
  return { res, body: res.rawPayload };
}

describe('pledges', () => {
  let t: TestTenant;
  let tr: TestUser;
  let fund: { id: number; name: string };
  let other: { id: number };
  let donor: { id: number };
  beforeAll(async () => {
    t = await newTenant(ctx);
    tr = await newTreasurer(ctx, t);
    fund = await newFund(ctx, tr.token, { name: 'Building' });
    other = await newFund(ctx, tr.token, { name: 'General' });
    donor = await newPerson(ctx, t, 'Paul', 'Ledger');
    await newGift(ctx, tr.token, { contactId: donor.id, fundId: fund.id, amount: 5000, date: '2026-01-15' });
    await newGift(ctx, tr.token, { contactId: donor.id, fundId: fund.id, amount: 2500, date: '2026-03-31' });
    await newGift(ctx, tr.token, { contactId: donor.id, fundId: fund.id, amount: 9999, date: '2025-12-31' }); // before the start
    await newGift(ctx, tr.token, { contactId: donor.id, fundId: other.id, amount: 7777, date: '2026-02-01' }); // another fund
    const split = await newGift(ctx, tr.token, { contactId: donor.id, amount: 1000, date: '2026-02-02', lines: [{ fundId: fund.id, amount: 600 }, { fundId: other.id, amount: 400 }] });
    await api(ctx.app, tr.token).post(`/api/finance/contributions/${split.id}/refund`, { amount: 500 });
  });

  it.each([
    ['Monthly', '2026-01-01', '2026-12-31', 12],
    ['Weekly', '2026-01-04', '2026-01-31', 4],
    ['Quarterly', '2026-01-01', '2026-12-31', 4],
    ['Yearly', '2026-01-01', '2028-06-30', 3],
    ['OneTime', '2026-01-01', null, 1],
  ])('%s from %s to %s has %i occurrences; given = gifts to the fund between the dates, net of refunds', async (frequency, startDate, endDate, occurrences) => {
    const res = await api(ctx.app, tr.token).post('/api/finance/pledges', { contactId: donor.id, fundId: fund.id, amount: 1000, frequency, startDate, endDate, campaign: 'Roof' });
    expect(res.statusCode, res.body).toBe(201);
    const p = res.json();
    const given = endDate === '2026-01-31' ? 5000 : 5000 + 2500 + 300;
    const total = 1000 * (occurrences as number);
    expect(p).toMatchObject({
      contactId: donor.id, contact: { id: donor.id, firstName: 'Paul', lastName: 'Ledger' }, fund: { id: fund.id, name: 'Building' }, amount: 1000, currency: 'USD',
      frequency, startDate, endDate, campaign: 'Roof', occurrences, totalPledged: total, givenAmount: given,
      remainingAmount: Math.max(total - given, 0), percentComplete: Math.floor((given * 1000) / total) / 10,
    });
  });

  it('records pledge.created, lists with filters, updates and deletes', async () => {
    const p = (await api(ctx.app, tr.token).post('/api/finance/pledges', { contactId: donor.id, fundId: other.id, amount: 300, frequency: 'Monthly', startDate: '2026-01-01', endDate: '2026-03-31', campaign: 'Mission' })).json();
    const [change] = await ctx.db.select().from(changes).where(and(eq(changes.tenantId, t.id), eq(changes.type, 'pledge.created'), eq(changes.entityId, p.id)));
    expect(change.data).toMatchObject({ contactId: donor.id, amount: 300, fundIds: [other.id] });
    const http = api(ctx.app, tr.token);
    expect((await http.get('/api/finance/pledges?campaign=Mission')).json().data.map((x: { id: number }) => x.id)).toEqual([p.id]);
    expect((await http.get(`/api/finance/pledges?fundId=${other.id}`)).json().total).toBe(1);
    expect((await http.get(`/api/finance/pledges?contactId=${donor.id}`)).json().total).toBe(6);
    const upd = await http.put(`/api/finance/pledges/${p.id}`, { amount: 400, endDate: '2026-04-30' });
    expect(upd.json()).toMatchObject({ amount: 400, occurrences: 4, totalPledged: 1600 });
    expect((await http.delete(`/api/finance/pledges/${p.id}`)).statusCode).toBe(204);
    expect((await http.get(`/api/finance/pledges/${p.id}`)).statusCode).toBe(404);
  });
});

describe('statements, summary and my giving', () => {
  let t: TestTenant;
  let tr: TestUser;
  let member: TestUser;
  let deductible: { id: number; name: string };
  let building: { id: number; name: string };
  let donor: { id: number };
  beforeAll(async () => {
    t = await newTenant(ctx);
    tr = await newTreasurer(ctx, t);
    deductible = await newFund(ctx, tr.token, { name: 'General' });
    building = await newFund(ctx, tr.token, { name: 'Building', isTaxDeductible: false });
    donor = await newPerson(ctx, t, 'Dora', 'Donor', { addresses: [{ street: '1 Church Lane', city: 'Kampala', country: 'Uganda', isPrimary: true }] });
    member = await newUser(ctx, t, 'Member', { contactId: donor.id });
    // 3 × 33.33 = 99.99 exactly, in integers.
    for (const date of ['2025-02-01', '2025-03-01', '2025-04-01']) await newGift(ctx, tr.token, { contactId: donor.id, fundId: deductible.id, amount: 3333, date, method: 'Card', reference: 'card' });
    await newGift(ctx, tr.token, { contactId: donor.id, amount: 10001, date: '2025-05-10', lines: [{ fundId: deductible.id, amount: 1 }, { fundId: building.id, amount: 10000 }] });
    const refunded = await newGift(ctx, tr.token, { contactId: donor.id, fundId: deductible.id, amount: 700, date: '2025-06-01' });
    await api(ctx.app, tr.token).post(`/api/finance/contributions/${refunded.id}/refund`, { amount: 700 });
    await newGift(ctx, tr.token, { contactId: donor.id, fundId: deductible.id, amount: 1, date: '2026-01-01' }); // outside 2025
    const other = await newPerson(ctx, t, 'Sam', 'Small');
    await newGift(ctx, tr.token, { contactId: other.id, fundId: deductible.id, amount: 50, date: '2025-02-02' });
  });

  it('JSON statement: lines, totals by fund and deductible, exact integers', async () => {
    const res = await api(ctx.app, tr.token).get(`/api/finance/statements/${donor.id}?from=2025-01-01&to=2025-12-31`);
    expect(res.statusCode, res.body).toBe(200);
    const s = res.json();
    expect(s).toMatchObject({
      tenant: { name: `Church ${t.slug}`, address: null, taxNumber: null, statementClosing: null, paperSize: 'A4' },
      contact: { id: donor.id, firstName: 'Dora', lastName: 'Donor', address: { street: '1 Church Lane', city: 'Kampala', country: 'Uganda' } },
      period: { from: '2025-01-01', to: '2025-12-31' }, currency: 'USD',
      totals: { total: 20000, deductible: 10000, byFund: [{ fund: { id: building.id, name: 'Building' }, amount: 10000 }, { fund: { id: deductible.id, name: 'General' }, amount: 10000 }] },
    });
    expect(s.lines.map((l: { date: string; amount: number }) => [l.date, l.amount])).toEqual([
      ['2025-02-01', 3333], ['2025-03-01', 3333], ['2025-04-01', 3333], ['2025-05-10', 1], ['2025-05-10', 10000],
    ]);
    expect(s.lines[0]).toMatchObject({ method: 'Card', reference: 'card', fund: { name: 'General' } });
  });

  it('defaults to the previous calendar year in the tenant time zone', async () => {
    await api(ctx.app, t.admin.token).put('/api/tenants/current', { timeZone: 'Pacific/Kiritimati' });
    const s = (await api(ctx.app, tr.token).get(`/api/finance/statements/${donor.id}`)).json();
    const { todayIn } = await import('../../src/lib/periods.js');
    const year = Number(todayIn('Pacific/Kiritimati').slice(0, 4)) - 1;
    expect(s.period).toEqual({ from: `${year}-01-01`, to: `${year}-12-31` });
  });

  it('CSV statement', async () => {
    const res = await api(ctx.app, tr.token).get(`/api/finance/statements/${donor.id}?from=2025-01-01&to=2025-12-31&format=csv`);
    expect(res.headers['content-type']).toContain('text/csv');
    const lines = res.body.trim().split('\r\n');
    expect(lines[0]).toBe('date,fund,amount,currency,method,reference,taxDeductible');
    expect(lines[1]).toBe('2025-02-01,General,3333,USD,Card,card,true');
    expect(lines).toHaveLength(6);
  });

  it('PDF statement: a real PDF naming the church, the donor, the address and the totals', async () => {
    const { res, body } = await raw(`/api/finance/statements/${donor.id}?from=2025-01-01&to=2025-12-31&format=pdf`, tr.token);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(res.headers['content-disposition']).toContain('.pdf');
    expect(body.subarray(0, 5).toString()).toBe('%PDF-');
    const text = pdfText(body);
    for (const expected of [`Church ${t.slug}`, 'Dora Donor', '1 Church Lane', 'Kampala', 'USD 33.33', 'USD 200.00', 'USD 100.00', 'Building']) expect(text).toContain(expected);
  });

  it('statements are read-only routes: repeated reads, answers sent before COMMIT, and a missing contact keep no connection', async () => {
    const readOnly = ctx.app.registeredRoutes.filter((r) => r.config?.readOnly).map((r) => r.url);
    expect(readOnly).toEqual(expect.arrayContaining(['/api/finance/statements/:contactId', '/api/finance/my/statement']));
    // The test pool has 5 connections: one kept per request would hang every request after the fifth.
    for (let i = 0; i < 8; i++) {
      expect((await raw(`/api/finance/statements/${donor.id}?from=2025-01-01&to=2025-12-31&format=pdf`, tr.token)).res.statusCode).toBe(200);
      expect((await api(ctx.app, tr.token).get('/api/finance/statements/2147483000?from=2025-01-01&to=2025-12-31')).statusCode).toBe(404);
      expect((await api(ctx.app, member.token).get('/api/finance/my/statement?from=2025-01-01&to=2025-12-31')).json().totals.total).toBe(20000);
    }
  }, 30_000);

  it('bulk statements: a streamed ZIP with one PDF per donor reaching minTotal (finance:admin)', async () => {
    const admin = await newTreasurer(ctx, t, ['finance:admin']);
    const { res, body } = await raw('/api/finance/statements/bulk', admin.token, 'POST', { from: '2025-01-01', to: '2025-12-31', minTotal: 100 });
    expect(res.statusCode, body.toString().slice(0, 200)).toBe(200);
    expect(res.headers['content-type']).toBe('application/zip');
    expect(body.subarray(0, 4).toString('hex')).toBe('504b0304');
    const entries = zipEntries(body);
    expect(entries.map((e) => e.name)).toEqual([`statement-${donor.id}-Donor-2025-01-01-2025-12-31.pdf`]);
    expect(entries[0].data.subarray(0, 5).toString()).toBe('%PDF-');
    expect(pdfText(entries[0].data)).toContain('Dora Donor');
    const both = await raw('/api/finance/statements/bulk', admin.token, 'POST', { from: '2025-01-01', to: '2025-12-31', minTotal: 1 });
    expect(zipEntries(both.body)).toHaveLength(2);
    const byFund = await raw('/api/finance/statements/bulk', admin.token, 'POST', { from: '2025-01-01', to: '2025-12-31', fundIds: [building.id] });
    expect(zipEntries(byFund.body)).toHaveLength(1);
    expect((await api(ctx.app, tr.token).post('/api/finance/statements/bulk', {})).statusCode).toBe(403);
  });

  it('summary: every period present, byFund, donors, averageGift, net of refunds', async () => {
    const res = await api(ctx.app, tr.token).get('/api/finance/summary?from=2025-01-01&to=2025-06-30');
    expect(res.statusCode, res.body).toBe(200);
    const s = res.json();
    expect(s).toMatchObject({ from: '2025-01-01', to: '2025-06-30', interval: 'month', currency: 'USD' });
    expect(s.data.map((d: { period: string; total: number; count: number; donors: number }) => [d.period, d.total, d.count, d.donors])).toEqual([
      ['2025-01-01', 0, 0, 0], ['2025-02-01', 3383, 2, 2], ['2025-03-01', 3333, 1, 1], ['2025-04-01', 3333, 1, 1], ['2025-05-01', 10001, 1, 1], ['2025-06-01', 0, 0, 0],
    ]);
    expect(s.data[4].byFund).toEqual([{ fund: { id: building.id, name: 'Building' }, amount: 10000 }, { fund: { id: deductible.id, name: 'General' }, amount: 1 }]);
    expect(s.totals).toEqual({ total: 20050, count: 5, donors: 2, averageGift: 4010 });
    const weeks = (await api(ctx.app, tr.token).get(`/api/finance/summary?from=2025-02-01&to=2025-02-14&interval=week&fundId=${deductible.id}`)).json();
    expect(weeks.data.map((d: { period: string; total: number }) => [d.period, d.total])).toEqual([['2025-01-26', 3333], ['2025-02-02', 50], ['2025-02-09', 0]]);
  });

  it('my/contributions and my/statement show the caller own giving with any token', async () => {
    const mine = await api(ctx.app, member.token).get('/api/finance/my/contributions?limit=2');
    expect(mine.statusCode, mine.body).toBe(200);
    expect(mine.json()).toMatchObject({ total: 6, limit: 2 });
    expect(mine.json().data.every((c: { contact: { id: number } }) => c.contact.id === donor.id)).toBe(true);
    const st = await api(ctx.app, member.token).get('/api/finance/my/statement?from=2025-01-01&to=2025-12-31');
    expect(st.json().totals.total).toBe(20000);
    const pdf = await raw('/api/finance/my/statement?from=2025-01-01&to=2025-12-31&format=pdf', member.token);
    expect(pdfText(pdf.body)).toContain('Dora Donor');
    const nobody = await newUser(ctx, t, 'Member');
    expect((await api(ctx.app, nobody.token).get('/api/finance/my/contributions')).json()).toMatchObject({ total: 0, data: [] });
  });
});

describe('the church on its statements (tenant settings, issue 34)', () => {
  const A4 = /\/MediaBox \[0 0 595\.28 841\.89\]/;
  const LETTER = /\/MediaBox \[0 0 612 792\]/;
  const CLOSING = 'No goods or services were provided in exchange for these contributions.';

  it('prints the church\'s address, tax number and closing sentence, the donor\'s primary address, on the tenant\'s paper size', async () => {
    const t = await newTenant(ctx);
    const tr = await newTreasurer(ctx, t, ['finance:admin']);
    const fund = await newFund(ctx, tr.token, { name: 'General' });
    const donor = await newPerson(ctx, t, 'Ruth', 'Giver', {
      addresses: [{ street: '2 Old Road', city: 'Mbale', country: 'UG', isPrimary: false }, { street: '7 Hill Street', city: 'Jinja', country: 'UG', isPrimary: true }],
    });
    await newGift(ctx, tr.token, { contactId: donor.id, fundId: fund.id, amount: 4200, date: '2025-04-01' });
    const url = `/api/finance/statements/${donor.id}?from=2025-01-01&to=2025-12-31`;

    // Defaults: A4, nothing about the church but its name.
    const before = await raw(`${url}&format=pdf`, tr.token);
    expect(before.body.toString('latin1')).toMatch(A4);
    expect(before.body.toString('latin1')).not.toMatch(LETTER);
    expect(pdfText(before.body)).not.toContain('tax number');

    const put = await api(ctx.app, t.admin.token).put('/api/tenants/current', { address: '12 Church Road\nKampala, Uganda', taxNumber: 'UG-501(c)3-77', statementClosing: CLOSING, paperSize: 'Letter' });
    expect(put.statusCode, put.body).toBe(200);
    const { res, body } = await raw(`${url}&format=pdf`, tr.token);
    expect(res.statusCode).toBe(200);
    expect(body.toString('latin1')).toMatch(LETTER);
    expect(body.toString('latin1')).not.toMatch(A4);
    const text = pdfText(body);
    for (const expected of [`Church ${t.slug}`, '12 Church Road', 'Kampala, Uganda', 'Registration / tax number: UG-501(c)3-77', 'Ruth Giver', '7 Hill Street', 'Jinja', CLOSING]) expect(text).toContain(expected);
    expect(text).not.toContain('2 Old Road');
    expect(text.indexOf(CLOSING)).toBeGreaterThan(text.indexOf('Tax-deductible'));

    // The JSON statement names them too.
    expect((await api(ctx.app, tr.token).get(url)).json().tenant).toEqual({
      name: `Church ${t.slug}`, address: '12 Church Road\nKampala, Uganda', taxNumber: 'UG-501(c)3-77', statementClosing: CLOSING, paperSize: 'Letter',
    });

    // Bulk statements read the same settings.
    const bulk = await raw('/api/finance/statements/bulk', tr.token, 'POST', { from: '2025-01-01', to: '2025-12-31' });
    expect(bulk.res.statusCode).toBe(200);
    const [entry] = zipEntries(bulk.body);
    expect(entry.data.toString('latin1')).toMatch(LETTER);
    for (const expected of ['12 Church Road', 'UG-501(c)3-77', CLOSING, '7 Hill Street']) expect(pdfText(entry.data)).toContain(expected);

    // Back to A4 with the address cleared (blank is none).
    await api(ctx.app, t.admin.token).put('/api/tenants/current', { address: '  ', paperSize: 'A4' });
    const after = await raw(`${url}&format=pdf`, tr.token);
    expect(after.body.toString('latin1')).toMatch(A4);
    expect(pdfText(after.body)).not.toContain('12 Church Road');
    expect(pdfText(after.body)).toContain(CLOSING);
  });
});

/** The entries of a ZIP (stored or deflated), read from the local file headers and data descriptors. */
function zipEntries(zip: Buffer): { name: string; data: Buffer }[] {
  const { inflateRawSync } = require('node:zlib') as typeof import('node:zlib');
  const out: { name: string; data: Buffer }[] = [];
  // The central directory has reliable sizes (archiver streams entries with data descriptors).
  const eocd = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  const entries = zip.readUInt16LE(eocd + 10);
  let p = zip.readUInt32LE(eocd + 16);
  for (let i = 0; i < entries; i++) {
    const method = zip.readUInt16LE(p + 10);
    const size = zip.readUInt32LE(p + 20);
    const nameLen = zip.readUInt16LE(p + 28);
    const extraLen = zip.readUInt16LE(p + 30);
    const commentLen = zip.readUInt16LE(p + 32);
    const local = zip.readUInt32LE(p + 42);
    const name = zip.subarray(p + 46, p + 46 + nameLen).toString();
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const data = zip.subarray(start, start + size);
    out.push({ name, data: method === 8 ? inflateRawSync(data) : Buffer.from(data) });
    p += 46 + nameLen + extraLen + commentLen;
  }
  return out;
}
