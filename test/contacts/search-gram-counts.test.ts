import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { transaction, withTenant } from '../../src/db/client.js';
import { api, setupTestApp } from '../helpers/app.js';
import { newTenant, type TestTenant } from '../helpers/factories.js';
import { newCompany, newPerson } from '../helpers/contacts.factories.js';

// The contacts list total for a three-character `q` comes from contact_gram_counts (migration 0032):
// per (tenant, three-character string of search_text or three digits of phone_digits, category,
// status), how many contacts hold it, kept by triggers on contacts and applied at commit. Every list
// here asks for limit=1, so the total cannot be read off the page.

const ctx = setupTestApp();

const rowsOf = (r: unknown) => (Array.isArray(r) ? r : (r as { rows: unknown[] }).rows) as Record<string, unknown>[];

interface Stored { category: string; status: string; search_text: string; phone_digits: string }

/** The tenant's contacts as stored (superuser: no row level security). */
async function stored(tenantId: number): Promise<Stored[]> {
  return rowsOf(await ctx.db.execute(sql`select category, status, search_text, phone_digits from contacts where tenant_id = ${tenantId}`)) as unknown as Stored[];
}

const PHONE_SHAPED = /^[0-9\s+\-.()]+$/;

/** The contract's `q` rule, applied to the stored columns in JavaScript. */
function matches(c: Stored, q: string): boolean {
  const digits = q.replace(/\D/g, '');
  return c.search_text.includes(q.toLowerCase()) || (PHONE_SHAPED.test(q) && digits.length >= 3 && c.phone_digits.includes(digits));
}

type Filter = { category?: string; status?: string };

