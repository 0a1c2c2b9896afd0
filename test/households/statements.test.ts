import { inflateRawSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { newPerson } from '../helpers/contacts.factories.js';
import { newTenant, newUser, type TestTenant, type TestUser } from '../helpers/factories.js';
import { newFund, newGift, newTreasurer, pdfText } from '../helpers/finance.factories.js';
import { newFamily } from '../helpers/households.factories.js';

/** Giving together (modules-contract §8): a household's statement, and bulk statements per household or per person. */

const ctx = setupTestApp();
const YEAR = 'from=2025-01-01&to=2025-12-31';

async function raw(url: string, token: string, method: 'GET' | 'POST' = 'GET', payload?: unknown) {
  const res = await ctx.app.inject({ method, url, payload: payload as never, headers: { authorization: `Bearer ${token}` } });
  return { res, body: res.rawPayload };
}

/** The entries of a ZIP, read through its central directory (archiver streams entries with data descriptors). */
function zipEntries(zip: Buffer): { name: string; data: Buffer }[] {
  const out: { name: string; data: Buffer }[] = [];
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

type Person = { id: number; person?: { firstName: string; lastName: string } };
const fullName = (c: Person) => `${c.person!.firstName} ${c.person!.lastName}`;

describe('household statement', () => {
  let t: TestTenant;
  let other: TestTenant;
  let tr: TestUser;
  let general: { id: number; name: string };
  let building: { id: number; name: string };
  let family: Awaited<ReturnType<typeof newFamily>>;
  let theirs: Awaited<ReturnType<typeof newFamily>>;
  beforeAll(async () => {
    t = await newTenant(ctx);
    other = await newTenant(ctx);
    tr = await newTreasurer(ctx, t);
    general = await newFund(ctx, tr.token, { name: 'General' });
    building = await newFund(ctx, tr.token, { name: 'Building', isTaxDeductible: false });
    // givingTogether stays false: a household statement does not need it.
    family = await newFamily(ctx, t, 'Kato', ['Head', 'Spouse', 'Child'], { address: { street: '4 Mission Road', city: 'Gulu', country: 'Uganda' } });
    const [head, spouse] = family.people;
    await newGift(ctx, tr.token, { contactId: head.id, fundId: general.id, amount: 1000, date: '2025-02-01', reference: 'H1' });
    await newGift(ctx, tr.token, { contactId: spouse.id, fundId: building.id, amount: 2500, date: '2025-03-01', method: 'MobileMoney', reference: 'MM-7' });
    const refunded = await newGift(ctx, tr.token, { contactId: head.id, fundId: general.id, amount: 300, date: '2025-06-01' });
    await api(ctx.app, tr.token).post(`/api/finance/contributions/${refunded.id}/refund`, { amount: 100 });
    await newGift(ctx, tr.token, { contactId: head.id, fundId: general.id, amount: 9999, date: '2024-12-31' }); // before the period
    const outsider = await newPerson(ctx, t, 'Sam', 'Solo');
    await newGift(ctx, tr.token, { contactId: outsider.id, fundId: general.id, amount: 5000, date: '2025-02-01' }); // not a member
    theirs = await newFamily(ctx, other, 'Mensah', ['Head']);
  });

  it('JSON: every member\'s gifts with the giver on each line, totals over them all in integer minor units', async () => {
    const res = await api(ctx.app, tr.token).get(`/api/finance/statements/households/${family.household.id}?${YEAR}`);
    expect(res.statusCode, res.body).toBe(200);
    const s = res.json();
    const [head, spouse, child] = family.people as Person[];
    expect(s).toMatchObject({
      tenant: { name: `Church ${t.slug}`, address: null, taxNumber: null, statementClosing: null, paperSize: 'A4' },
      household: { id: family.household.id, name: 'Kato household', address: { street: '4 Mission Road', city: 'Gulu', country: 'Uganda' } },
      members: [
        { id: head.id, firstName: 'Head0', lastName: 'Kato' }, { id: spouse.id, firstName: 'Spouse1', lastName: 'Kato' }, { id: child.id, firstName: 'Child2', lastName: 'Kato' },
      ],
      period: { from: '2025-01-01', to: '2025-12-31' },
      currency: 'USD',
    });
    expect(s.lines.map((l: { date: string; giver: { id: number }; amount: number; fund: { name: string } }) => [l.date, l.giver.id, l.fund.name, l.amount])).toEqual([
      ['2025-02-01', head.id, 'General', 1000], ['2025-03-01', spouse.id, 'Building', 2500], ['2025-06-01', head.id, 'General', 200],
    ]);
    expect(s.lines[1]).toMatchObject({ giver: { id: spouse.id, firstName: 'Spouse1', lastName: 'Kato' }, method: 'MobileMoney', reference: 'MM-7' });
    expect(s.totals).toEqual({
      total: 3700, deductible: 1200,
      byFund: [{ fund: { id: building.id, name: 'Building' }, amount: 2500 }, { fund: { id: general.id, name: 'General' }, amount: 1200 }],
    });
  });

  it('defaults to the previous calendar year', async () => {
    const s = (await api(ctx.app, tr.token).get(`/api/finance/statements/households/${family.household.id}`)).json();
    const { todayIn } = await import('../../src/lib/periods.js');
    const year = Number(todayIn('UTC').slice(0, 4)) - 1;
    expect(s.period).toEqual({ from: `${year}-01-01`, to: `${year}-12-31` });
  });

  it('CSV: the lines with a giver column', async () => {
    const res = await api(ctx.app, tr.token).get(`/api/finance/statements/households/${family.household.id}?${YEAR}&format=csv`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/csv');
    expect(res.headers['content-disposition']).toContain(`household-statement-${family.household.id}-Kato-household-2025-01-01-2025-12-31.csv`);
    expect(res.body.trim().split('\r\n')).toEqual([
      'date,giver,fund,amount,currency,method,reference,taxDeductible',
      '2025-02-01,Head0 Kato,General,1000,USD,Cash,H1,true',
      '2025-03-01,Spouse1 Kato,Building,2500,USD,MobileMoney,MM-7,false',
      '2025-06-01,Head0 Kato,General,200,USD,Cash,,true',
    ]);
  });

  it('PDF: addressed to the household, naming each line\'s giver, with the totals', async () => {
    const { res, body } = await raw(`/api/finance/statements/households/${family.household.id}?${YEAR}&format=pdf`, tr.token);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(body.subarray(0, 5).toString()).toBe('%PDF-');
    const text = pdfText(body);
    for (const expected of ['Kato household', '4 Mission Road', 'Gulu', 'Giver', 'Head0 Kato', 'Spouse1 Kato', 'USD 25.00', 'USD 37.00', 'USD 12.00']) expect(text).toContain(expected);
    expect(text).not.toContain('Sam Solo');
  });

  it('404 for another tenant\'s household or an unknown id; 400 for a malformed id', async () => {
    const http = api(ctx.app, tr.token);
    expect(expectError(await http.get(`/api/finance/statements/households/${theirs.household.id}?${YEAR}`), 404)).toBe(`Household with id ${theirs.household.id} not found`);
    expect(expectError(await http.get('/api/finance/statements/households/2147483000'), 404)).toBe('Household with id 2147483000 not found');
    expectError(await http.get('/api/finance/statements/households/abc'), 400);
    expectError(await http.get('/api/finance/statements/households/0'), 400);
    expectError(await http.get(`/api/finance/statements/households/${family.household.id}?from=2025-12-31&to=2025-01-01`), 400);
    expectError(await http.get(`/api/finance/statements/households/${family.household.id}?format=xml`), 400);
  });

  it('403 without finance:read (contacts:read reads the household, not its giving)', async () => {
    const reader = await newUser(ctx, t, ['contacts:read', 'contacts:write']);
    expect((await api(ctx.app, reader.token).get(`/api/crm/households/${family.household.id}`)).statusCode).toBe(200);
    expectError(await api(ctx.app, reader.token).get(`/api/finance/statements/households/${family.household.id}?${YEAR}`), 403);
    expectError(await api(ctx.app, reader.token).get(`/api/finance/statements/households/${family.household.id}?${YEAR}&format=pdf`), 403);
  });
});

describe('bulk statements with households', () => {
  let t: TestTenant;
  let admin: TestUser;
  let abara: Awaited<ReturnType<typeof newFamily>>;
  let bello: Awaited<ReturnType<typeof newFamily>>;
  let chukwu: Awaited<ReturnType<typeof newFamily>>;
  let dede: Person;
  beforeAll(async () => {
    t = await newTenant(ctx);
    admin = await newTreasurer(ctx, t, ['finance:admin']);
    const fund = await newFund(ctx, admin.token, { name: 'General' });
    const give = (c: { id: number }, amount: number) => newGift(ctx, admin.token, { contactId: c.id, fundId: fund.id, amount, date: '2025-05-01' });
    // Abara give together: 600 + 500 reaches 1,000 only combined.
    abara = await newFamily(ctx, t, 'Abara', ['Head', 'Spouse', 'Child'], { givingTogether: true, address: { street: '9 Palm Avenue', city: 'Lagos', country: 'Nigeria' } });
    await give(abara.people[0], 600);
    await give(abara.people[1], 500);
    // Bello give together: 300 + 300 stays below 1,000.
    bello = await newFamily(ctx, t, 'Bello', ['Head', 'Spouse'], { givingTogether: true });
    await give(bello.people[0], 300);
    await give(bello.people[1], 300);
    // Chukwu do not: each on their own.
    chukwu = await newFamily(ctx, t, 'Chukwu', ['Head', 'Spouse']);
    await give(chukwu.people[0], 2000);
    await give(chukwu.people[1], 100);
    dede = await newPerson(ctx, t, 'Dede', 'Donor');
    await give(dede, 800);
  });

  async function bulk(minTotal?: number) {
    const { res, body } = await raw('/api/finance/statements/bulk', admin.token, 'POST', { from: '2025-01-01', to: '2025-12-31', ...(minTotal === undefined ? {} : { minTotal }) });
    expect(res.statusCode, body.toString().slice(0, 200)).toBe(200);
    expect(res.headers['content-type']).toBe('application/zip');
    const entries = zipEntries(body);
    expect(Number(res.headers['x-statement-count'])).toBe(entries.length);
    for (const e of entries) expect(e.data.subarray(0, 5).toString()).toBe('%PDF-');
    return entries.map((e) => ({ name: e.name, text: pdfText(e.data) }));
  }
  const household = (f: { household: { id: number } }, name: string) => `household-statement-${f.household.id}-${name}-household-2025-01-01-2025-12-31.pdf`;
  const person = (c: Person) => `statement-${c.id}-${c.person!.lastName}-2025-01-01-2025-12-31.pdf`;
  const donors = () => [...abara.people, ...bello.people, ...chukwu.people, dede].filter((c) => c !== abara.people[2]) as Person[];

  it('one PDF per giving-together household, one per other donor, no donor twice', async () => {
    const entries = await bulk();
    expect(entries.map((e) => e.name).sort()).toEqual([
      household(abara, 'Abara'), household(bello, 'Bello'), person(chukwu.people[0] as Person), person(chukwu.people[1] as Person), person(dede),
    ].sort());
    for (const donor of donors()) expect(entries.filter((e) => e.text.includes(fullName(donor))).map((e) => e.name), fullName(donor)).toHaveLength(1);
    const a = entries.find((e) => e.name === household(abara, 'Abara'))!.text;
    for (const expected of ['Abara household', '9 Palm Avenue', 'Lagos', 'Head0 Abara', 'Spouse1 Abara', 'USD 11.00']) expect(a).toContain(expected);
  });

  it('minTotal is compared with a giving-together household\'s combined total', async () => {
    const entries = await bulk(1000);
    // Abara: 1,100 together (neither member reaches it alone); Bello: 600 together; Chukwu head alone: 2,000.
    expect(entries.map((e) => e.name).sort()).toEqual([household(abara, 'Abara'), person(chukwu.people[0] as Person)].sort());
    expect((await bulk(1101)).map((e) => e.name)).toEqual([person(chukwu.people[0] as Person)]);
  });

  it('without giving together, every member gets their own statement', async () => {
    const off = await api(ctx.app, t.admin.token).put(`/api/crm/households/${abara.household.id}`, { givingTogether: false });
    expect(off.statusCode, off.body).toBe(200);
    try {
      const entries = await bulk();
      expect(entries.map((e) => e.name).sort()).toEqual([
        person(abara.people[0] as Person), person(abara.people[1] as Person), household(bello, 'Bello'),
        person(chukwu.people[0] as Person), person(chukwu.people[1] as Person), person(dede),
      ].sort());
      for (const donor of donors()) expect(entries.filter((e) => e.text.includes(fullName(donor))), fullName(donor)).toHaveLength(1);
      // Alone, neither Abara reaches 1,000.
      expect((await bulk(1000)).map((e) => e.name)).toEqual([person(chukwu.people[0] as Person)]);
    } finally {
      await api(ctx.app, t.admin.token).put(`/api/crm/households/${abara.household.id}`, { givingTogether: true });
    }
  });

  it('needs finance:admin', async () => {
    const treasurer = await newTreasurer(ctx, t);
    expectError(await api(ctx.app, treasurer.token).post('/api/finance/statements/bulk', {}), 403);
  });
});
