import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordChanges } from '../../src/changes/recorder.js';
import { withTenant } from '../../src/db/client.js';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { newTenant, newUser, type TestTenant } from '../helpers/factories.js';
import { addMembership, newActors, newContact, newTree } from '../helpers/groups.factories.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/notifications.factories.js';

const ctx = setupTestApp();
const N = '/api/notifications';
const W = `${N}/webhooks`;
const M = `${N}/messages`;
const T = `${N}/templates`;

const withEmail = async (t: TestTenant, email: string) => {
  const id = await newContact(ctx, t, 'Mail', email);
  await ctx.db.execute(sql`insert into contact_emails (tenant_id, contact_id, value, is_primary) values (${t.id}, ${id}, ${email}, true)`);
  return id;
};

describe('notifications: authentication and permissions', () => {
  let t: TestTenant;
  beforeAll(async () => {
    t = await newTenant(ctx);
  });

  const routes: [string, string][] = [
    ['GET', N], ['GET', `${N}/unread-count`], ['PUT', `${N}/1/read`], ['PUT', `${N}/read-all`], ['GET', `${N}/preferences`], ['PUT', `${N}/preferences`],
    ['POST', M], ['GET', M], ['GET', `${M}/1`], ['GET', `${M}/1/deliveries`],
    ['GET', T], ['POST', T], ['GET', `${T}/1`], ['PUT', `${T}/1`], ['DELETE', `${T}/1`],
    ['GET', `${W}/events`], ['GET', W], ['POST', W], ['GET', `${W}/1`], ['PUT', `${W}/1`], ['DELETE', `${W}/1`],
    ['POST', `${W}/1/rotate-secret`], ['POST', `${W}/1/test`], ['GET', `${W}/1/deliveries`], ['POST', `${W}/deliveries/1/redeliver`],
  ];

  it('every route answers 401 without a token', async () => {
    for (const [method, url] of routes) {
      const res = await ctx.app.inject({ method: method as 'GET', url, payload: method === 'GET' || method === 'DELETE' ? undefined : {} });
      expect(res.statusCode, `${method} ${url}`).toBe(401);
    }
  });

  it('messages and templates need notifications:send; webhooks need webhooks:write; the inbox needs only a token', async () => {
    const member = await newUser(ctx, t, 'Member');
    const sender = await newUser(ctx, t, ['notifications:send', 'contacts:read']); // the recipient list also needs contacts:read
    const hooker = await newUser(ctx, t, ['webhooks:write']);
    for (const [method, url] of routes) {
      const payload = method === 'GET' || method === 'DELETE' ? undefined : {};
      const as = async (token: string) => (await ctx.app.inject({ method: method as 'GET', url, payload, headers: { authorization: `Bearer ${token}` } })).statusCode;
      const needs = url.startsWith(W) ? 'webhooks' : url.startsWith(M) || url.startsWith(T) ? 'send' : 'none';
      const [m, s, h] = [await as(member.token), await as(sender.token), await as(hooker.token)];
      if (needs === 'none') expect([m, s, h], `${method} ${url}`).not.toContain(403);
      if (needs === 'send') expect([m, s, h], `${method} ${url}`).toEqual([403, expect.not.toBeOneOf([401, 403]), 403]);
      if (needs === 'webhooks') expect([m, s, h], `${method} ${url}`).toEqual([403, 403, expect.not.toBeOneOf([401, 403])]);
    }
  });
});

