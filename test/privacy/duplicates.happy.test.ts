import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { withTenant } from '../../src/db/client.js';
import { api, setupTestApp } from '../helpers/app.js';
import { newTenant, newUser, type TestTenant } from '../helpers/factories.js';
import { person, post } from './privacy.helpers.js';

const ctx = setupTestApp();

describe('GET /api/crm/duplicates', () => {
  let tenant: TestTenant;
  const ids: Record<string, number> = {};
  type Pair = { contacts: { id: number; person?: { firstName: string }; company?: { name: string }; emails: unknown[] }[]; reason: string; reasons: string[]; score: number };

  beforeAll(async () => {
    tenant = await newTenant(ctx);
    ids.a = (await person(ctx, tenant, 'Jane', 'Doe', { emails: [{ value: 'jane@example.org' }], phones: [{ value: '+256 772 123456' }] })).id;
    // Same email in other case, and the same name with other spacing and case: one pair, two reasons.
    ids.b = (await person(ctx, tenant, '  JANE ', 'doe', { emails: [{ value: 'JANE@Example.ORG' }] })).id;
    // Same phone digits, written otherwise.
    ids.c = (await person(ctx, tenant, 'Carl', 'Caller', { phones: [{ value: '(256) 772-123-456' }] })).id;
    ids.d = (await person(ctx, tenant, 'Dan', 'Name')).id;
    ids.e = (await person(ctx, tenant, 'dan', 'NAME')).id;
    ids.f = (await post(ctx, tenant.admin.token, '/api/crm/contacts', { category: 'Company', company: { name: 'Acme  Ltd' } })).id;
    ids.g = (await post(ctx, tenant.admin.token, '/api/crm/contacts', { category: 'Company', company: { name: 'acme ltd' } })).id;
    // Never pairs: one contact holding the same email twice; short phone numbers; distinct everything.
    await person(ctx, tenant, 'Solo', 'Self', { emails: [{ value: 'solo@example.org' }, { value: 'SOLO@example.org' }], phones: [{ value: '123' }] });
    await person(ctx, tenant, 'Other', 'Short', { phones: [{ value: '123' }] });
  });

  const pairIds = (p: Pair) => p.contacts.map((c) => c.id);

  it('pairs contacts by shared email, phone digits and normalised name, strongest first, each pair once', async () => {
    const res = await api(ctx.app, tenant.admin.token).get('/api/crm/duplicates');
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json() as { data: Pair[]; total: number; page: number; limit: number };
    expect(body).toMatchObject({ total: 4, page: 1, limit: 20 });
    expect(body.data.map((p) => [pairIds(p), p.reason, p.score])).toEqual([
      [[ids.a, ids.b], 'email', 0.95],
      [[ids.a, ids.c], 'phone', 0.8],
      [[ids.d, ids.e], 'name', 0.6],
      [[ids.f, ids.g], 'name', 0.6],
    ]);
    expect(body.data[0].reasons).toEqual(['email', 'name']);
    // The contacts are list items.
    expect(body.data[0].contacts[0]).toMatchObject({ id: ids.a, category: 'Person', status: 'Active', person: { firstName: 'Jane', lastName: 'Doe' }, emails: [{ value: 'jane@example.org', isPrimary: true }] });
    expect(body.data[3].contacts[1]).toMatchObject({ id: ids.g, category: 'Company', company: { name: 'acme ltd' } });
    // No self pairs, no pair twice.
    for (const p of body.data) expect(p.contacts[0].id).toBeLessThan(p.contacts[1].id);
    expect(new Set(body.data.map((p) => pairIds(p).join())).size).toBe(body.data.length);
  });

  it('pages with the true total, also past the end', async () => {
    const client = api(ctx.app, tenant.admin.token);
    const second = (await client.get('/api/crm/duplicates?page=2&limit=2')).json();
    expect(second).toMatchObject({ total: 4, page: 2, limit: 2 });
    expect(second.data.map(pairIds)).toEqual([[ids.d, ids.e], [ids.f, ids.g]]);
    const past = (await client.get('/api/crm/duplicates?page=5&limit=2')).json();
    expect(past).toEqual({ data: [], total: 4, page: 5, limit: 2 });
    expect((await client.get('/api/crm/duplicates?limit=500')).json().limit).toBe(100);
  });

  it('is readable with contacts:read alone, and a merged pair disappears', async () => {
    const reader = await newUser(ctx, tenant, ['contacts:read'], { firstName: 'Unique', lastName: 'Reader' });
    expect((await api(ctx.app, reader.token).get('/api/crm/duplicates')).json().total).toBe(4);
    await post(ctx, tenant.admin.token, `/api/crm/contacts/${ids.d}/merge`, { sourceIds: [ids.e] }, 200);
    const after = (await api(ctx.app, reader.token).get('/api/crm/duplicates')).json();
    expect(after.total).toBe(3);
    expect(after.data.map(pairIds)).not.toContainEqual([ids.d, ids.e]);
  });

  it('an empty tenant has no pairs', async () => {
    const empty = await newTenant(ctx);
    expect((await api(ctx.app, empty.admin.token).get('/api/crm/duplicates')).json()).toEqual({ data: [], total: 0, page: 1, limit: 20 });
  });
});

describe('duplicate keys and their indexes', () => {
  it('each key is computed by the very expression its index holds (with scans forced onto indexes, every key uses its own)', async () => {
    const { keyPairs } = await import('../../src/modules/privacy/duplicates.repository.js');
    const tenant = await newTenant(ctx);
    const plan = await withTenant(ctx.db, tenant.id, async (tx) => {
      await tx.execute(sql`SELECT set_config('enable_seqscan', 'off', true), set_config('enable_bitmapscan', 'off', true)`);
      const res = (await tx.execute(sql.raw(`EXPLAIN ${keyPairs(tenant.id)}`))) as unknown as { rows: Record<string, string>[] };
      return res.rows.map((r) => Object.values(r)[0]).join('\n');
    });
    for (const index of ['contact_phones_dup_idx', 'persons_name_dup_idx', 'companies_name_dup_idx']) expect(plan, plan).toContain(index);
    expect(plan).toMatch(/contact_emails_(dup|value)_idx/);
  });
});
