import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { contactRelationships } from '../../src/db/schema/index.js';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { newTenant, newUser } from '../helpers/factories.js';
import { newPerson } from '../helpers/contacts.factories.js';

const ctx = setupTestApp();

describe('relationships: security', () => {
  it('401 without a token; 403 without the permissions', async () => {
    const t = await newTenant(ctx);
    const x = await newPerson(ctx, t, 'X', 'X');
    const body = { contactId: x.id, relatedContactId: t.admin.contactId, type: 'Friend' };
    expectError(await api(ctx.app).get('/api/crm/relationships'), 401);
    expectError(await api(ctx.app).post('/api/crm/relationships', body), 401);
    expectError(await api(ctx.app).delete('/api/crm/relationships/1'), 401);
    const none = api(ctx.app, (await newUser(ctx, t, ['groups:read'])).token);
    expectError(await none.get('/api/crm/relationships'), 403);
    const reader = api(ctx.app, (await newUser(ctx, t, ['contacts:read'])).token);
    expect((await reader.get('/api/crm/relationships')).statusCode).toBe(200);
    expectError(await reader.post('/api/crm/relationships', body), 403);
    const rel = (await api(ctx.app, t.admin.token).post('/api/crm/relationships', body)).json();
    expectError(await reader.delete(`/api/crm/relationships/${rel.id}`), 403);
    expect(await ctx.db.$count(contactRelationships, eq(contactRelationships.tenantId, t.id))).toBe(2);
  });

  it("another tenant's contacts and relationships are 404 and invisible", async () => {
    const a = await newTenant(ctx);
    const b = await newTenant(ctx);
    const ax = await newPerson(ctx, a, 'AX', 'A');
    const ay = await newPerson(ctx, a, 'AY', 'A');
    const bx = await newPerson(ctx, b, 'BX', 'B');
    const rel = (await api(ctx.app, a.admin.token).post('/api/crm/relationships', { contactId: ax.id, relatedContactId: ay.id, type: 'Spouse' })).json();
    const attacker = api(ctx.app, b.admin.token);
    expect(expectError(await attacker.post('/api/crm/relationships', { contactId: ax.id, relatedContactId: ay.id, type: 'Friend' }), 404)).toBe(`Contact with id ${ax.id}, ${ay.id} not found`);
    expectError(await attacker.post('/api/crm/relationships', { contactId: bx.id, relatedContactId: ax.id, type: 'Friend' }), 404);
    expectError(await attacker.post('/api/crm/relationships', { contactId: ax.id, relatedContactId: bx.id, type: 'Friend' }), 404);
    expect(expectError(await attacker.delete(`/api/crm/relationships/${rel.id}`), 404)).toBe(`Relationship with id ${rel.id} not found`);
    expect((await attacker.get(`/api/crm/relationships?contactId=${ax.id}`)).json()).toMatchObject({ total: 0, data: [] });
    expect((await attacker.get('/api/crm/relationships')).json().total).toBe(0);
    expect(await ctx.db.$count(contactRelationships, eq(contactRelationships.tenantId, a.id))).toBe(2);
    expect(await ctx.db.$count(contactRelationships, eq(contactRelationships.tenantId, b.id))).toBe(0);
  });
});
