import { beforeAll, describe, expect, it } from 'vitest';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { newTenant, newUser, type TestTenant, type TestUser } from '../helpers/factories.js';
import { addMembership, newLeaderOf, newMemberOf, newTree } from '../helpers/groups.factories.js';
import { countRows, newContacts, newEvent } from '../helpers/events.factories.js';

/** api-contract §4 for events: the groups visibility matrix, extended to the events they host. */
const ctx = setupTestApp();

type Tree = Awaited<ReturnType<typeof newTree>>;
const HOSTS = ['church', 'zoneA', 'clusterA', 'fellowshipA1', 'fellowshipA2', 'zoneB', 'fellowshipB1'] as const;
type Host = (typeof HOSTS)[number] | 'none';

let t: TestTenant;
let tree: Tree;
const ev = {} as Record<Host, number>;
let contactId: number;
const users = {} as Record<'fellowshipLeader' | 'zoneLeader' | 'zoneBLeader' | 'member' | 'privateMember' | 'writerMember', TestUser>;

beforeAll(async () => {
  t = await newTenant(ctx);
  tree = await newTree(ctx, t);
  for (const host of HOSTS) ev[host] = (await newEvent(ctx, t, { name: `Event ${host}`, groupId: tree[host].id })).id;
  ev.none = (await newEvent(ctx, t, { name: 'Event none' })).id;
  [contactId] = await newContacts(ctx, t, 1);
  users.fellowshipLeader = await newLeaderOf(ctx, t, tree.fellowshipA1);
  users.zoneLeader = await newLeaderOf(ctx, t, tree.zoneA, 'Assistant');
  users.zoneBLeader = await newLeaderOf(ctx, t, tree.zoneB);
  users.member = await newMemberOf(ctx, t, tree.fellowshipA1);
  users.privateMember = await newMemberOf(ctx, t, tree.fellowshipA2);
  // events:write but only a plain member of a private group: sees it, may not write to it.
  users.writerMember = await newUser(ctx, t, 'Leader');
  await addMembership(ctx, t, tree.fellowshipA2, users.writerMember.contactId, 'Member');
});

const visible: Record<keyof typeof users, Host[]> = {
  fellowshipLeader: ['church', 'zoneA', 'clusterA', 'fellowshipA1', 'none'],
  zoneLeader: ['church', 'zoneA', 'clusterA', 'fellowshipA1', 'fellowshipA2', 'none'],
  zoneBLeader: ['church', 'zoneA', 'clusterA', 'fellowshipA1', 'zoneB', 'fellowshipB1', 'none'],
  member: ['church', 'zoneA', 'clusterA', 'fellowshipA1', 'none'],
  privateMember: ['church', 'zoneA', 'clusterA', 'fellowshipA1', 'fellowshipA2', 'none'],
  writerMember: ['church', 'zoneA', 'clusterA', 'fellowshipA1', 'fellowshipA2', 'none'],
};
const writable: Record<keyof typeof users, Host[]> = {
  fellowshipLeader: ['fellowshipA1'],
  zoneLeader: ['zoneA', 'clusterA', 'fellowshipA1', 'fellowshipA2'],
  zoneBLeader: ['zoneB', 'fellowshipB1'],
  member: [],
  privateMember: [],
  writerMember: [],
};
const ALL: Host[] = [...HOSTS, 'none'];
const canWrite = (who: keyof typeof users) => who !== 'member' && who !== 'privateMember';

