import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { contactRelationships } from '../../src/db/schema/index.js';
import { api, setupTestApp } from '../helpers/app.js';
import { newTenant } from '../helpers/factories.js';
import { newCompany, newPerson } from '../helpers/contacts.factories.js';

const ctx = setupTestApp();

const INVERSES: [string, string][] = [
  ['Spouse', 'Spouse'], ['Parent', 'Child'], ['Child', 'Parent'], ['Sibling', 'Sibling'], ['Guardian', 'Ward'], ['Ward', 'Guardian'],
  ['Grandparent', 'Grandchild'], ['Grandchild', 'Grandparent'], ['Relative', 'Relative'], ['Friend', 'Friend'],
  ['Employer', 'Employee'], ['Employee', 'Employer'], ['Other', 'Other'],
];

describe('relationships', () => {
  it('creates the relationship and its inverse, shown in both single reads', async () => {
    const t = await newTenant(ctx);
    const a = api(ctx.app, t.admin.token);
    const child = await newPerson(ctx, t, 'Kid', 'Okafor');
    const mum = await newPerson(ctx, t, 'Grace', 'Okafor');
    const res = await a.post('/api/crm/relationships', { contactId: child.id, relatedContactId: mum.id, type: 'Parent' });
    expect(res.statusCode).toBe(201);
    const rel = res.json();
    expect(rel).toEqual({
      id: expect.any(Number), contactId: child.id, relatedContactId: mum.id, type: 'Parent',
      relatedContact: { id: mum.id, firstName: 'Grace', lastName: 'Okafor', name: 'Grace Okafor', category: 'Person' },
    });
    expect((await a.get(`/api/crm/contacts/${child.id}`)).json().relationships).toEqual([rel]);
    const inverse = (await a.get(`/api/crm/contacts/${mum.id}`)).json().relationships;
    expect(inverse).toEqual([{
      id: expect.any(Number), contactId: mum.id, relatedContactId: child.id, type: 'Child',
      relatedContact: { id: child.id, firstName: 'Kid', lastName: 'Okafor', name: 'Kid Okafor', category: 'Person' },
    }]);
  });

  it.each(INVERSES)('%s is stored with inverse %s', async (type, inverse) => {
    const t = await newTenant(ctx);
    const x = await newPerson(ctx, t, 'X', 'One');
    const y = await newPerson(ctx, t, 'Y', 'Two');
    expect((await api(ctx.app, t.admin.token).post('/api/crm/relationships', { contactId: x.id, relatedContactId: y.id, type })).statusCode).toBe(201);
    const rows = await ctx.db.select().from(contactRelationships).where(eq(contactRelationships.tenantId, t.id));
    expect(rows.map((r) => [r.contactId, r.relatedContactId, r.type]).sort()).toEqual([[x.id, y.id, type], [y.id, x.id, inverse]].sort());
  });

  it('lists with filters contactId and type, paginated and ordered', async () => {
    const t = await newTenant(ctx);
    const a = api(ctx.app, t.admin.token);
    const p = await newPerson(ctx, t, 'P', 'P');
    const q = await newPerson(ctx, t, 'Q', 'Q');
    const firm = await newCompany(ctx, t, 'Works Ltd');
    await a.post('/api/crm/relationships', { contactId: p.id, relatedContactId: q.id, type: 'Sibling' });
    const job = (await a.post('/api/crm/relationships', { contactId: p.id, relatedContactId: firm.id, type: 'Employer' })).json();
    expect(job.relatedContact).toEqual({ id: firm.id, firstName: null, lastName: null, name: 'Works Ltd', category: 'Company' });
    const all = (await a.get('/api/crm/relationships')).json();
    expect(all).toMatchObject({ total: 4, page: 1, limit: 20 });
    const ofP = (await a.get(`/api/crm/relationships?contactId=${p.id}`)).json();
    expect(ofP.data.map((r: { type: string }) => r.type)).toEqual(['Sibling', 'Employer']);
    expect((await a.get(`/api/crm/relationships?contactId=${firm.id}&type=Employee`)).json()).toMatchObject({ total: 1, data: [{ relatedContactId: p.id }] });
    expect((await a.get(`/api/crm/relationships?contactId=${p.id}&limit=1&page=2`)).json()).toMatchObject({ total: 2, data: [{ id: job.id }] });
    expect((await a.get('/api/crm/relationships?contactId=987654')).json()).toMatchObject({ total: 0, data: [] });
  });

  it('DELETE removes both sides', async () => {
    const t = await newTenant(ctx);
    const a = api(ctx.app, t.admin.token);
    const x = await newPerson(ctx, t, 'X', 'X');
    const y = await newPerson(ctx, t, 'Y', 'Y');
    const keep = await newPerson(ctx, t, 'K', 'K');
    const rel = (await a.post('/api/crm/relationships', { contactId: x.id, relatedContactId: y.id, type: 'Guardian' })).json();
    await a.post('/api/crm/relationships', { contactId: x.id, relatedContactId: keep.id, type: 'Friend' });
    const res = await a.delete(`/api/crm/relationships/${rel.id}`);
    expect(res.statusCode).toBe(204);
    const rows = await ctx.db.select().from(contactRelationships).where(and(eq(contactRelationships.tenantId, t.id)));
    expect(rows.map((r) => r.type).sort()).toEqual(['Friend', 'Friend']);
    // Deleting from the inverse side removes the pair too.
    const inverseId = rows.find((r) => r.contactId === keep.id)!.id;
    expect((await a.delete(`/api/crm/relationships/${inverseId}`)).statusCode).toBe(204);
    expect(await ctx.db.$count(contactRelationships, eq(contactRelationships.tenantId, t.id))).toBe(0);
  });
});
