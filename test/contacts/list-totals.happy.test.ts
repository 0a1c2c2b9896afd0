import { and, asc, count, eq, inArray, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { transaction, withTenant } from '../../src/db/client.js';
import { contactCountPending, contactCounts, contacts, tenants } from '../../src/db/schema/index.js';
import { CONTACT_CATEGORIES, CONTACT_STATUSES } from '../../src/db/schema/enums.js';
import { insertContact } from '../../src/modules/contacts/contacts.repository.js';
import { seedDemoTenant } from '../../src/provisioning/demo-seed.js';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { newTenant, type TestTenant } from '../helpers/factories.js';
import { newCompany, newPerson } from '../helpers/contacts.factories.js';

// The list total without `q` comes from contact_counts, kept by triggers on contacts (migrations
// 0004, 0005: deltas wait in contact_count_pending and are applied at commit). Every list here asks
// for limit=1, so any non-empty page is full and its total cannot be read off the page: it has to
// come from the counters.

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

/** Every tenant's non-zero counters equal count(*) group by over contacts; none is negative. */
async function expectCountersMatchContacts() {
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
  const [negative] = await ctx.db.select({ n: count() }).from(contactCounts).where(sql`${contactCounts.n} < 0`);
  expect(negative.n).toBe(0);
  return counters;
}

/** Deltas live only inside their own transaction: after it, committed or not, none is left. */
async function expectNothingPending() {
  const [pending] = await ctx.db.select({ n: count() }).from(contactCountPending);
  expect(pending.n).toBe(0);
}

/** Resolves once `parties` callers have arrived: makes two transactions interleave step by step. */
function barrier(parties: number) {
  let arrived = 0;
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return () => {
    if (++arrived === parties) open();
    return opened;
  };
}

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

    const counters = await expectCountersMatchContacts();
    expect(counters.some((r) => r.tenantId === doomed.id)).toBe(false);
    expect(counters.some((r) => r.tenantId === demo.tenant.id)).toBe(true);
    await expectNothingPending();
    await expectExactTotals(t);
    await expectExactTotals(other);
  });

  // On PostgreSQL these requests really overlap (the test pool has 5 connections); PGlite runs
  // one transaction at a time, where the test still checks the arithmetic.
  it('counts exactly after concurrent creates, imports and status changes in one tenant, all of which succeed', async () => {
    const t = await newTenant(ctx);
    const a = api(ctx.app, t.admin.token);
    const statusAt = (i: number) => CONTACT_STATUSES[i % CONTACT_STATUSES.length];
    // Contacts the PUTs move between statuses, and contacts the imports match by email (an update: no delta).
    const moving = await Promise.all(['Active', 'Inactive', 'MovedAway', 'Deceased'].map((status, i) => newPerson(ctx, t, `Mov${i}`, 'Ing', { status })));
    await Promise.all(['Inactive', 'Deceased', 'Active', 'MovedAway'].map((status, i) =>
      newPerson(ctx, t, `Mat${i}`, 'Ched', { status, emails: [{ value: `mat${i}@example.org` }] })));
    await expectExactTotals(t);
    for (let round = 0; round < 3; round++) {
      const importRows = (k: number) => [
        ...Array.from({ length: 40 }, (_, i) => ({ firstName: `Imp${round}${k}x${i}`, lastName: 'Conc', email: `imp${round}.${k}.${i}@example.org` })),
        { firstName: `Mat${2 * k}`, lastName: `Again${round}`, email: `MAT${2 * k}@example.org` },
        { firstName: `Mat${2 * k + 1}`, lastName: `Again${round}`, email: `mat${2 * k + 1}@example.org` },
      ];
      const creates = Array.from({ length: 8 }, (_, i) => {
        const status = statusAt(round + i);
        return a.post('/api/crm/contacts', i % 3 === 2
          ? { category: 'Company', status, company: { name: `Conc${round}x${i}` } }
          : { category: 'Person', status, person: { firstName: `C${round}x${i}`, lastName: 'Onc' } });
      });
      const imports = [0, 1].map((k) => a.post('/api/crm/contacts/import', { contacts: importRows(k) }));
      const moves = moving.map((c, i) => a.put(`/api/crm/contacts/${c.id}`, { status: statusAt(round + i + 2) }));
      const responses = await Promise.all([...creates, ...imports, ...moves]);
      expect(responses.map((r) => r.statusCode), responses.filter((r) => r.statusCode >= 300).map((r) => r.body).join('\n'))
        .toEqual([...Array(8).fill(201), 200, 200, ...Array(4).fill(200)]);
      for (const r of responses.slice(8, 10)) expect(r.json()).toMatchObject({ created: 40, updated: 2, failed: 0 });
    }
    expect(await total(t)).toBe(1 + 4 + 4 + 3 * (8 + 80));
    await expectCountersMatchContacts();
    await expectNothingPending();
    await expectExactTotals(t);
  });

  it('lets two transactions write the same keys in opposite orders: no counter lock before commit, no deadlock', async () => {
    const t = await newTenant(ctx);
    const keys = [{ category: 'Person', status: 'Inactive' }, { category: 'Company', status: 'Deceased' }] as const;
    await newCompany(ctx, t, 'Existing', { status: 'Deceased' }); // one key's counter row exists, the other's not yet
    // On PostgreSQL both transactions write their first key before either writes its second: with
    // counter rows locked at the write (migration 0004) this deadlocks. PGlite runs them one after the other.
    const step = process.env.DATABASE_URL ? barrier(2) : () => Promise.resolve();
    const write = (order: readonly (typeof keys)[number][]) => withTenant(ctx.db, t.id, async (tx) => {
      await tx.insert(contacts).values({ tenantId: t.id, ...order[0] });
      await step();
      await tx.insert(contacts).values({ tenantId: t.id, ...order[1] });
    });
    await Promise.all([write(keys), write([...keys].reverse())]);
    expect(await total(t, keys[0])).toBe(2);
    expect(await total(t, keys[1])).toBe(3);
    await expectNothingPending();
    await expectExactTotals(t);
  });

  it('applies deltas at commit only: none inside the writing transaction, none after a rollback, none of a rolled-back savepoint', async () => {
    const t = await newTenant(ctx);
    await newPerson(ctx, t, 'Pre', 'Existing', { status: 'Inactive' });
    const before = await total(t);
    const failure = new Error('rolled back on purpose');
    await expect(withTenant(ctx.db, t.id, async (tx) => {
      await insertContact(tx, t.id, { category: 'Person', status: 'Inactive', person: { firstName: 'Never', lastName: 'Committed' } });
      // The delta waits in the pending table (this transaction's own row, under row level security) ...
      const pending = await tx.select({ n: contactCountPending.n }).from(contactCountPending).where(eq(contactCountPending.tenantId, t.id));
      expect(pending).toEqual([{ n: 1 }]);
      // ... and the counter does not show it yet: code must not read a list total after its own write.
      const [counter] = await tx.select({ n: contactCounts.n }).from(contactCounts)
        .where(and(eq(contactCounts.tenantId, t.id), eq(contactCounts.category, 'Person'), eq(contactCounts.status, 'Inactive')));
      expect(counter.n).toBe(1);
      throw failure;
    })).rejects.toBe(failure);
    await expectNothingPending();
    expect(await total(t)).toBe(before);

    // A savepoint rolled back drops its deltas (and their commit-time firings); the rest commit.
    await withTenant(ctx.db, t.id, async (tx) => {
      await tx.insert(contacts).values({ tenantId: t.id, category: 'Company', status: 'MovedAway' });
      await tx.execute(sql`SAVEPOINT doomed`);
      await tx.insert(contacts).values([{ tenantId: t.id, category: 'Person', status: 'Deceased' }, { tenantId: t.id, category: 'Company', status: 'MovedAway' }]);
      await tx.execute(sql`ROLLBACK TO SAVEPOINT doomed`);
    });
    await expectNothingPending();
    expect(await total(t)).toBe(before + 1);
    expect(await total(t, { category: 'Company', status: 'MovedAway' })).toBe(1);
    expect(await total(t, { status: 'Deceased' })).toBe(0);

    // A tenant created, given contacts and deleted in one system transaction: its deltas are skipped at commit.
    const other = await newTenant(ctx);
    await transaction(ctx.db, async (tx) => {
      await insertContact(tx, other.id, { category: 'Company', status: 'Inactive', company: { name: 'Short Lived' } });
      await tx.delete(tenants).where(eq(tenants.id, other.id));
    });
    expect(await ctx.db.select().from(contactCounts).where(eq(contactCounts.tenantId, other.id))).toEqual([]);
    await expectNothingPending();
    await expectCountersMatchContacts();
    await expectExactTotals(t);
  });

  it('with q the total is the count of the matches, on a full page, a short last page and past the end', async () => {
    const a = await newTenant(ctx);
    const b = await newTenant(ctx);
    for (const [first, status] of [['Ann', 'Active'], ['Ben', 'Inactive'], ['Cat', 'Active'], ['Dan', 'Active'], ['Eve', 'Inactive']]) {
      await newPerson(ctx, a, first, 'Windowcount', { status });
    }
    await newPerson(ctx, a, 'Fay', 'Elsewhere');
    await newPerson(ctx, b, 'Gus', 'Windowcount'); // another tenant's match never counts
    const search = async (params: Record<string, string>) => {
      const res = await api(ctx.app, a.admin.token).get(`/api/crm/contacts?${new URLSearchParams({ q: 'windowcount', limit: '2', ...params })}`);
      expect(res.statusCode, res.body).toBe(200);
      return { total: res.json().total, names: res.json().data.map((c: { person: { firstName: string } }) => c.person.firstName) };
    };
    expect(await search({ page: '1' })).toEqual({ total: 5, names: ['Ann', 'Ben'] });
    expect(await search({ page: '3' })).toEqual({ total: 5, names: ['Eve'] });
    expect(await search({ page: '4' })).toEqual({ total: 5, names: [] });
    expect(await search({ page: '1', status: 'Active' })).toEqual({ total: 3, names: ['Ann', 'Cat'] });
  });
});
