import { describe, expect, it } from 'vitest';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { newTenant, type TestTenant } from '../helpers/factories.js';
import { addMembership, categoryId, newActors, newContact, newTree } from '../helpers/groups.factories.js';

/**
 * api-contract §4 over the six-level tree of newTree(): what an Admin, a Zone leader, a Fellowship
 * leader, a plain member and a member with no groups may see (else 404) and do (else 403).
 */
const ctx = setupTestApp();

type Tree = Awaited<ReturnType<typeof newTree>>;
type GroupKey = keyof Tree;
type Actor = 'admin' | 'zoneLeader' | 'fellowshipLeader' | 'member' | 'loner';

const ALL: GroupKey[] = ['church', 'network', 'location', 'zoneA', 'clusterA', 'fellowshipA1', 'fellowshipA2', 'zoneB', 'clusterB', 'fellowshipB1'];
const PUBLIC: GroupKey[] = ['church', 'network', 'location', 'zoneA', 'clusterA', 'fellowshipA1'];
const ACTORS: Actor[] = ['admin', 'zoneLeader', 'fellowshipLeader', 'member', 'loner'];
const VISIBLE: Record<Actor, GroupKey[]> = {
  admin: ALL,
  zoneLeader: [...PUBLIC, 'fellowshipA2'],
  fellowshipLeader: [...PUBLIC, 'fellowshipA2'],
  member: [...PUBLIC, 'fellowshipB1'],
  loner: PUBLIC,
};
const MANAGED: Record<Actor, GroupKey[]> = {
  admin: ALL,
  zoneLeader: ['zoneA', 'clusterA', 'fellowshipA1', 'fellowshipA2'],
  fellowshipLeader: ['fellowshipA2'],
  member: [],
  loner: [],
};
const CAN_WRITE: Actor[] = ['admin', 'zoneLeader', 'fellowshipLeader'];

/** The status a write to `key` must get: success, 403 (no permission or not led) or 404 (invisible). */
function writeStatus(actor: Actor, key: GroupKey, success: number): number {
  if (!CAN_WRITE.includes(actor)) return 403;
  if (!VISIBLE[actor].includes(key)) return 404;
  return MANAGED[actor].includes(key) ? success : 403;
}

/** A fresh tenant, tree and actors; every group gets an active member so DELETE is always refused. */
async function world() {
  const tenant: TestTenant = await newTenant(ctx);
  const tree = await newTree(ctx, tenant);
  const actors = await newActors(ctx, tenant, tree);
  const filler = await newContact(ctx, tenant, 'Fill', 'Er');
  const fillerMemberships = {} as Record<GroupKey, number>;
  for (const key of ALL) fillerMemberships[key] = (await addMembership(ctx, tenant, tree[key], filler)).id;
  const client = (actor: Actor) => api(ctx.app, actors[actor].token);
  const keyOf = (id: number) => ALL.find((k) => tree[k].id === id)!;
  return { tenant, tree, actors, client, keyOf, fillerMemberships };
}

const sorted = (keys: GroupKey[]) => [...keys].sort();

describe('visibility matrix: groups', () => {
  it('lists, combo, counts and single reads show exactly the visible groups', async () => {
    const w = await world();
    for (const actor of ACTORS) {
      const c = w.client(actor);
      const list = (await c.get('/api/groups?limit=100')).json();
      expect(sorted(list.data.map((g: { id: number }) => w.keyOf(g.id))), actor).toEqual(sorted(VISIBLE[actor]));
      expect(list.total, actor).toBe(VISIBLE[actor].length);
      const combo = (await c.get('/api/groups/combo?limit=100')).json();
      expect(sorted(combo.data.map((g: { id: number }) => w.keyOf(g.id))), actor).toEqual(sorted(VISIBLE[actor]));
      expect(combo.total, actor).toBe(VISIBLE[actor].length);
      const under = (await c.get(`/api/groups?ancestorId=${w.tree.location.id}&limit=100`)).json();
      expect(under.total, actor).toBe(VISIBLE[actor].filter((k) => !['church', 'network', 'location'].includes(k)).length);
      for (const key of ALL) {
        const res = await c.get(`/api/groups/${w.tree[key].id}`);
        if (VISIBLE[actor].includes(key)) expect(res.statusCode, `${actor} GET ${key}`).toBe(200);
        else expect(expectError(res, 404), `${actor} GET ${key}`).toBe(`Group with id ${w.tree[key].id} not found`);
      }
    }
  });

  it('children of a single read are filtered by visibility; a visible group shows its hidden parent', async () => {
    const w = await world();
    for (const actor of ACTORS) {
      const read = (await w.client(actor).get(`/api/groups/${w.tree.location.id}`)).json();
      const expected = (['zoneA', 'zoneB'] as GroupKey[]).filter((k) => VISIBLE[actor].includes(k));
      expect(read.children.map((g: { id: number }) => w.keyOf(g.id)), actor).toEqual(expected);
    }
    const b1 = (await w.client('member').get(`/api/groups/${w.tree.fellowshipB1.id}`)).json();
    expect(b1.parent).toEqual({ id: w.tree.clusterB.id, name: 'Cluster B' });
    expect(b1.members.length).toBe(2);
  });

  it('update and delete: led → allowed, visible but not led → 403, invisible → 404', async () => {
    const w = await world();
    for (const actor of ACTORS) {
      const c = w.client(actor);
      for (const key of ALL) {
        const put = await c.put(`/api/groups/${w.tree[key].id}`, { details: `by ${actor}` });
        expect(put.statusCode, `${actor} PUT ${key}`).toBe(writeStatus(actor, key, 200));
        const del = await c.delete(`/api/groups/${w.tree[key].id}`);
        expect(del.statusCode, `${actor} DELETE ${key}`).toBe(writeStatus(actor, key, 409));
      }
    }
  });
});

