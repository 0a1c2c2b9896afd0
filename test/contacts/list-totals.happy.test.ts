import { and, asc, count, eq, inArray, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { withTenant } from '../../src/db/client.js';
import { contactCounts, contacts, tenants } from '../../src/db/schema/index.js';
import { CONTACT_CATEGORIES, CONTACT_STATUSES } from '../../src/db/schema/enums.js';
import { insertContact } from '../../src/modules/contacts/contacts.repository.js';
import { seedDemoTenant } from '../../src/modules/tenants/demo-seed.js';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { newTenant, type TestTenant } from '../helpers/factories.js';
import { newCompany, newPerson } from '../helpers/contacts.factories.js';

// The list total without `q` comes from contact_counts, kept by triggers on contacts (migration
// 0004). Every list here asks for limit=1, so any non-empty page is full and its total cannot be
// read off the page: it has to come from the counters.

const ctx = setupTestApp();

type Filter = { category?: string; status?: string };

/** Every filter the list takes without `q`: none, each category, each status, each pair. */
const FILTERS: Filter[] = [
  {},
  ...CONTACT_CATEGORIES.map((category) => ({ category })),
  ...CONTACT_STATUSES.map((status) => ({ status })),
  ...CONTACT_CATEGORIES.flatMap((category) => CONTACT_STATUSES.map((status) => ({ category, status }))),
];

const query = (f: Filter, page = 1) => new URLSearchParams({ limit: '1', page: String(page), ...f }).toString();

async function listTotal(t: TestTenant, f: Filter, page = 1): Promise<number> {
  const res = await api(ctx.app, t.admin.token).get(`/api/crm/contacts?${query(f, page)}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().total;
}

/** The truth, counted from contacts themselves (as the superuser: no row level security). */
async function truth(tenantId: number) {
  return ctx.db
    .select({ category: contacts.category, status: contacts.status, n: count() })
    .from(contacts)
    .where(eq(contacts.tenantId, tenantId))
    .groupBy(contacts.category, contacts.status);
}

/** The API's total for every filter equals the count of the matching contacts. */
async function expectExactTotals(t: TestTenant) {
  const rows = await truth(t.id);
  const want = (f: Filter) => rows.filter((r) => (!f.category || r.category === f.category) && (!f.status || r.status === f.status)).reduce((a, r) => a + r.n, 0);
  const expected: Record<string, number> = {};
  const actual: Record<string, number> = {};
  for (const f of FILTERS) {
    const key = query(f);
    expected[key] = want(f);
    actual[key] = await listTotal(t, f);
  }
  expect(actual).toEqual(expected);
}

const total = (t: TestTenant, f: Filter = {}) => listTotal(t, f);

describe('GET /api/crm/contacts total (contact_counts)', () => {
  it('counts each created contact under its category and status, and under every filter combination', async () => {
    const t = await newTenant(ctx); // its administrator is an Active person
    expect(await total(t)).toBe(1);
    await newPerson(ctx, t, 'Ann', 'One');
    await newPerson(ctx, t, 'Ben', 'Two', { status: 'Inactive' });
    await newPerson(ctx, t, 'Cat', 'Three', { status: 'Inactive' });
    await newCompany(ctx, t, 'Acme', { status: 'Inactive' });
    await newCompany(ctx, t, 'Bolt');
    expect(await total(t)).toBe(6);
    expect(await total(t, { category: 'Person' })).toBe(4);
    expect(await total(t, { category: 'Company' })).toBe(2);
    expect(await total(t, { status: 'Inactive' })).toBe(3);
    expect(await total(t, { category: 'Person', status: 'Inactive' })).toBe(2);
    expect(await total(t, { category: 'Company', status: 'Active' })).toBe(1);
    expect(await total(t, { status: 'Deceased' })).toBe(0);
    const a = api(ctx.app, t.admin.token);
    expect((await a.get('/api/crm/people?limit=1&status=Active')).json().total).toBe(2);
    expect((await a.get('/api/crm/companies?limit=1')).json().total).toBe(2);
    await expectExactTotals(t);
  });

  it('moves a contact between status totals when its status changes; a category change is refused and counts stay', async () => {
    const t = await newTenant(ctx);
    const p = await newPerson(ctx, t, 'Dan', 'Four');
    const c = await newCompany(ctx, t, 'Cargo');
    await newPerson(ctx, t, 'Eve', 'Five');
    const a = api(ctx.app, t.admin.token);
    expect((await a.put(`/api/crm/contacts/${p.id}`, { status: 'MovedAway' })).statusCode).toBe(200);
    expect((await a.put(`/api/crm/contacts/${c.id}`, { status: 'Deceased' })).statusCode).toBe(200);
    expect(await total(t, { status: 'Active' })).toBe(2); // admin and Eve
    expect(await total(t, { status: 'MovedAway' })).toBe(1);
    expect(await total(t, { category: 'Person', status: 'Active' })).toBe(2);
    expect(await total(t, { category: 'Company', status: 'Deceased' })).toBe(1);
    expect(await total(t, { category: 'Company', status: 'Active' })).toBe(0);
    // Back again, and an update that changes no status (names only): no drift either way.
    expect((await a.put(`/api/crm/contacts/${p.id}`, { status: 'Active', person: { firstName: 'Daniel', lastName: 'Four' } })).statusCode).toBe(200);
    expect((await a.put(`/api/crm/contacts/${c.id}`, { company: { name: 'Cargo Ltd' } })).statusCode).toBe(200);
    expect(await total(t, { status: 'Active' })).toBe(3);
    expect(await total(t, { status: 'MovedAway' })).toBe(0);
    expectError(await a.put(`/api/crm/contacts/${p.id}`, { category: 'Company', status: 'Inactive' }), 400);
    expect(await total(t, { category: 'Person' })).toBe(3);
    expect(await total(t, { status: 'Inactive' })).toBe(0);
    await expectExactTotals(t);
  });

  it('takes a deleted contact out of its totals', async () => {
    const t = await newTenant(ctx);
    const gone = await newPerson(ctx, t, 'Fay', 'Six', { status: 'Inactive' });
    await newPerson(ctx, t, 'Gus', 'Seven', { status: 'Inactive' });
    const firm = await newCompany(ctx, t, 'Dune');
    const a = api(ctx.app, t.admin.token);
    expect((await a.delete(`/api/crm/contacts/${gone.id}`)).statusCode).toBe(204);
    expect((await a.delete(`/api/crm/contacts/${firm.id}`)).statusCode).toBe(204);
    expect(await total(t)).toBe(2);
    expect(await total(t, { status: 'Inactive' })).toBe(1);
    expect(await total(t, { category: 'Company' })).toBe(0);
    await expectExactTotals(t);
  });

  it('counts the people an import creates, once, and not the ones it updates', async () => {
    const t = await newTenant(ctx);
    await newPerson(ctx, t, 'Hal', 'Eight', { status: 'Inactive', emails: [{ value: 'hal@example.org' }] });
    const rows = [
      ...Array.from({ length: 7 }, (_, i) => ({ firstName: `Imp${i}`, lastName: 'Orted', email: `imp${i}@example.org` })),
      { firstName: 'Hal', lastName: 'Updated', email: 'HAL@example.org' },
      { firstName: 'Imp0', lastName: 'Again', email: 'imp0@example.org' },
    ];
    const res = await api(ctx.app, t.admin.token).post('/api/crm/contacts/import', { contacts: rows });
    expect(res.json()).toMatchObject({ created: 7, updated: 2, failed: 0 });
    expect(await total(t)).toBe(9);
    expect(await total(t, { category: 'Person', status: 'Active' })).toBe(8);
    expect(await total(t, { status: 'Inactive' })).toBe(1);
    await expectExactTotals(t);
  });

  it('reports the total on a page past the end, with and without filters', async () => {
    const t = await newTenant(ctx);
    await newCompany(ctx, t, 'Echo', { status: 'MovedAway' });
    await newCompany(ctx, t, 'Fern', { status: 'MovedAway' });
    const res = await api(ctx.app, t.admin.token).get(`/api/crm/contacts?${query({ status: 'MovedAway' }, 9)}`);
    expect(res.json()).toMatchObject({ data: [], total: 2, page: 9 });
    expect(await listTotal(t, {}, 9)).toBe(3);
    expect(await listTotal(t, { category: 'Company', status: 'Active' }, 2)).toBe(0);
  });

  it("keeps one tenant's writes out of another tenant's totals", async () => {
    const a = await newTenant(ctx);
    const b = await newTenant(ctx);
    await newPerson(ctx, a, 'Ida', 'Nine', { status: 'Inactive' });
    await newCompany(ctx, a, 'Gale');
    const before = Object.fromEntries(await Promise.all(FILTERS.map(async (f) => [query(f), await listTotal(a, f)] as const)));
    const bApi = api(ctx.app, b.admin.token);
    const p = await newPerson(ctx, b, 'Jo', 'Ten', { status: 'Inactive' });
    const c = await newCompany(ctx, b, 'Hive');
    await newCompany(ctx, b, 'Iris', { status: 'Deceased' });
    await bApi.put(`/api/crm/contacts/${p.id}`, { status: 'Active' });
    await bApi.delete(`/api/crm/contacts/${c.id}`);
    await bApi.post('/api/crm/contacts/import', { contacts: [{ firstName: 'Kim', lastName: 'Eleven' }, { firstName: 'Lee', lastName: 'Twelve' }] });
    const after = Object.fromEntries(await Promise.all(FILTERS.map(async (f) => [query(f), await listTotal(a, f)] as const)));
    expect(after).toEqual(before);
    expect(await total(b)).toBe(5);
    await expectExactTotals(a);
    await expectExactTotals(b);
  });

  it('keeps contact_counts equal to count(*) group by after a mixed sequence of writes on every path', async () => {
    const t = await newTenant(ctx);
    const other = await newTenant(ctx);
    const doomed = await newTenant(ctx);
    const a = api(ctx.app, t.admin.token);
    const ids: number[] = [];
    for (const [i, status] of ['Active', 'Inactive', 'Inactive', 'MovedAway', 'Deceased', 'Active'].entries()) {
      ids.push((i % 3 === 2 ? await newCompany(ctx, t, `Co${i}`, { status }) : await newPerson(ctx, t, `P${i}`, 'Mix', { status })).id);
    }
    await a.post('/api/crm/contacts/import', { contacts: [{ firstName: 'Imp', lastName: 'A', email: 'a@example.org' }, { firstName: 'Imp', lastName: 'B' }] });
    await a.put(`/api/crm/contacts/${ids[0]}`, { status: 'TransferredToAnotherChurch' });
    await a.delete(`/api/crm/contacts/${ids[1]}`);
    await newPerson(ctx, other, 'Other', 'Tenant', { status: 'Deceased' });
    await newCompany(ctx, doomed, 'Doomed');
    await withTenant(ctx.db, t.id, async (tx) => {
      // As app_user under row level security: one statement moving rows both ways between two keys
      // (Active <-> Inactive: the deltas cancel for some keys), one that touches no key at all,
      // one multi-row insert and one multi-row delete.
      await tx.update(contacts).set({ status: sql`case ${contacts.status} when 'Active' then 'Inactive' else 'Active' end` })
        .where(and(eq(contacts.tenantId, t.id), inArray(contacts.status, ['Active', 'Inactive'])));
      await tx.update(contacts).set({ sortFirst: sql`${contacts.sortFirst}` }).where(eq(contacts.tenantId, t.id));
      await tx.insert(contacts).values([
        { tenantId: t.id, category: 'Company', status: 'Deceased' },
        { tenantId: t.id, category: 'Company', status: 'Deceased' },
        { tenantId: t.id, category: 'Person', status: 'MovedAway' },
      ]);
      await tx.delete(contacts).where(and(eq(contacts.tenantId, t.id), eq(contacts.status, 'MovedAway'), eq(contacts.category, 'Person')));
    });
    // System paths, without a tenant bound: a write as the owner, the demo seed, a tenant deletion (cascade).
    await insertContact(ctx.db, other.id, { category: 'Company', status: 'Inactive', company: { name: 'System Co' } });
    const demo = await seedDemoTenant(ctx.db);
    await ctx.db.delete(tenants).where(eq(tenants.id, doomed.id));

    const counters = await ctx.db
      .select({ tenantId: contactCounts.tenantId, category: contactCounts.category, status: contactCounts.status, n: contactCounts.n })
      .from(contactCounts)
      .where(sql`${contactCounts.n} <> 0`)
      .orderBy(asc(contactCounts.tenantId), asc(contactCounts.category), asc(contactCounts.status));
    const counted = await ctx.db
      .select({ tenantId: contacts.tenantId, category: contacts.category, status: contacts.status, n: count() })
      .from(contacts)
      .groupBy(contacts.tenantId, contacts.category, contacts.status)
      .orderBy(asc(contacts.tenantId), asc(contacts.category), asc(contacts.status));
    expect(counters).toEqual(counted);
    expect(counters.some((r) => r.tenantId === doomed.id)).toBe(false);
    expect(counters.some((r) => r.tenantId === demo.tenant.id)).toBe(true);
    const [negative] = await ctx.db.select({ n: count() }).from(contactCounts).where(sql`${contactCounts.n} < 0`);
    expect(negative.n).toBe(0);
    await expectExactTotals(t);
    await expectExactTotals(other);
  });
});
