import { beforeAll, describe, expect, it } from 'vitest';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { newPerson } from '../helpers/contacts.factories.js';
import { newTenant, newUser, type TestTenant, type TestUser } from '../helpers/factories.js';
import { newFamily } from '../helpers/households.factories.js';

const ctx = setupTestApp();

describe('household security', () => {
  let t: TestTenant;
  let other: TestTenant;
  let reader: TestUser;
  let nobody: TestUser;
  let family: Awaited<ReturnType<typeof newFamily>>;
  let theirs: Awaited<ReturnType<typeof newFamily>>;
  beforeAll(async () => {
    t = await newTenant(ctx);
    other = await newTenant(ctx);
    reader = await newUser(ctx, t, ['contacts:read']);
    nobody = await newUser(ctx, t, ['groups:read']);
    family = await newFamily(ctx, t, 'Osei', ['Head', 'Child']);
    theirs = await newFamily(ctx, other, 'Mensah', ['Head', 'Spouse']);
  });

  const routes = () => {
    const id = family.household.id;
    const member = family.people[1].id;
    return {
      read: [['GET', '/api/crm/households'], ['GET', `/api/crm/households/${id}`]] as const,
      write: [
        ['POST', '/api/crm/households', { members: [{ contactId: member, role: 'Head' }] }],
        ['PUT', `/api/crm/households/${id}`, { name: 'X' }],
        ['DELETE', `/api/crm/households/${id}`],
        ['POST', `/api/crm/households/${id}/members`, { contactId: member, role: 'Other' }],
        ['PUT', `/api/crm/households/${id}/members/${member}`, { role: 'Other' }],
        ['DELETE', `/api/crm/households/${id}/members/${member}`],
      ] as const,
    };
  };

  it('every route is 401 without a token', async () => {
    const { read, write } = routes();
    for (const [method, url, body] of [...read.map(([m, u]) => [m, u, undefined] as const), ...write]) {
      const res = await ctx.app.inject({ method, url, payload: body as object | undefined });
      expectError(res, 401);
    }
  });

  it('reads need contacts:read, writes contacts:write (403), and a reader changes nothing', async () => {
    const { read, write } = routes();
    for (const [, url] of read) expectError(await api(ctx.app, nobody.token).get(url), 403);
    for (const [, url] of read) expect((await api(ctx.app, reader.token).get(url)).statusCode).toBe(200);
    for (const [method, url, body] of write) {
      expectError(await ctx.app.inject({ method, url, payload: body as object | undefined, headers: { authorization: `Bearer ${reader.token}` } }), 403);
    }
    const after = (await api(ctx.app, t.admin.token).get(`/api/crm/households/${family.household.id}`)).json();
    expect(after.name).toBe('Osei household');
    expect(after.members).toHaveLength(2);
    // The search box type needs contacts:read too.
    expectError(await api(ctx.app, nobody.token).get('/api/search?q=osei&types=households'), 403);
  });

  it("another tenant's households and contacts are 404 and never listed", async () => {
    const client = api(ctx.app, t.admin.token);
    const id = theirs.household.id;
    expectError(await client.get(`/api/crm/households/${id}`), 404);
    expectError(await client.put(`/api/crm/households/${id}`, { name: 'Mine now' }), 404);
    expectError(await client.delete(`/api/crm/households/${id}`), 404);
    expectError(await client.post(`/api/crm/households/${id}/members`, { contactId: family.people[0].id, role: 'Other' }), 404);
    expectError(await client.put(`/api/crm/households/${id}/members/${theirs.people[0].id}`, { role: 'Child' }), 404);
    expectError(await client.delete(`/api/crm/households/${id}/members/${theirs.people[0].id}`), 404);
    // Their people cannot be put into our households, nor made our primary contact.
    expectError(await client.post('/api/crm/households', { members: [{ contactId: theirs.people[0].id, role: 'Head' }] }), 404);
    const mine = await newPerson(ctx, t, 'Kofi', 'Asante');
    expectError(await client.post(`/api/crm/households/${family.household.id}/members`, { contactId: theirs.people[1].id, role: 'Other' }), 404);
    expectError(await client.put(`/api/crm/households/${family.household.id}`, { primaryContactId: theirs.people[0].id }), 400);
    expect((await client.get('/api/crm/households?q=mensah')).json()).toMatchObject({ data: [], total: 0 });
    expect((await client.get(`/api/crm/contacts?householdId=${id}`)).json()).toMatchObject({ data: [], total: 0 });
    expect((await client.get('/api/search?q=mensah&types=households')).json().totals.households).toBe(0);
    expect((await client.get(`/api/crm/contacts/${mine.id}`)).json().household).toBeNull();
    const theirView = (await api(ctx.app, other.admin.token).get(`/api/crm/households/${id}`)).json();
    expect(theirView.name).toBe('Mensah household');
    expect(theirView.members).toHaveLength(2);
  });
});
