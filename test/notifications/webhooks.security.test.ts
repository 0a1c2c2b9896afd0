import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { newTenant, newUser, type TestTenant, type TestUser } from '../helpers/factories.js';
import { newFund, newGift } from '../helpers/finance.factories.js';
import { makeJobsDue, startWebhookReceiver, type WebhookReceiver } from '../helpers/notifications.factories.js';
import { newTask } from '../helpers/tasks.factories.js';
import { roleId } from '../helpers/users.factories.js';

const ctx = setupTestApp();
const W = '/api/notifications/webhooks';

/**
 * Issue 29: a webhook delivers only what its owner (who created or last changed it) could read
 * through the API at the moment of sending — by a real receiver on loopback, one per owner.
 */
describe('webhooks carry only what their owner may read', () => {
  let t: TestTenant;
  let admin: ReturnType<typeof api>;
  let fundId: number;
  let contactId: number;
  const receivers: WebhookReceiver[] = [];

  async function receiver() {
    const r = await startWebhookReceiver();
    receivers.push(r);
    return r;
  }

  /** A user holding `permissions` (and webhooks:write) with a webhook on a receiver of its own. */
  async function owner(permissions: string[], events: string[]) {
    const user = await newUser(ctx, t, ['webhooks:write', ...permissions] as never);
    const r = await receiver();
    const res = await api(ctx.app, user.token).post(W, { url: r.url, events });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().ownerUserId).toBe(user.id);
    return { user, r, hook: res.json() as { id: number } };
  }

  const types = (r: WebhookReceiver) => r.received.map((x) => x.json.type);
  const drain = () => ctx.app.worker.drain();
  const deliveries = async (hookId: number) => (await admin.get(`${W}/${hookId}/deliveries?limit=100`)).json().data as { id: number; changeId: number; type: string; status: string; lastError: string | null }[];
  const setPermissions = async (user: TestUser, permissions: string[]) => {
    const res = await admin.put(`/api/roles/${await roleId(ctx, t, `role-${user.username}`)}`, { permissions });
    expect(res.statusCode, res.body).toBe(200);
  };

  beforeAll(async () => {
    t = await newTenant(ctx);
    admin = api(ctx.app, t.admin.token);
    fundId = (await newFund(ctx, t.admin.token, { name: 'Building' })).id;
    contactId = (await admin.post('/api/crm/contacts', { category: 'Person', person: { firstName: 'Hook', lastName: 'Person' } })).json().id;
    await drain();
  });
  afterAll(() => Promise.all(receivers.map((r) => r.close())));

  it('refuses (403) a subscription beyond the caller\'s permissions: "*" needs audit:read, each type its module\'s read permission', async () => {
    const bare = await newUser(ctx, t, ['webhooks:write']);
    const r = await receiver();
    const as = api(ctx.app, bare.token);
    expect(expectError(await as.post(W, { url: r.url, events: ['*'] }), 403)).toMatch(/audit:read/);
    expect(expectError(await as.post(W, { url: r.url, events: ['contribution.created'] }), 403)).toMatch(/finance:read/);
    expect(expectError(await as.post(W, { url: r.url, events: ['task.created'] }), 403)).toMatch(/tasks:read/);
    expect(expectError(await as.post(W, { url: r.url, events: ['user.created'] }), 403)).toMatch(/users:read/);
    expect(expectError(await as.post(W, { url: r.url, events: ['request.created'] }), 403)).toMatch(/contacts:read/);
    // Nor by editing someone else's wider webhook (the editor becomes its owner): 403, nothing changed.
    const wide = (await admin.post(W, { url: r.url, events: ['*'] })).json();
    expectError(await as.put(`${W}/${wide.id}`, { url: `${r.url}/mine` }), 403);
    expect((await admin.get(`${W}/${wide.id}`)).json()).toMatchObject({ url: r.url, ownerUserId: t.admin.id });
    await admin.delete(`${W}/${wide.id}`);
    // What it may read, it may subscribe to.
    expect((await as.post(W, { url: r.url, events: ['webhook.updated'] })).statusCode).toBe(201);
  });

  it('finance:read: giving with amounts; after the owner loses finance:read, nothing more — queued and retried deliveries are withheld', async () => {
    const { user, r, hook } = await owner(['finance:read'], ['contribution.created']);
    await newGift(ctx, t.admin.token, { fundId, amount: 12550, contactId });
    await drain();
    expect(types(r)).toEqual(['contribution.created']);
    expect(r.received[0].json.data).toMatchObject({ amount: 12550 });

    // A delivery waiting for its retry when the owner is demoted is never sent.
    r.respond(500);
    await newGift(ctx, t.admin.token, { fundId, amount: 777, contactId });
    await drain();
    expect(r.received).toHaveLength(2);
    await setPermissions(user, ['webhooks:write']);
    r.respond(200);
    await makeJobsDue(ctx, 'webhooks.deliver');
    await drain();
    expect(r.received).toHaveLength(2);
    const [retried] = await deliveries(hook.id);
    expect(retried).toMatchObject({ type: 'contribution.created', status: 'Failed', lastError: expect.stringMatching(/^Withheld/) });

    // New gifts: no delivery at all (not even a row naming the type).
    await newGift(ctx, t.admin.token, { fundId, amount: 999, contactId });
    await drain();
    expect(r.received).toHaveLength(2);
    expect(await deliveries(hook.id)).toHaveLength(2);
    // A redelivery is checked when sent, too.
    expect((await admin.post(`${W}/deliveries/${retried.id}/redeliver`)).statusCode).toBe(202);
    await drain();
    expect(r.received).toHaveLength(2);

    // Given back: delivered again.
    await setPermissions(user, ['webhooks:write', 'finance:read']);
    await newGift(ctx, t.admin.token, { fundId, amount: 4321, contactId });
    await drain();
    expect(r.received.map((x) => x.json.data.amount)).toEqual([12550, 777, 4321]);
  });

  it('care:read: confidential tasks and Counseling/Welfare requests only with it', async () => {
    const plain = await owner(['tasks:read', 'contacts:read', 'hierarchy:all'], ['task.created', 'request.created']);
    const care = await owner(['tasks:read', 'contacts:read', 'hierarchy:all', 'care:read'], ['task.created', 'request.created']);
    await newTask(ctx, t.admin, { title: 'Open the hall' });
    await newTask(ctx, t.admin, { title: 'Visit about the divorce', confidential: true });
    await admin.post('/api/crm/requests', { contactId, type: 'Counseling', description: 'Marriage' });
    await admin.post('/api/crm/requests', { contactId, type: 'Welfare', description: 'Rent' });
    await admin.post('/api/crm/requests', { contactId, type: 'Prayer', description: 'Exams' });
    await drain();
    const seen = (r: WebhookReceiver) => r.received.map((x) => `${x.json.type}:${x.json.data.title ?? x.json.data.type}`);
    // (The Prayer request's automation opens a task of its own.)
    const open = ['request.created:Prayer', 'task.created:Open the hall', 'task.created:Pray with Hook Person'];
    expect(seen(plain.r).sort()).toEqual(open);
    expect(seen(care.r)).toEqual(expect.arrayContaining([...open, 'task.created:Visit about the divorce', 'request.created:Counseling', 'request.created:Welfare']));
    expect(plain.r.received.map((x) => x.raw).join('')).not.toMatch(/divorce|Counseling|Welfare/);
  });

  it('users:read for user changes (no new user\'s email without it); "*" with audit:read carries only what the owner may read, and no amounts', async () => {
    const usersOwner = await owner(['users:read'], ['user.created']);
    const all = await owner(['audit:read', 'contacts:read'], ['*']);
    const created = await admin.post('/api/users', { username: 'new-volunteer', email: 'volunteer@example.org', password: 'a long enough password 1', firstName: 'New', lastName: 'Volunteer' });
    expect(created.statusCode, created.body).toBe(201);
    await newGift(ctx, t.admin.token, { fundId, amount: 98765, contactId });
    await newTask(ctx, t.admin, { title: 'Secret plan', confidential: true });
    await admin.post('/api/crm/requests', { contactId, type: 'Counseling', description: 'Grief' });
    await admin.put(`/api/crm/contacts/${contactId}`, { status: 'Inactive' });
    await drain();
    expect(types(usersOwner.r)).toContain('user.created');
    expect(usersOwner.r.received.map((x) => x.raw).join('')).toContain('volunteer@example.org');
    const wide = types(all.r);
    expect(wide).toEqual(expect.arrayContaining(['contact.status_changed', 'contact.updated']));
    for (const hidden of ['user.created', 'contribution.created', 'task.created']) expect(wide).not.toContain(hidden);
    expect(all.r.received.filter((x) => x.json.type === 'request.created')).toEqual([]);
    const raw = all.r.received.map((x) => x.raw).join('');
    expect(raw).not.toMatch(/volunteer@example\.org|Secret plan|Grief|98765/);
  });

  it('a disabled owner receives nothing: neither new changes nor what was already queued', async () => {
    const { user, r, hook } = await owner(['contacts:read'], ['contact.updated']);
    await admin.put(`/api/crm/contacts/${contactId}`, { status: 'Active' });
    await drain();
    expect(types(r)).toEqual(['contact.updated']);
    r.respond(503);
    await admin.put(`/api/crm/contacts/${contactId}`, { status: 'Inactive' });
    await drain();
    expect(r.received).toHaveLength(2);
    expect((await admin.put(`/api/users/${user.id}`, { status: 'Disabled' })).statusCode).toBe(200);
    r.respond(200);
    await makeJobsDue(ctx, 'webhooks.deliver');
    await admin.put(`/api/crm/contacts/${contactId}`, { status: 'Active' });
    await drain();
    expect(r.received).toHaveLength(2);
    const list = await deliveries(hook.id);
    expect(list.map((d) => d.status)).toEqual(['Failed', 'Succeeded']);
    expect(list[0].lastError).toMatch(/^Withheld/);
    // A test delivery is withheld as well.
    expect((await admin.post(`${W}/${hook.id}/test`)).statusCode).toBe(202);
    await drain();
    expect(r.received).toHaveLength(2);
  });
});