describe.each(Object.keys(visible) as (keyof typeof users)[])('%s', (who) => {
  it('lists exactly the events of visible groups (and those without a group)', async () => {
    const res = await api(ctx.app, users[who].token).get('/api/events?limit=100&q=Event%20');
    expect(res.statusCode).toBe(200);
    const names = res.json().data.map((e: { name: string }) => e.name).sort();
    expect(names).toEqual(visible[who].map((h) => `Event ${h}`).sort());
    expect(res.json().total).toBe(visible[who].length);
  });

  it('reads visible events and gets 404 for the rest', async () => {
    const client = api(ctx.app, users[who].token);
    for (const host of ALL) {
      const res = await client.get(`/api/events/${ev[host]}`);
      if (visible[who].includes(host)) expect(res.statusCode, host).toBe(200);
      else expect(expectError(res, 404), host).toBe(`Event with id ${ev[host]} not found`);
      const sub = await client.get(`/api/events/${ev[host]}/registration`);
      expect(sub.statusCode, host).toBe(visible[who].includes(host) ? 200 : 404);
    }
  });

  it('writes only inside led subtrees: 403 when visible, 404 when not', async () => {
    const client = api(ctx.app, users[who].token);
    for (const host of ALL) {
      // Without events:write the central permission check answers 403 before any lookup.
      const expected = writable[who].includes(host) ? [200, 201] : visible[who].includes(host) || !canWrite(who) ? [403] : [404];
      const put = await client.put(`/api/events/${ev[host]}`, { description: `by ${who}` });
      expect(expected, `${host} PUT ${put.statusCode}`).toContain(put.statusCode);
      const reg = await client.post(`/api/events/${ev[host]}/registration`, { contactIds: [contactId] });
      expect(expected, `${host} registration ${reg.statusCode}`).toContain(reg.statusCode);
      const att = await client.post(`/api/events/${ev[host]}/attendance`, { contactIds: [contactId] });
      expect(expected, `${host} attendance ${att.statusCode}`).toContain(att.statusCode);
      const act = await client.post(`/api/events/${ev[host]}/activities`, { activityType: 'Testimony', contactIds: [contactId] });
      expect(expected, `${host} activity ${act.statusCode}`).toContain(act.statusCode);
    }
  });

  it('creates events only for led groups: 403 for a visible group, 404 naming an invisible one', async () => {
    const client = api(ctx.app, users[who].token);
    for (const host of HOSTS) {
      const res = await client.post('/api/events', { name: `New by ${who}`, startDate: '2026-06-01', groupId: tree[host].id });
      if (writable[who].includes(host)) expect(res.statusCode, host).toBe(201);
      else if (visible[who].includes(host) || !canWrite(who)) expect(res.statusCode, host).toBe(403);
      else expect(expectError(res, 404), host).toBe(`Group with id ${tree[host].id} not found`);
    }
    expect((await client.post('/api/events', { name: 'No group', startDate: '2026-06-01' })).statusCode).toBe(403);
  });
});

describe('visibility: details', () => {
  it('a Fellowship leader cannot move an event into a group outside the subtree', async () => {
    const client = api(ctx.app, users.fellowshipLeader.token);
    const e = await newEvent(ctx, t, { name: 'Movable', groupId: tree.fellowshipA1.id }, users.fellowshipLeader.token);
    expectError(await client.put(`/api/events/${e.id}`, { groupId: tree.zoneA.id }), 403);
    expect(expectError(await client.put(`/api/events/${e.id}`, { groupId: tree.fellowshipB1.id }), 404)).toBe(`Group with id ${tree.fellowshipB1.id} not found`);
    expectError(await client.put(`/api/events/${e.id}`, { groupId: null }), 403);
    expect((await api(ctx.app, t.admin.token).get(`/api/events/${e.id}`)).json().group.id).toBe(tree.fellowshipA1.id);
    expect((await client.delete(`/api/events/${e.id}`)).statusCode).toBe(204);
  });

  it('a Zone leader deletes events in the zone, not above it', async () => {
    const client = api(ctx.app, users.zoneLeader.token);
    const inZone = await newEvent(ctx, t, { name: 'Zone del', groupId: tree.clusterA.id });
    expectError(await client.delete(`/api/events/${ev.church}`), 403);
    expectError(await client.delete(`/api/events/${ev.zoneB}`), 404);
    expect((await client.delete(`/api/events/${inZone.id}`)).statusCode).toBe(204);
  });

  it('list filters on an invisible group give an empty page; includeSubgroups keeps to visible groups', async () => {
    const client = api(ctx.app, users.fellowshipLeader.token);
    expect((await client.get(`/api/events?groupId=${tree.zoneB.id}&includeSubgroups=true`)).json()).toMatchObject({ data: [], total: 0 });
    expect((await client.get(`/api/events?groupId=${tree.fellowshipA2.id}`)).json()).toMatchObject({ data: [], total: 0 });
    const res = await client.get(`/api/events?groupId=${tree.zoneA.id}&includeSubgroups=true&q=Event`);
    expect(res.json().data.map((e: { name: string }) => e.name).sort()).toEqual(['Event clusterA', 'Event fellowshipA1', 'Event zoneA']);
  });

  it('denied writes leave no rows behind', async () => {
    const before = await countRows(ctx, t, 'registrations', ev.zoneA);
    expectError(await api(ctx.app, users.fellowshipLeader.token).post(`/api/events/${ev.zoneA}/registration`, { contactIds: [contactId] }), 403);
    expect(await countRows(ctx, t, 'registrations', ev.zoneA)).toBe(before);
  });
});