describe('notifications: tenant isolation', () => {
  let a: TestTenant;
  let b: TestTenant;
  let receiverA: WebhookReceiver;
  let receiverB: WebhookReceiver;
  const ids: Record<string, number> = {};
  beforeAll(async () => {
    a = await newTenant(ctx);
    b = await newTenant(ctx);
    receiverA = await startWebhookReceiver();
    receiverB = await startWebhookReceiver();
    const adminA = api(ctx.app, a.admin.token);
    ids.webhook = (await adminA.post(W, { url: receiverA.url, events: ['*'] })).json().id;
    await api(ctx.app, b.admin.token).post(W, { url: receiverB.url, events: ['*'] });
    ids.delivery = (await adminA.post(`${W}/${ids.webhook}/test`)).json().id;
    ids.template = (await adminA.post(T, { name: 'A', subject: 'S', body: 'B' })).json().id;
    ids.contact = await withEmail(a, 'a-member@example.org');
    ids.message = (await adminA.post(M, { audience: { contactIds: [ids.contact] }, subject: 'S', body: 'B' })).json().id;
    const userA = await newUser(ctx, a, 'Member');
    await withTenant(ctx.db, a.id, (tx) => recordChanges(tx, { tenantId: a.id, userId: a.admin.id }, [{ type: 'task.assigned', entityId: 1, data: { assigneeUserId: userA.id } }]));
    await ctx.app.worker.drain();
    ids.notification = (await api(ctx.app, userA.token).get(N)).json().data[0].id;
  });
  afterAll(async () => {
    await receiverA.close();
    await receiverB.close();
  });

  it("another tenant's notification, message, template, webhook and delivery ids are 404", async () => {
    const other = api(ctx.app, b.admin.token);
    const checks = [
      other.put(`${N}/${ids.notification}/read`),
      other.get(`${M}/${ids.message}`), other.get(`${M}/${ids.message}/deliveries`),
      other.get(`${T}/${ids.template}`), other.put(`${T}/${ids.template}`, { name: 'x' }), other.delete(`${T}/${ids.template}`),
      other.get(`${W}/${ids.webhook}`), other.put(`${W}/${ids.webhook}`, { isActive: false }), other.delete(`${W}/${ids.webhook}`),
      other.post(`${W}/${ids.webhook}/rotate-secret`), other.post(`${W}/${ids.webhook}/test`), other.get(`${W}/${ids.webhook}/deliveries`),
      other.post(`${W}/deliveries/${ids.delivery}/redeliver`),
      other.post(M, { audience: { contactIds: [ids.contact] }, subject: 'S', body: 'B' }),
    ];
    for (const res of await Promise.all(checks)) expectError(res, 404);
    expect((await other.get(M)).json().total).toBe(0);
    expect((await other.get(T)).json().total).toBe(0);
    expect((await other.get(W)).json().total).toBe(1);
    expect((await other.get(N)).json().total).toBe(0);
    // Nothing of A changed.
    expect((await api(ctx.app, a.admin.token).get(`${W}/${ids.webhook}`)).json().isActive).toBe(true);
    expect((await api(ctx.app, a.admin.token).get(`${T}/${ids.template}`)).statusCode).toBe(200);
  });

  it("a tenant's webhook never receives another tenant's changes", async () => {
    receiverA.received.length = 0;
    receiverB.received.length = 0;
    await withTenant(ctx.db, a.id, (tx) => recordChanges(tx, { tenantId: a.id, userId: a.admin.id }, [{ type: 'contact.created', entityId: 1, data: { contactId: 1 } }]));
    await withTenant(ctx.db, b.id, (tx) => recordChanges(tx, { tenantId: b.id, userId: b.admin.id }, [{ type: 'group.created', entityId: 2, data: { groupId: 2 } }]));
    await ctx.app.worker.drain();
    expect(receiverA.received.map((r) => [r.json.type, r.json.tenant])).toEqual([['contact.created', a.slug]]);
    expect(receiverB.received.map((r) => [r.json.type, r.json.tenant])).toEqual([['group.created', b.slug]]);
  });
});

describe('messages: a group audience follows the sender’s visibility', () => {
  let t: TestTenant;
  let tree: Awaited<ReturnType<typeof newTree>>;
  let actors: Awaited<ReturnType<typeof newActors>>;
  beforeAll(async () => {
    t = await newTenant(ctx);
    tree = await newTree(ctx, t);
    actors = await newActors(ctx, t, tree);
    await ctx.db.execute(sql`update roles set permissions = permissions || '{notifications:send}'::text[] where tenant_id = ${t.id} and name in ('Leader', 'Member')`);
    await addMembership(ctx, t, tree.fellowshipA1, await withEmail(t, 'public@example.org'));
    await addMembership(ctx, t, tree.fellowshipA2, await withEmail(t, 'private-a@example.org'));
    await addMembership(ctx, t, tree.fellowshipB1, await withEmail(t, 'private-b@example.org'));
  });

  const send = (token: string, groupId: number) => api(ctx.app, token).post(M, { audience: { groupIds: [groupId] }, subject: 'S', body: 'B' });

  it('invisible groups are 404 for each actor of the matrix', async () => {
    const matrix: [keyof typeof actors, keyof typeof tree, number][] = [
      ['admin', 'zoneB', 202], ['admin', 'fellowshipA2', 202],
      ['zoneLeader', 'zoneB', 404], ['zoneLeader', 'fellowshipA2', 202], ['zoneLeader', 'fellowshipA1', 202],
      ['fellowshipLeader', 'zoneB', 404], ['fellowshipLeader', 'fellowshipA2', 202], ['fellowshipLeader', 'fellowshipA1', 202],
      ['member', 'fellowshipB1', 202], ['member', 'clusterB', 404], ['member', 'fellowshipA2', 404],
      ['loner', 'fellowshipA2', 404], ['loner', 'church', 202],
    ];
    for (const [actor, group, status] of matrix) expect((await send(actors[actor].token, tree[group].id)).statusCode, `${actor} -> ${group}`).toBe(status);
  });

  it('a visible group’s subtree reaches only the groups under it the sender can see', async () => {
    const recipients = async (token: string) => {
      const { id } = (await send(token, tree.church.id)).json();
      const rows = (await api(ctx.app, t.admin.token).get(`${M}/${id}/deliveries?limit=100`)).json().data;
      return rows.map((d: { email: string }) => d.email).sort();
    };
    expect(await recipients(actors.admin.token)).toEqual(['private-a@example.org', 'private-b@example.org', 'public@example.org']);
    expect(await recipients(actors.zoneLeader.token)).toEqual(['private-a@example.org', 'public@example.org']);
    expect(await recipients(actors.loner.token)).toEqual(['public@example.org']);
  });
});
