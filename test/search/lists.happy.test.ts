import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { withTenant } from '../../src/db/client.js';
import { ALL_PERMISSIONS } from '../../src/lib/permissions.js';
import { savedListContactIdsSql } from '../../src/modules/search/lists.service.js';
import { api, setupTestApp } from '../helpers/app.js';
import { newTenant, type TestTenant } from '../helpers/factories.js';
import { addMembership, newGroup, type TestGroup } from '../helpers/groups.factories.js';
import { ids, person } from './fixtures.js';

const ctx = setupTestApp();

describe('saved lists', () => {
  let t: TestTenant;
  let choir: TestGroup;
  const id: Record<string, number> = {};
  const as = () => api(ctx.app, t.admin.token);
  const kampala = { conditions: [{ field: 'city', operator: 'eq', value: 'Kampala' }] };

  beforeAll(async () => {
    t = await newTenant(ctx);
    choir = await newGroup(ctx, t, { name: 'Choir' });
    id.ann = await person(ctx, t, 'Ann', 'Kato', { addresses: [{ city: 'Kampala' }] });
    id.ben = await person(ctx, t, 'Ben', 'Okello', { addresses: [{ city: 'Kampala' }] });
    id.cy = await person(ctx, t, 'Cy', 'Mugisha', { addresses: [{ city: 'Gulu' }] });
  });

  it('POST creates a list (201) with the criteria as stored, the owner and the current count', async () => {
    const res = await as().post('/api/search/lists', { name: 'Kampala people', criteria: kampala });
    expect(res.statusCode, res.body).toBe(201);
    const list = res.json();
    expect(list).toEqual({
      id: expect.any(Number),
      name: 'Kampala people',
      criteria: { match: 'all', conditions: [{ field: 'city', operator: 'eq', value: 'Kampala' }], sort: 'lastName' },
      shared: false,
      owner: { id: t.admin.id, username: 'admin' },
      count: 2,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect((await as().get(`/api/search/lists/${list.id}`)).json()).toEqual(list);
  });

  it('POST honours Idempotency-Key: a repeat returns the first list and creates nothing', async () => {
    const body = { name: 'Idempotent', criteria: kampala };
    const first = await as().post('/api/search/lists', body, { 'idempotency-key': 'list-1' });
    const again = await as().post('/api/search/lists', body, { 'idempotency-key': 'list-1' });
    expect(first.statusCode).toBe(201);
    expect(again.statusCode).toBe(201);
    expect(again.json().id).toBe(first.json().id);
    expect(again.headers['idempotent-replayed']).toBe('true');
    const named = (await as().get('/api/search/lists?limit=100')).json().data.filter((l: { name: string }) => l.name === 'Idempotent');
    expect(named).toHaveLength(1);
    expect((await as().post('/api/search/lists', { ...body, shared: true }, { 'idempotency-key': 'list-1' })).statusCode).toBe(422);
  });

  it('GET /lists/:id/contacts evaluates the list on read (a smart list reflects later changes)', async () => {
    const list = (await as().post('/api/search/lists', { name: 'Choir members', criteria: { conditions: [{ field: 'memberOf', operator: 'eq', value: choir.id }] } })).json();
    expect(list.count).toBe(0);
    expect((await as().get(`/api/search/lists/${list.id}/contacts`)).json()).toEqual({ data: [], total: 0, page: 1, limit: 20 });
    await addMembership(ctx, t, choir, id.cy);
    await addMembership(ctx, t, choir, id.ann);
    const members = (await as().get(`/api/search/lists/${list.id}/contacts`)).json();
    expect(ids(members)).toEqual([id.ann, id.cy]); // last name order: Kato, Mugisha
    expect(members.total).toBe(2);
    expect(members.data[0]).toEqual({ id: id.ann, category: 'Person', status: 'Active', person: { firstName: 'Ann', lastName: 'Kato', gender: null }, emails: [], phones: [] });
    expect((await as().get(`/api/search/lists/${list.id}`)).json().count).toBe(2);
    // A contact moving out of Kampala leaves the Kampala list.
    const moved = await as().put(`/api/crm/contacts/${id.ben}`, { addresses: [{ city: 'Jinja' }] });
    expect(moved.statusCode, moved.body).toBe(200);
    const lists = (await as().get('/api/search/lists')).json();
    expect(lists.data.find((l: { name: string }) => l.name === 'Kampala people').count).toBe(1);
    await as().put(`/api/crm/contacts/${id.ben}`, { addresses: [{ city: 'Kampala' }] });
  });

  it('pages the members and sorts them as the criteria say', async () => {
    const list = (await as().post('/api/search/lists', { name: 'Everyone, newest first', criteria: { conditions: [{ field: 'createdWithinDays', operator: 'lt', value: 10 }], sort: '-createdAt' } })).json();
    const page = (await as().get(`/api/search/lists/${list.id}/contacts?page=1&limit=2`)).json();
    expect(ids(page)).toEqual([id.cy, id.ben]);
    expect(page).toMatchObject({ total: 4, page: 1, limit: 2 });
    const past = (await as().get(`/api/search/lists/${list.id}/contacts?page=5&limit=2`)).json();
    expect(past).toEqual({ data: [], total: 4, page: 5, limit: 2 });
  });

  it('GET /lists: by name, every count computed, filters on shared', async () => {
    const shared = (await as().post('/api/search/lists', { name: 'A shared list', criteria: kampala, shared: true })).json();
    expect(shared.shared).toBe(true);
    const all = (await as().get('/api/search/lists')).json();
    const names = all.data.map((l: { name: string }) => l.name);
    expect(names).toEqual([...names].sort());
    expect(all.total).toBe(all.data.length);
    expect(all.data.every((l: { count: number }) => typeof l.count === 'number')).toBe(true);
    expect((await as().get('/api/search/lists?shared=true')).json().data.map((l: { id: number }) => l.id)).toEqual([shared.id]);
    expect((await as().get('/api/search/lists?shared=false')).json().data.map((l: { id: number }) => l.id)).not.toContain(shared.id);
    const paged = (await as().get('/api/search/lists?limit=1&page=2')).json();
    expect(paged).toMatchObject({ total: all.total, page: 2, limit: 1 });
    expect(paged.data[0].id).toBe(all.data[1].id);
  });

  it('PUT changes name, criteria and sharing; the count follows the new criteria', async () => {
    const list = (await as().post('/api/search/lists', { name: 'To change', criteria: kampala })).json();
    const res = await as().put(`/api/search/lists/${list.id}`, { name: 'Gulu people', criteria: { match: 'any', conditions: [{ field: 'city', operator: 'eq', value: 'Gulu' }] }, shared: true });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ id: list.id, name: 'Gulu people', shared: true, count: 1, criteria: { match: 'any', sort: 'lastName' } });
    const renamed = (await as().put(`/api/search/lists/${list.id}`, { name: 'Gulu' })).json();
    expect(renamed).toMatchObject({ name: 'Gulu', shared: true, count: 1 });
    expect(ids((await as().get(`/api/search/lists/${list.id}/contacts`)).json())).toEqual([id.cy]);
  });

  it('savedListContactIdsSql gives another module the members as a subquery (same rule, same count)', async () => {
    const list = (await as().post('/api/search/lists', { name: 'For messages', criteria: kampala })).json();
    const auth = { userId: t.admin.id, tenantId: t.id, contactId: t.admin.contactId, username: 'admin', sessionId: 's', permissions: new Set(ALL_PERMISSIONS) };
    const found = await withTenant(ctx.db, t.id, async (tx) => {
      const members = await savedListContactIdsSql(tx, auth, list.id);
      const result = await tx.execute(sql`select id from contacts where tenant_id = ${t.id} and id in ${members} order by id`);
      return (result as unknown as { rows: { id: number }[] }).rows.map((r) => Number(r.id));
    });
    expect(found).toEqual([id.ann, id.ben].sort((a, b) => a - b));
    await expect(withTenant(ctx.db, t.id, (tx) => savedListContactIdsSql(tx, auth, 999999))).rejects.toThrow('not found');
  });

  it('DELETE removes the list (204), then it is 404', async () => {
    const list = (await as().post('/api/search/lists', { name: 'Short-lived', criteria: kampala })).json();
    const res = await as().delete(`/api/search/lists/${list.id}`);
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect((await as().get(`/api/search/lists/${list.id}`)).statusCode).toBe(404);
    expect((await as().get(`/api/search/lists/${list.id}/contacts`)).statusCode).toBe(404);
  });

  it('a list whose group was deleted reads as empty (no error)', async () => {
    const doomed = await newGroup(ctx, t, { name: 'Doomed' });
    await addMembership(ctx, t, doomed, id.ann);
    const list = (await as().post('/api/search/lists', { name: 'Doomed members', criteria: { conditions: [{ field: 'memberOf', operator: 'eq', value: doomed.id }] } })).json();
    expect(list.count).toBe(1);
    // Gone for good (memberships and group removed straight in the database).
    await withTenant(ctx.db, t.id, async (tx) => {
      await tx.execute(sql`delete from group_memberships where tenant_id = ${t.id} and group_id = ${doomed.id}`);
      await tx.execute(sql`delete from groups where tenant_id = ${t.id} and id = ${doomed.id}`);
    });
    expect((await as().get(`/api/search/lists/${list.id}`)).json().count).toBe(0);
    expect((await as().get(`/api/search/lists/${list.id}/contacts`)).json().total).toBe(0);
  });
});
