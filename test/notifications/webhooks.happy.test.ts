import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordChanges } from '../../src/changes/recorder.js';
import { CHANGE_TYPES, type ChangeType } from '../../src/changes/types.js';
import { withTenant } from '../../src/db/client.js';
import { api, setupTestApp } from '../helpers/app.js';
import { newTenant, type TestTenant } from '../helpers/factories.js';
import { makeJobsDue, queryRows, startWebhookReceiver, verifySignature, type WebhookReceiver } from '../helpers/notifications.factories.js';

const ctx = setupTestApp();
const W = '/api/notifications/webhooks';

async function change(t: TestTenant, type: ChangeType, entityId: number, data: Record<string, unknown> = {}) {
  const [id] = await withTenant(ctx.db, t.id, (tx) => recordChanges(tx, { tenantId: t.id, userId: t.admin.id }, [{ type, entityId, data }]));
  return id;
}

describe('webhooks: happy paths', () => {
  let t: TestTenant;
  let receiver: WebhookReceiver;
  let a: ReturnType<typeof api>;
  beforeAll(async () => {
    t = await newTenant(ctx);
    receiver = await startWebhookReceiver();
    a = api(ctx.app, t.admin.token);
  });
  afterAll(() => receiver.close());

  it('lists every change type of the catalog as an event', async () => {
    const res = await a.get(`${W}/events`);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.total).toBe(CHANGE_TYPES.length);
    expect(body.data.map((e: { type: string }) => e.type)).toEqual([...CHANGE_TYPES]);
    expect(body.data.find((e: { type: string }) => e.type === 'webhook.test').description).toEqual(expect.any(String));
  });

  it('creates a webhook (secret shown once, stored encrypted), delivers a signed change, and records the delivery', async () => {
    const created = await a.post(W, { url: receiver.url, events: ['contact.created', 'contact.created'], description: 'CRM sync' });
    expect(created.statusCode, created.body).toBe(201);
    const hook = created.json();
    expect(hook).toEqual({
      id: expect.any(Number), url: receiver.url, events: ['contact.created'], description: 'CRM sync', isActive: true, ownerUserId: t.admin.id,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{43}$/), createdAt: expect.any(String), updatedAt: expect.any(String),
    });
    const read = (await a.get(`${W}/${hook.id}`)).json();
    expect(read).not.toHaveProperty('secret');
    expect((await a.get(W)).json()).toMatchObject({ total: 1, data: [{ id: hook.id }] });
    const [stored] = await queryRows<{ secret_encrypted: string }>(ctx, sql`select secret_encrypted from webhooks where id = ${hook.id}`);
    expect(stored.secret_encrypted).toMatch(/^v1:/);
    expect(stored.secret_encrypted).not.toContain(hook.secret.slice(6));

    const changeId = await change(t, 'contact.created', 42, { contactId: 42, name: 'Ada' });
    await change(t, 'group.created', 7, { groupId: 7 }); // not subscribed
    await ctx.app.worker.drain();

    expect(receiver.received).toHaveLength(1);
    const got = receiver.received[0];
    expect(verifySignature(got.headers['parish-signature'], got.raw, hook.secret)).toBe(true);
    expect(verifySignature(got.headers['parish-signature'], got.raw, 'whsec_wrong')).toBe(false);
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.json).toEqual({
      id: changeId, type: 'contact.created', occurredAt: expect.stringMatching(/Z$/), tenant: t.slug,
      entity: { type: 'contact', id: 42 }, data: { contactId: 42, name: 'Ada' },
    });

    const deliveries = (await a.get(`${W}/${hook.id}/deliveries`)).json();
    expect(deliveries.total).toBe(1);
    expect(deliveries.data[0]).toEqual({
      id: Number(got.headers['parish-delivery']), webhookId: hook.id, changeId, type: 'contact.created', status: 'Succeeded', attempts: 1,
      lastStatusCode: 200, lastError: null, nextAttemptAt: null, deliveredAt: expect.any(String), redeliveryOf: null, createdAt: expect.any(String),
    });
    expect((await a.get(`${W}/${hook.id}/deliveries?status=Failed`)).json().total).toBe(0);
    await a.delete(`${W}/${hook.id}`);
  });

  it('retries after a 500 with the backoff, then succeeds; redeliver sends the same change again', async () => {
    await ctx.app.worker.drain(); // the earlier tests' webhook changes (a hook deleted) go out before this '*' hook exists
    receiver.received.length = 0;
    const hook = (await a.post(W, { url: receiver.url, events: ['*'] })).json();
    // Subscribed to everything, it is told of its own creation (webhook.created: ids, url and events, no secret).
    await ctx.app.worker.drain();
    expect(receiver.received.map((r) => [r.json.type, r.json.entity])).toEqual([['webhook.created', { type: 'webhook', id: hook.id }]]);
    expect(receiver.received[0].raw).not.toContain(hook.secret.slice(6));
    const createdDelivery = Number(receiver.received[0].headers['parish-delivery']);
    receiver.received.length = 0;
    receiver.respond(500);
    const changeId = await change(t, 'task.completed', 9);
    await ctx.app.worker.drain();
    expect(receiver.received).toHaveLength(1);
    let [delivery] = (await a.get(`${W}/${hook.id}/deliveries`)).json().data;
    expect(delivery).toMatchObject({ status: 'Pending', attempts: 1, lastStatusCode: 500, lastError: 'HTTP 500', deliveredAt: null });
    // About a minute later, on the delivery and on its job.
    const wait = Date.parse(delivery.nextAttemptAt) - Date.now();
    expect(wait).toBeGreaterThan(50_000);
    expect(wait).toBeLessThan(70_000);
    const [job] = await queryRows<{ run_at: string }>(ctx, sql`select run_at from jobs where kind = 'webhooks.deliver' and payload->>'deliveryId' = ${String(delivery.id)}`);
    expect(new Date(job.run_at).getTime() - Date.now()).toBeGreaterThan(50_000);

    await ctx.app.worker.drain(); // nothing due yet
    expect(receiver.received).toHaveLength(1);

    receiver.respond(204);
    expect(await makeJobsDue(ctx, 'webhooks.deliver', 'deliveryId', delivery.id)).toBe(1);
    await ctx.app.worker.drain();
    expect(receiver.received).toHaveLength(2);
    expect(receiver.received[1].json.id).toBe(changeId);
    expect(receiver.received[1].headers['parish-delivery']).toBe(String(delivery.id));
    [delivery] = (await a.get(`${W}/${hook.id}/deliveries`)).json().data;
    expect(delivery).toMatchObject({ status: 'Succeeded', attempts: 2, lastStatusCode: 204, lastError: null, nextAttemptAt: null });

    const again = await a.post(`${W}/deliveries/${delivery.id}/redeliver`);
    expect(again.statusCode).toBe(202);
    expect(again.json()).toMatchObject({ webhookId: hook.id, changeId, status: 'Pending', attempts: 0, redeliveryOf: delivery.id });
    await ctx.app.worker.drain();
    // The redelivery, and (the hook subscribes to '*') the webhook.redelivered change it recorded.
    expect(receiver.received).toHaveLength(4);
    const redelivered = receiver.received.slice(2).find((r) => r.json.id === changeId)!;
    expect(redelivered.headers['parish-delivery']).toBe(String(again.json().id));
    expect(verifySignature(redelivered.headers['parish-signature'], redelivered.raw, hook.secret)).toBe(true);
    const told = receiver.received.slice(2).find((r) => r.json.type === 'webhook.redelivered')!;
    expect(told.json.data).toMatchObject({ webhookId: hook.id, deliveryId: again.json().id, redeliveryOf: delivery.id, changeId });
    const list = (await a.get(`${W}/${hook.id}/deliveries`)).json();
    expect(list.data.map((d: { id: number }) => d.id)).toEqual([Number(told.headers['parish-delivery']), again.json().id, delivery.id, createdDelivery]);
    await a.delete(`${W}/${hook.id}`);
  });

  it('gives up after the last retry (about 1 min, 5 min, 30 min, 2 h, 12 h) and marks the delivery Failed', async () => {
    receiver.received.length = 0;
    receiver.respond(503);
    const hook = (await a.post(W, { url: receiver.url, events: ['task.updated'] })).json();
    await change(t, 'task.updated', 3);
    const waits: number[] = [];
    await ctx.app.worker.drain();
    for (let i = 0; i < 5; i++) {
      const [d] = (await a.get(`${W}/${hook.id}/deliveries`)).json().data;
      waits.push(Math.round((Date.parse(d.nextAttemptAt) - Date.now()) / 60_000));
      await makeJobsDue(ctx, 'webhooks.deliver', 'deliveryId', d.id);
      await ctx.app.worker.drain();
    }
    expect(waits).toEqual([1, 5, 30, 120, 720]);
    expect(receiver.received).toHaveLength(6);
    const [d] = (await a.get(`${W}/${hook.id}/deliveries?status=Failed`)).json().data;
    expect(d).toMatchObject({ status: 'Failed', attempts: 6, lastStatusCode: 503, nextAttemptAt: null });
    expect(await makeJobsDue(ctx, 'webhooks.deliver', 'deliveryId', d.id)).toBe(0);
    receiver.respond(200);
    await a.delete(`${W}/${hook.id}`);
  });

  it('a receiver answering 410 Gone deactivates the webhook: no further deliveries', async () => {
    receiver.received.length = 0;
    receiver.respond(410);
    const hook = (await a.post(W, { url: receiver.url, events: ['task.created'] })).json();
    await change(t, 'task.created', 1);
    await ctx.app.worker.drain();
    expect((await a.get(`${W}/${hook.id}`)).json().isActive).toBe(false);
    expect((await a.get(`${W}/${hook.id}/deliveries`)).json().data[0]).toMatchObject({ status: 'Failed', lastStatusCode: 410, nextAttemptAt: null });
    receiver.respond(200);
    await change(t, 'task.created', 2);
    await ctx.app.worker.drain();
    expect(receiver.received).toHaveLength(1);
    await a.delete(`${W}/${hook.id}`);
  });

  it('test: 202 with the delivery of a recorded webhook.test change, delivered to this webhook only', async () => {
    await ctx.app.worker.drain(); // the earlier tests' webhook changes go out before the '*' hook below exists
    receiver.received.length = 0;
    const hook = (await a.post(W, { url: receiver.url, events: ['contact.updated'], isActive: false })).json();
    const other = (await a.post(W, { url: receiver.url, events: ['*'] })).json();
    const res = await a.post(`${W}/${hook.id}/test`);
    expect(res.statusCode).toBe(202);
    const otherBefore = (await a.get(`${W}/${other.id}/deliveries`)).json().total;
    const delivery = res.json();
    expect(delivery).toMatchObject({ webhookId: hook.id, type: 'webhook.test', status: 'Pending', attempts: 0 });
    const [recorded] = await queryRows<{ type: string; actor_user_id: string; entity_id: string; data: Record<string, unknown> }>(ctx,
      sql`select type, actor_user_id, entity_id, data from changes where id = ${delivery.changeId} and tenant_id = ${t.id}`);
    expect(recorded).toMatchObject({ type: 'webhook.test', data: { webhookId: hook.id } });
    expect(Number(recorded.actor_user_id)).toBe(t.admin.id);
    await ctx.app.worker.drain();
    // `other` subscribes to '*': it gets the two webhook.created changes, never the webhook.test.
    const tests = receiver.received.filter((r) => r.json.type === 'webhook.test');
    expect(tests).toHaveLength(1);
    expect(tests[0].json).toMatchObject({ id: delivery.changeId, type: 'webhook.test', tenant: t.slug, data: { webhookId: hook.id } });
    expect(tests[0].headers['parish-delivery']).toBe(String(delivery.id));
    expect(verifySignature(tests[0].headers['parish-signature'], tests[0].raw, hook.secret)).toBe(true);
    expect(otherBefore).toBe(0);
    const toOther = (await a.get(`${W}/${other.id}/deliveries`)).json().data;
    expect(toOther.map((d: { type: string }) => d.type)).toEqual(['webhook.created', 'webhook.created']);
    expect(receiver.received).toHaveLength(3);
    await a.delete(`${W}/${hook.id}`);
    await a.delete(`${W}/${other.id}`);
  });

  it('rotate-secret: new deliveries are signed with the new secret only', async () => {
    receiver.received.length = 0;
    const hook = (await a.post(W, { url: receiver.url, events: ['role.created'] })).json();
    const rotated = await a.post(`${W}/${hook.id}/rotate-secret`);
    expect(rotated.statusCode).toBe(200);
    const { secret } = rotated.json();
    expect(secret).toMatch(/^whsec_/);
    expect(secret).not.toBe(hook.secret);
    await change(t, 'role.created', 5);
    await ctx.app.worker.drain();
    const [got] = receiver.received;
    expect(verifySignature(got.headers['parish-signature'], got.raw, secret)).toBe(true);
    expect(verifySignature(got.headers['parish-signature'], got.raw, hook.secret)).toBe(false);
    await a.delete(`${W}/${hook.id}`);
  });

  it('PUT changes url, events, description and isActive; an inactive webhook gets nothing; DELETE removes it and its deliveries', async () => {
    receiver.received.length = 0;
    const hook = (await a.post(W, { url: receiver.url, events: ['user.created'] })).json();
    const put = await a.put(`${W}/${hook.id}`, { events: ['user.updated', 'user.disabled'], description: 'users', isActive: false, url: `${receiver.url}?v=2` });
    expect(put.statusCode).toBe(200);
    expect(put.json()).toMatchObject({ id: hook.id, events: ['user.updated', 'user.disabled'], description: 'users', isActive: false, url: `${receiver.url}?v=2` });
    await change(t, 'user.updated', 1);
    await ctx.app.worker.drain();
    expect(receiver.received).toHaveLength(0);
    await a.put(`${W}/${hook.id}`, { isActive: true });
    await change(t, 'user.disabled', 1);
    await ctx.app.worker.drain();
    expect(receiver.received).toHaveLength(1);
    const del = await a.delete(`${W}/${hook.id}`);
    expect(del.statusCode).toBe(204);
    expect((await a.get(`${W}/${hook.id}`)).statusCode).toBe(404);
    const [{ n }] = await queryRows<{ n: string }>(ctx, sql`select count(*) as n from webhook_deliveries where webhook_id = ${hook.id} and tenant_id = ${t.id}`);
    expect(Number(n)).toBe(0);
  });
});