describe('visibility matrix: memberships', () => {
  it('the memberships list shows only memberships of visible groups, whatever the filter', async () => {
    const w = await world();
    for (const actor of ACTORS) {
      const c = w.client(actor);
      const list = (await c.get('/api/groups/membership?limit=100')).json();
      const groupsSeen = new Set<GroupKey>(list.data.map((m: { groupId: number }) => w.keyOf(m.groupId)));
      expect(sorted([...groupsSeen]), actor).toEqual(sorted(VISIBLE[actor]));
      for (const key of ALL) {
        const filtered = (await c.get(`/api/groups/membership?groupId=${w.tree[key].id}`)).json();
        expect(filtered.total > 0, `${actor} memberships of ${key}`).toBe(VISIBLE[actor].includes(key));
      }
    }
  });

  it('create, update and delete memberships follow the led subtrees', async () => {
    const w = await world();
    for (const actor of ACTORS) {
      const c = w.client(actor);
      const contactId = await newContact(ctx, w.tenant, actor, 'Matrix');
      for (const key of ALL) {
        const created = await c.post('/api/groups/membership', { groupId: w.tree[key].id, contactId });
        expect(created.statusCode, `${actor} POST membership ${key}`).toBe(writeStatus(actor, key, 201));
        const put = await c.put(`/api/groups/membership/${w.fillerMemberships[key]}`, { role: 'Member' });
        expect(put.statusCode, `${actor} PUT membership ${key}`).toBe(writeStatus(actor, key, 200));
        if (created.statusCode === 201) expect((await c.delete(`/api/groups/membership/${created.json().id}`)).statusCode).toBe(204);
        else expect((await c.delete(`/api/groups/membership/${w.fillerMemberships[key]}`)).statusCode, `${actor} DELETE membership ${key}`).toBe(writeStatus(actor, key, 204));
      }
    }
  });
});

describe('visibility matrix: membership requests', () => {
  it('own requests are possible for visible groups only; active members get 409', async () => {
    const w = await world();
    const memberOf: Record<Actor, GroupKey[]> = { admin: [], zoneLeader: ['zoneA'], fellowshipLeader: ['fellowshipA2'], member: ['fellowshipB1'], loner: [] };
    for (const actor of ACTORS) {
      const c = w.client(actor);
      for (const key of ALL) {
        const res = await c.post('/api/groups/membership-request', { groupId: w.tree[key].id });
        const expected = !VISIBLE[actor].includes(key) ? 404 : memberOf[actor].includes(key) ? 409 : 201;
        expect(res.statusCode, `${actor} request ${key}`).toBe(expected);
      }
    }
  });

  it('the pending list shows the requests of managed groups; approve and reject follow the led subtrees', async () => {
    const w = await world();
    const admin = w.client('admin');
    const requestIds = {} as Record<GroupKey, number>;
    for (const key of ALL) {
      const contactId = await newContact(ctx, w.tenant, key, 'Applicant');
      requestIds[key] = (await admin.post('/api/groups/membership-request', { groupId: w.tree[key].id, contactId })).json().id;
    }
    for (const actor of ACTORS) {
      const pending = (await w.client(actor).get('/api/groups/membership-request?limit=100')).json();
      expect(sorted(pending.data.map((r: { groupId: number }) => w.keyOf(r.groupId))), actor).toEqual(sorted(CAN_WRITE.includes(actor) ? MANAGED[actor] : []));
    }
    for (const actor of ['loner', 'member', 'fellowshipLeader', 'zoneLeader'] as Actor[]) {
      const c = w.client(actor);
      for (const key of ALL) {
        const expected = writeStatus(actor, key, 200);
        // A request handled by an earlier actor is 409 for the next one that may manage it.
        const res = await c.put(`/api/groups/membership-request/${requestIds[key]}/${actor === 'zoneLeader' ? 'approve' : 'reject'}`);
        if (expected === 200) expect([200, 409], `${actor} handles ${key}`).toContain(res.statusCode);
        else expect(res.statusCode, `${actor} handles ${key}`).toBe(expected);
      }
    }
  });

  it('requesting for another contact needs groups:write and a led group', async () => {
    const w = await world();
    const cat = await categoryId(ctx, w.tenant, 'Zone');
    expect(cat).toBeGreaterThan(0);
    const other = await newContact(ctx, w.tenant, 'Someone', 'Else');
    expect((await w.client('loner').post('/api/groups/membership-request', { groupId: w.tree.church.id, contactId: other })).statusCode).toBe(403);
    expect((await w.client('member').post('/api/groups/membership-request', { groupId: w.tree.church.id, contactId: other })).statusCode).toBe(403);
    expect((await w.client('fellowshipLeader').post('/api/groups/membership-request', { groupId: w.tree.church.id, contactId: other })).statusCode).toBe(403);
    expect((await w.client('fellowshipLeader').post('/api/groups/membership-request', { groupId: w.tree.fellowshipA2.id, contactId: other })).statusCode).toBe(201);
    expect((await w.client('zoneLeader').post('/api/groups/membership-request', { groupId: w.tree.fellowshipA1.id, contactId: other })).statusCode).toBe(201);
    expect((await w.client('zoneLeader').post('/api/groups/membership-request', { groupId: w.tree.fellowshipB1.id, contactId: other })).statusCode).toBe(404);
  });
});
