import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { withTenant } from '../../src/db/client.js';
import { contacts } from '../../src/db/schema/index.js';
import { insertContact, refreshSearchColumns } from '../../src/modules/contacts/contacts.repository.js';
import { allocateContactIds, analyzeAfterImport, insertPeople } from '../../src/modules/contacts/import.repository.js';
import { api, setupTestApp, type TestContext } from '../helpers/app.js';
import { newTenant, type TestTenant } from '../helpers/factories.js';
import { newCompany, newPerson } from '../helpers/contacts.factories.js';

const ctx = setupTestApp();

const importJson = (t: TestTenant, rows: unknown[]) => api(ctx.app, t.admin.token).post('/api/crm/contacts/import', { contacts: rows });
const importCsv = (c: TestContext, t: TestTenant, text: string) =>
  c.app.inject({ method: 'POST', url: '/api/crm/contacts/import', payload: text, headers: { authorization: `Bearer ${t.admin.token}`, 'content-type': 'text/csv' } });

async function findByQ(t: TestTenant, q: string) {
  return (await api(ctx.app, t.admin.token).get(`/api/crm/contacts?q=${encodeURIComponent(q)}`)).json();
}

describe('POST /api/crm/contacts/import', () => {
  it('creates people from JSON with every column, searchable and listed', async () => {
    const t = await newTenant(ctx);
    const res = await importJson(t, [
      { firstName: 'Esther', lastName: 'Nakato', phone: '+256 (772) 100-200', email: 'Esther@Example.org', gender: 'Female' },
      { firstName: 'Joseph', lastName: 'Banda' },
    ]);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ total: 2, created: 2, updated: 0, unchanged: 0, failed: 0, errors: [] });
    const found = await findByQ(t, '772100200');
    expect(found.data).toEqual([{
      id: expect.any(Number), category: 'Person', status: 'Active', householdId: null, person: { firstName: 'Esther', lastName: 'Nakato', gender: 'Female' },
      emails: [{ value: 'Esther@Example.org', isPrimary: true }], phones: [{ value: '+256 (772) 100-200', isPrimary: true }],
    }]);
    expect((await findByQ(t, 'banda')).total).toBe(1);
    expect((await findByQ(t, 'esther@example')).total).toBe(1);
  });

  it('updates a match by email (case-insensitive), else by phone digits; a match that has it all already is unchanged (nothing written or recorded)', async () => {
    const t = await newTenant(ctx);
    const byEmail = await newPerson(ctx, t, 'Old', 'Name', { emails: [{ value: 'Match@Example.org' }] });
    const byPhone = await newPerson(ctx, t, 'Phone', 'Person', { person: { firstName: 'Phone', lastName: 'Person', gender: 'Male' }, phones: [{ value: '0772 100 300' }] });
    const same = await newPerson(ctx, t, 'Same', 'Same', { emails: [{ value: 'same@example.org' }] });
    const res = await importJson(t, [
      { firstName: 'New', lastName: 'Name', email: 'match@EXAMPLE.org', phone: '+1 555 0001', gender: 'Female' },
      { firstName: 'Phoned', lastName: 'Person', phone: '(0772) 100-300', email: 'phoned@example.org' },
      { firstName: 'Same', lastName: 'Same', email: 'same@example.org' },
    ]);
    expect(res.json()).toMatchObject({ total: 3, created: 0, updated: 2, unchanged: 1, failed: 0, errors: [] });
    const a = api(ctx.app, t.admin.token);
    expect((await a.get(`/api/crm/contacts/${byEmail.id}`)).json()).toMatchObject({
      person: { firstName: 'New', lastName: 'Name', gender: 'Female' },
      emails: [{ value: 'Match@Example.org', isPrimary: true }], phones: [{ value: '+1 555 0001', isPrimary: true }],
    });
    expect((await a.get(`/api/crm/contacts/${byPhone.id}`)).json()).toMatchObject({
      person: { firstName: 'Phoned', gender: 'Male' },
      emails: [{ value: 'phoned@example.org', isPrimary: true }], phones: [{ value: '0772 100 300', isPrimary: true }],
    });
    expect((await a.get(`/api/crm/contacts/${same.id}`)).json().emails).toHaveLength(1);
    expect((await findByQ(t, 'old')).total).toBe(0);
    expect((await findByQ(t, 'phoned@')).data.map((c: { id: number }) => c.id)).toEqual([byPhone.id]);
    expect((await a.get('/api/crm/contacts')).json().total).toBe(4);
  });

  it('never updates a company: a row with a company email creates a person', async () => {
    const t = await newTenant(ctx);
    const firm = await newCompany(ctx, t, 'Firm', { emails: [{ value: 'office@firm.example' }] });
    expect((await importJson(t, [{ firstName: 'Ann', lastName: 'Office', email: 'office@firm.example' }])).json()).toMatchObject({ created: 1, updated: 0 });
    expect((await api(ctx.app, t.admin.token).get(`/api/crm/contacts/${firm.id}`)).json().company.name).toBe('Firm');
  });

  it('a later row matching an earlier one of the same import updates it', async () => {
    const t = await newTenant(ctx);
    const res = await importJson(t, [
      { firstName: 'A', lastName: 'First', email: 'dup@example.org' },
      { firstName: 'A', lastName: 'Second', email: 'DUP@example.org', phone: '0700 999 888' },
      { firstName: 'B', lastName: 'Third', phone: '0700-999-888' },
    ]);
    expect(res.json()).toMatchObject({ total: 3, created: 1, updated: 2, unchanged: 0, failed: 0, errors: [] });
    const found = await findByQ(t, 'dup@');
    expect(found.data).toEqual([expect.objectContaining({ person: { firstName: 'B', lastName: 'Third', gender: null }, phones: [{ value: '0700 999 888', isPrimary: true }] })]);
  });

  it('reads CSV with a BOM, CRLF, quoted fields and case-insensitive headers; empty cells are absent', async () => {
    const t = await newTenant(ctx);
    const csv = '\uFEFFFirstName,last_name,EMAIL,phone,gender\r\n"Mary, Jane",O\'Neil,mj@example.org,,Female\r\n"Quote ""Q""",Person,,0711 222 333,\r\n';
    const res = await importCsv(ctx, t, csv);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ total: 2, created: 2, updated: 0, unchanged: 0, failed: 0, errors: [] });
    expect((await findByQ(t, 'mj@example')).data[0]).toMatchObject({ person: { firstName: 'Mary, Jane', lastName: "O'Neil", gender: 'Female' }, phones: [] });
    expect((await findByQ(t, '711222333')).data[0]).toMatchObject({ person: { firstName: 'Quote "Q"', lastName: 'Person', gender: null }, emails: [] });
  });

  it('writes more rows than one batch and matches across batches', async () => {
    const t = await newTenant(ctx);
    const rows = Array.from({ length: 1_200 }, (_, i) => ({ firstName: `F${i}`, lastName: `L${i}`, email: `bulk${i % 1_100}@example.org` }));
    const res = await importJson(t, rows);
    expect(res.json()).toMatchObject({ total: 1_200, created: 1_100, updated: 100, unchanged: 0, failed: 0, errors: [] });
    expect(await ctx.db.$count(contacts, eq(contacts.tenantId, t.id))).toBe(1_101);
    const r = (await ctx.db.execute(sql`SELECT count(*)::int AS n FROM contacts WHERE tenant_id = ${t.id} AND search_text = ''`)) as unknown as { rows: { n: number }[] };
    expect(Number(r.rows[0].n)).toBe(0);
    expect((await findByQ(t, 'bulk5@example.org')).data[0].person.lastName).toBe('L1105');
  });

  it('writes each person once, search columns in the insert equal to refreshSearchColumns (no insert-then-update)', async () => {
    const t = await newTenant(ctx);
    const stored = () => ctx.db.select({ id: contacts.id, a: contacts.sortLast, b: contacts.sortFirst, c: contacts.searchText, d: contacts.phoneDigits }).from(contacts).where(eq(contacts.tenantId, t.id)).orderBy(contacts.id);
    const updates = await withTenant(ctx.db, t.id, async (tx) => {
      // pg_stat_xact_* may still hold this connection's unflushed counts of earlier transactions
      // (PostgreSQL 15 flushes them at most once a second): count the difference.
      const readUpdates = async () => {
        const r = (await tx.execute(sql`SELECT n_tup_upd::int AS n FROM pg_stat_xact_user_tables WHERE relname = 'contacts'`)) as unknown as { rows: { n: number }[] };
        return Number(r.rows[0]?.n ?? 0);
      };
      const before = await readUpdates();
      const [id] = await allocateContactIds(tx, 1);
      await insertPeople(tx, t.id, [{ id, firstName: 'Ängel', lastName: 'ÖZTÜRK', gender: 'Male', emails: ['A@X.org', 'b@y.org'], phones: ['+1 (555) 010', '0772-1'], addresses: [] }]);
      await insertContact(tx, t.id, { category: 'Company', company: { name: 'Acme LTD' }, phones: [{ value: '041 4' }] });
      await insertContact(tx, t.id, { category: 'Person', person: { firstName: 'Mid', middleName: 'Dle', lastName: 'Name' }, emails: [{ value: 'M@Example.org' }] });
      return (await readUpdates()) - before;
    });
    expect(updates).toBe(0);
    const inserted = await stored();
    expect(inserted.find((r) => r.a === 'öztürk')).toMatchObject({ a: 'öztürk', b: 'ängel', c: 'ängel öztürk a@x.org b@y.org +1 (555) 010 0772-1', d: '1555010 07721' });
    await withTenant(ctx.db, t.id, (tx) => refreshSearchColumns(tx, t.id, inserted.map((r) => r.id)));
    expect(await stored()).toEqual(inserted);
  });

  it('analyses the contacts tables after an import that wrote a substantial share of them, not after a small one', async () => {
    const analyses = async () => {
      const r = (await ctx.db.execute(sql`SELECT analyze_count::int AS n FROM pg_stat_user_tables WHERE relname = 'contacts'`)) as unknown as { rows: { n: number }[] };
      return Number(r.rows[0].n);
    };
    await ctx.db.execute(sql`ANALYZE contacts`);
    const before = await analyses();
    const estimate = (await ctx.db.execute(sql`SELECT reltuples::int AS n FROM pg_class WHERE relname = 'contacts'`)) as unknown as { rows: { n: number }[] };
    const rows = Number(estimate.rows[0].n);
    expect(await analyzeAfterImport(ctx.db, Math.floor(rows * 0.05))).toBe(false);
    expect(await analyses()).toBe(before);
    expect(await analyzeAfterImport(ctx.db, Math.ceil(rows * 0.1) + 1)).toBe(true);
    expect(await analyses()).toBe(before + 1);
  });
});