async function listTotal(t: TestTenant, q: string, f: Filter = {}, page = 1): Promise<number> {
  const query = new URLSearchParams({ q, limit: '1', page: String(page), ...f }).toString();
  const res = await api(ctx.app, t.admin.token).get(`/api/crm/contacts?${query}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().total;
}

/** Three-character terms: letters, spaces, e-mail punctuation, LIKE metacharacters, digits, accents. */
const TERMS = ['son', 'SON', 'ann', 'n s', 'a.s', '@ex', 'org', 'ïs', 'ïse', '%_\\', 'a_b', '50%', '555', '020', '2 0', '7-1', 'zzz', 'so', 'sonn'];
const FILTERS: Filter[] = [{}, { category: 'Person' }, { category: 'Company' }, { status: 'Inactive' }, { category: 'Person', status: 'Active' }];

/** The API total of every term under every filter equals the contacts matching it. */
async function expectExactTotals(t: TestTenant) {
  const rows = await stored(t.id);
  const expected: Record<string, number> = {};
  const actual: Record<string, number> = {};
  for (const q of TERMS) {
    for (const f of FILTERS) {
      const key = `${q} ${JSON.stringify(f)}`;
      expected[key] = rows.filter((c) => matches(c, q) && (!f.category || c.category === f.category) && (!f.status || c.status === f.status)).length;
      actual[key] = await listTotal(t, q, f);
    }
  }
  expect(actual).toEqual(expected);
}

/** Every tenant's non-zero counters equal a recount over contacts; none negative, nothing left pending. */
async function expectCountersMatchContacts() {
  const counters = rowsOf(await ctx.db.execute(sql`
    select tenant_id::text, convert_from(gram, 'UTF8') as gram, category, status, n::int from contact_gram_counts where n <> 0
    order by 1, contact_gram_counts.gram, 3, 4`));
  const counted = rowsOf(await ctx.db.execute(sql`
    select c.tenant_id::text, u.g as gram, c.category, c.status, count(*)::int as n
    from contacts as c cross join lateral (
      select distinct substr(c.search_text, i, 3) as g from generate_series(1, char_length(c.search_text) - 2) as i
      union
      select substr(c.phone_digits, i, 3) from generate_series(1, char_length(c.phone_digits) - 2) as i
      where substr(c.phone_digits, i, 3) ~ '^[0-9]{3}$'
    ) as u
    group by 1, 2, 3, 4 order by 1, textsend(u.g), 3, 4`));
  expect(counters).toEqual(counted);
  expect(rowsOf(await ctx.db.execute(sql`select count(*)::int as n from contact_gram_counts where n < 0`))[0].n).toBe(0);
  expect(rowsOf(await ctx.db.execute(sql`select count(*)::int as n from contact_gram_pending`))[0].n).toBe(0);
}

async function seed(t: TestTenant) {
  await newPerson(ctx, t, 'Ann', 'Anson', { emails: [{ value: 'ann.anson@example.org' }], phones: [{ value: '+44 (20) 7946-0018' }] });
  await newPerson(ctx, t, 'Sonny', 'Son', { status: 'Inactive', phones: [{ value: '555 1234' }, { value: '020 555' }] });
  await newPerson(ctx, t, 'Louïse', 'Hanson', { emails: [{ value: 'a.s@example.org' }] });
  await newPerson(ctx, t, 'Pct', '50%_\\ Off', { phones: [{ value: '7-1' }] });
  await newCompany(ctx, t, 'Mason a_b Ltd', { emails: [{ value: 'info@mason.org' }] });
  await newCompany(ctx, t, 'Orson Welles', { status: 'Inactive', phones: [{ value: '0700 5552' }] });
}

describe('GET /api/crm/contacts?q= total for a three-character term (contact_gram_counts)', () => {
  it('equals the matching contacts for every term and filter, after creates, updates, deletes and imports', async () => {
    const t = await newTenant(ctx);
    await seed(t);
    await expectExactTotals(t);
    await expectCountersMatchContacts();

    const a = api(ctx.app, t.admin.token);
    const list = (await a.get('/api/crm/contacts?q=son&limit=100')).json().data as { id: number }[];
    expect(list.length).toBeGreaterThanOrEqual(4);
    // A rename, a status change, a change of phones only, a delete.
    expect((await a.put(`/api/crm/contacts/${list[0].id}`, { person: { firstName: 'Anne', lastName: 'Smith' } })).statusCode).toBe(200);
    expect((await a.put(`/api/crm/contacts/${list[1].id}`, { status: 'Inactive' })).statusCode).toBe(200);
    expect((await a.put(`/api/crm/contacts/${list[2].id}`, { phones: [{ value: '555 020' }] })).statusCode).toBe(200);
    expect((await a.delete(`/api/crm/contacts/${list[3].id}`)).statusCode).toBe(204);
    const res = await a.post('/api/crm/contacts/import', {
      contacts: [{ firstName: 'Jason', lastName: 'Sonne', email: 'j@sonne.org' }, { firstName: 'Ann', lastName: 'Anson', email: 'ann.anson@example.org' }],
    });
    expect(res.statusCode, res.body).toBe(200);
    await expectExactTotals(t);
    await expectCountersMatchContacts();
    // A page past the end still has the true total.
    const n = await listTotal(t, 'son');
    expect(await listTotal(t, 'son', {}, n + 5)).toBe(n);
  });

  it('the total is read from the counters, and another tenant\'s contacts never count', async () => {
    const a = await newTenant(ctx);
    const b = await newTenant(ctx);
    await seed(a);
    await seed(b);
    await newPerson(ctx, b, 'Son', 'Sonson');
    const before = await listTotal(a, 'son');
    expect(await listTotal(b, 'son')).toBe(before + 1);
    // Tamper with one counter row as the superuser: the API follows it (then restore it).
    const bump = (d: number) => ctx.db.execute(sql`
      update contact_gram_counts set n = n + ${d} where tenant_id = ${a.id} and gram = 'son' and category = 'Person' and status = 'Active'`);
    await bump(1000);
    try {
      expect(await listTotal(a, 'son')).toBe(before + 1000);
      expect(await listTotal(a, 'sons')).toBeLessThan(1000); // longer terms count the rows themselves
    } finally {
      await bump(-1000);
    }
    expect(await listTotal(a, 'son')).toBe(before);
    await expectCountersMatchContacts();
  });

  it('a rolled-back write leaves the counters as they were', async () => {
    const t = await newTenant(ctx);
    await seed(t);
    const before = await listTotal(t, 'ann');
    await expect(transaction(ctx.db, async (tx) => {
      await tx.execute(sql`update contacts set search_text = search_text || ' ann' where tenant_id = ${t.id}`);
      await tx.execute(sql`delete from contacts where tenant_id = ${t.id} and category = 'Company'`);
      throw new Error('roll back');
    })).rejects.toThrow('roll back');
    expect(await listTotal(t, 'ann')).toBe(before);
    // Committed through the tenant's own binding (app_user, row level security): counted.
    await withTenant(ctx.db, t.id, async (tx) => {
      await tx.execute(sql`update contacts set search_text = search_text || ' ann' where tenant_id = ${t.id} and category = 'Company'`);
    });
    expect(await listTotal(t, 'ann')).toBe(before + 2);
    await expectExactTotals(t);
    await expectCountersMatchContacts();
  });
});
