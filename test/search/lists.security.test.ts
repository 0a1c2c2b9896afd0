import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { newTenant, newUser, type TestTenant, type TestUser } from '../helpers/factories.js';
import { addMembership, newGroup, newLeaderOf, newTree } from '../helpers/groups.factories.js';
import { person } from './fixtures.js';

const ctx = setupTestApp();

const kampala = { conditions: [{ field: 'city', operator: 'eq', value: 'Kampala' }] };

async function listCount(tenantId: number): Promise<number> {
  const result = await ctx.db.execute(sql`select count(*)::int as n from saved_lists where tenant_id = ${tenantId}`);
  return Number((result as unknown as { rows: { n: number }[] }).rows[0].n);
}

describe('saved lists: permissions and sharing', () => {
  let t: TestTenant;
  let owner: TestUser; // contacts:read only
  let reader: TestUser; // contacts:read only
  let writer: TestUser; // contacts:read + contacts:write
  let privateList: number;
  let sharedList: number;
  const as = (u: TestUser | TestTenant['admin']) => api(ctx.app, u.token);

  beforeAll(async () => {
    t = await newTenant(ctx);
    owner = await newUser(ctx, t, ['contacts:read']);
    reader = await newUser(ctx, t, ['contacts:read']);
    writer = await newUser(ctx, t, ['contacts:read', 'contacts:write']);
    await person(ctx, t, 'Ann', 'Kato', { addresses: [{ city: 'Kampala' }] });
    privateList = (await as(owner).post('/api/search/lists', { name: 'Mine', criteria: kampala })).json().id;
    sharedList = (await as(owner).post('/api/search/lists', { name: 'Ours', criteria: kampala, shared: true })).json().id;
  });

  const routes = (listId: number) => [
    ['GET', '/api/search/lists', undefined],
    ['POST', '/api/search/lists', { name: 'X', criteria: kampala }],
    ['GET', `/api/search/lists/${listId}`, undefined],
    ['PUT', `/api/search/lists/${listId}`, { name: 'Y' }],
    ['DELETE', `/api/search/lists/${listId}`, undefined],
    ['GET', `/api/search/lists/${listId}/contacts`, undefined],
    ['POST', '/api/search/contacts', kampala],
  ] as const;
  const send = (token: string | undefined, method: string, url: string, body?: unknown) =>
    ctx.app.inject({ method: method as 'GET', url, payload: body as object, headers: token ? { authorization: `Bearer ${token}` } : {} });

  it('every route: 401 without a token, 403 without contacts:read; nothing written', async () => {
    const member = await newUser(ctx, t, 'Member');
    const before = await listCount(t.id);
    for (const [method, url, body] of routes(sharedList)) {
      expectError(await send(undefined, method, url, body), 401);
      expect(expectError(await send(member.token, method, url, body), 403)).toContain('contacts:read');
    }
    expect(await listCount(t.id)).toBe(before);
  });

  it('a private list is its owner\'s alone: 404 to everyone else, even an admin, and never listed', async () => {
    for (const u of [reader, writer, t.admin]) {
      expectError(await as(u).get(`/api/search/lists/${privateList}`), 404);
      expectError(await as(u).put(`/api/search/lists/${privateList}`, { name: 'Taken' }), 404);
      expectError(await as(u).delete(`/api/search/lists/${privateList}`), 404);
      expectError(await as(u).get(`/api/search/lists/${privateList}/contacts`), 404);
      expect((await as(u).get('/api/search/lists')).json().data.map((l: { id: number }) => l.id)).not.toContain(privateList);
    }
    expect((await as(owner).get(`/api/search/lists/${privateList}`)).json().name).toBe('Mine');
  });

  it('a shared list: read by everyone with contacts:read; changed only by its owner or with contacts:write', async () => {
    const seen = (await as(reader).get(`/api/search/lists/${sharedList}`)).json();
    expect(seen).toMatchObject({ id: sharedList, shared: true, owner: { id: owner.id, username: owner.username }, count: 1 });
    expect((await as(reader).get(`/api/search/lists/${sharedList}/contacts`)).json().total).toBe(1);
    expect((await as(reader).get('/api/search/lists')).json().data.map((l: { id: number }) => l.id)).toEqual([sharedList]);
    // Without contacts:write: 403, nothing changed.
    expect(expectError(await as(reader).put(`/api/search/lists/${sharedList}`, { name: 'Hijacked' }), 403)).toContain('contacts:write');
    expectError(await as(reader).delete(`/api/search/lists/${sharedList}`), 403);
    expect((await as(owner).get(`/api/search/lists/${sharedList}`)).json().name).toBe('Ours');
    // With contacts:write: may rename, may not unshare (only the owner decides who sees it).
    expect((await as(writer).put(`/api/search/lists/${sharedList}`, { name: 'Ours (edited)' })).json().name).toBe('Ours (edited)');
    expect(expectError(await as(writer).put(`/api/search/lists/${sharedList}`, { shared: false }), 403)).toContain('owner');
    // The owner needs no contacts:write for their own lists.
    expect((await as(owner).put(`/api/search/lists/${sharedList}`, { name: 'Ours' })).statusCode).toBe(200);
    const mine = (await as(owner).post('/api/search/lists', { name: 'Temp', criteria: kampala, shared: true })).json().id;
    expect((await as(writer).delete(`/api/search/lists/${mine}`)).statusCode).toBe(204);
    const mine2 = (await as(owner).post('/api/search/lists', { name: 'Temp2', criteria: kampala })).json().id;
    expect((await as(owner).delete(`/api/search/lists/${mine2}`)).statusCode).toBe(204);
  });

  it('giving conditions: saving needs finance:read (403, nothing written); a reader without it gets count null and 403 on members', async () => {
    const giving = { conditions: [{ field: 'gaveWithinDays', operator: 'lt', value: 30 }] };
    const before = await listCount(t.id);
    expect(expectError(await as(owner).post('/api/search/lists', { name: 'Givers', criteria: giving }), 403)).toContain('finance:read');
    expect(await listCount(t.id)).toBe(before);
    const treasurer = await newUser(ctx, t, ['contacts:read', 'finance:read']);
    const givers = (await as(treasurer).post('/api/search/lists', { name: 'Givers', criteria: giving, shared: true })).json();
    expect(givers.count).toBe(0);
    const seen = (await as(reader).get(`/api/search/lists/${givers.id}`)).json();
    expect(seen.count).toBeNull();
    expect((await as(reader).get('/api/search/lists')).json().data.find((l: { id: number }) => l.id === givers.id).count).toBeNull();
    expect(expectError(await as(reader).get(`/api/search/lists/${givers.id}/contacts`), 403)).toContain('giving');
    // Changing the criteria of someone else's list to giving ones needs finance:read too.
    expect(expectError(await as(writer).put(`/api/search/lists/${sharedList}`, { criteria: giving }), 403)).toContain('finance:read');
  });

  it('memberOf a group the reader cannot see: saving is 404; reading someone else\'s shared list counts only what the reader may see', async () => {
    const tree = await newTree(ctx, t);
    const insider = await person(ctx, t, 'In', 'Sider');
    await addMembership(ctx, t, tree.zoneB, insider);
    const zoneALeader = await newLeaderOf(ctx, t, tree.zoneA);
    const before = await listCount(t.id);
    expect(expectError(await as(zoneALeader).post('/api/search/lists', { name: 'Zone B', criteria: { conditions: [{ field: 'memberOf', operator: 'eq', value: tree.zoneB.id }] } }), 404)).toContain(`${tree.zoneB.id}`);
    expect(await listCount(t.id)).toBe(before);
    const list = (await as(t.admin).post('/api/search/lists', { name: 'Zone B', criteria: { conditions: [{ field: 'memberOf', operator: 'eq', value: tree.zoneB.id }] }, shared: true })).json();
    expect(list.count).toBe(1);
    expect((await as(zoneALeader).get(`/api/search/lists/${list.id}`)).json().count).toBe(0);
    expect((await as(zoneALeader).get(`/api/search/lists/${list.id}/contacts`)).json()).toMatchObject({ data: [], total: 0 });
    const other = await newGroup(ctx, await newTenant(ctx), { name: 'Elsewhere' });
    expectError(await as(t.admin).put(`/api/search/lists/${list.id}`, { criteria: { conditions: [{ field: 'memberOf', operator: 'eq', value: other.id }] } }), 404);
  });

  it("another tenant's lists are 404 everywhere and never listed", async () => {
    const other = await newTenant(ctx);
    const theirs = (await api(ctx.app, other.admin.token).post('/api/search/lists', { name: 'Theirs', criteria: kampala, shared: true })).json().id;
    expectError(await as(t.admin).get(`/api/search/lists/${theirs}`), 404);
    expectError(await as(t.admin).put(`/api/search/lists/${theirs}`, { name: 'Mine now' }), 404);
    expectError(await as(t.admin).delete(`/api/search/lists/${theirs}`), 404);
    expectError(await as(t.admin).get(`/api/search/lists/${theirs}/contacts`), 404);
    expect((await as(t.admin).get('/api/search/lists')).json().data.map((l: { id: number }) => l.id)).not.toContain(theirs);
    // Their list counts their contacts only (none in Kampala).
    expect((await api(ctx.app, other.admin.token).get(`/api/search/lists/${theirs}`)).json().count).toBe(0);
  });
});
