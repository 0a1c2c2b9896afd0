import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { newTenant, type TestTenant } from '../helpers/factories.js';
import { newLeaderOf, newTree } from '../helpers/groups.factories.js';
import { newContact } from '../helpers/groups.factories.js';
import { letLeadersSend, queryRows, startWebhookReceiver } from '../helpers/notifications.factories.js';

const ctx = setupTestApp();
const W = '/api/notifications/webhooks';
const M = '/api/notifications/messages';
const T = '/api/notifications/templates';

const count = async (table: string, tenantId: number) =>
  Number((await queryRows<{ n: string }>(ctx, sql`select count(*) as n from ${sql.identifier(table)} where tenant_id = ${tenantId}`))[0].n);

describe('notifications: bad input', () => {
  let t: TestTenant;
  let a: ReturnType<typeof api>;
  beforeAll(async () => {
    t = await newTenant(ctx);
    a = api(ctx.app, t.admin.token);
  });

  it('webhook URLs: not a URL, not http(s), with credentials, plain http to a non-loopback host → 400, nothing stored', async () => {
    const cases: [string, RegExp][] = [
      ['not a url', /absolute URL/],
      ['ftp://127.0.0.1/x', /http or https/],
      ['javascript:alert(1)', /http or https/],
      ['https://user:pass@example.org/hook', /credentials/],
      ['http://example.org/hook', /https/],
      ['http://10.0.0.1/hook', /https/],
      ['', /url/],
    ];
    for (const [url, message] of cases) {
      expect(expectError(await a.post(W, { url, events: ['*'] }), 400), url).toMatch(message);
    }
    expect(await count('webhooks', t.id)).toBe(0);
  });

  it('webhook events: unknown types, empty lists, missing fields → 400', async () => {
    expect(expectError(await a.post(W, { url: 'http://127.0.0.1:9/x', events: ['contact.created', 'contact.exploded'] }), 400)).toMatch(/contact\.exploded/);
    expect(expectError(await a.post(W, { url: 'http://127.0.0.1:9/x', events: [] }), 400)).toMatch(/events/);
    expect(expectError(await a.post(W, { url: 'http://127.0.0.1:9/x' }), 400)).toMatch(/events/);
    expect(expectError(await a.post(W, { events: ['*'] }), 400)).toMatch(/url/);
    expect(expectError(await a.post(W, { url: 'http://127.0.0.1:9/x', events: ['*'], isActive: 'yes' }), 400)).toMatch(/isActive/);
    expect(await count('webhooks', t.id)).toBe(0);
    const hook = (await a.post(W, { url: 'http://127.0.0.1:9/x', events: ['*'] })).json();
    expect(expectError(await a.put(`${W}/${hook.id}`, { events: ['nope'] }), 400)).toMatch(/nope/);
    expect(expectError(await a.put(`${W}/${hook.id}`, { url: 'http://example.org' }), 400)).toMatch(/https/);
    expect((await a.get(`${W}/${hook.id}`)).json()).toMatchObject({ url: 'http://127.0.0.1:9/x', events: ['*'] });
    await a.delete(`${W}/${hook.id}`);
  });

  it('unknown webhook, delivery and message ids → 404; bad ids and filters → 400', async () => {
    expect(expectError(await a.get(`${W}/999999`), 404)).toBe('Webhook with id 999999 not found');
    expect(expectError(await a.put(`${W}/999999`, { isActive: false }), 404)).toMatch(/Webhook/);
    expect(expectError(await a.delete(`${W}/999999`), 404)).toMatch(/Webhook/);
    expect(expectError(await a.post(`${W}/999999/test`), 404)).toMatch(/Webhook/);
    expect(expectError(await a.post(`${W}/999999/rotate-secret`), 404)).toMatch(/Webhook/);
    expect(expectError(await a.get(`${W}/999999/deliveries`), 404)).toMatch(/Webhook/);
    expect(expectError(await a.post(`${W}/deliveries/999999/redeliver`), 404)).toBe('Webhook delivery with id 999999 not found');
    expect(expectError(await a.get(`${M}/999999`), 404)).toBe('Message with id 999999 not found');
    expect(expectError(await a.get(`${M}/999999/deliveries`), 404)).toMatch(/Message/);
    expect(expectError(await a.get(`${T}/999999`), 404)).toBe('Message template with id 999999 not found');
    expect(expectError(await a.put(`${T}/999999`, { name: 'x' }), 404)).toMatch(/template/);
    expect(expectError(await a.delete(`${T}/999999`), 404)).toMatch(/template/);
    expect(expectError(await a.put('/api/notifications/999999/read'), 404)).toBe('Notification with id 999999 not found');
    expectError(await a.get(`${W}/abc`), 400);
    expectError(await a.get(`${M}/1.5`), 400);
    expectError(await a.put('/api/notifications/-1/read'), 400);
    expectError(await a.get(`${M}?status=Done`), 400);
    expectError(await a.get(`${W}/1/deliveries?status=Sent`), 400);
    expectError(await a.get('/api/notifications?unread=maybe'), 400);
    expectError(await a.get('/api/notifications?limit=0'), 400);
  });

  it('templates: unknown merge fields, missing fields, duplicate names', async () => {
    expect(expectError(await a.post(T, { name: 'Bad', subject: 'Hi {{firstname}}', body: 'x' }), 400)).toMatch(/\{\{firstname\}\}/);
    expect(expectError(await a.post(T, { name: 'Bad', subject: 'Hi', body: 'Dear {{ nickname }}' }), 400)).toMatch(/\{\{nickname\}\}/);
    expect(expectError(await a.post(T, { name: 'Bad', subject: 'Hi' }), 400)).toMatch(/body/);
    expect(expectError(await a.post(T, { name: '', subject: 'Hi', body: 'x' }), 400)).toMatch(/name/);
    expect(await count('message_templates', t.id)).toBe(0);
    const tpl = (await a.post(T, { name: 'Weekly', subject: 'S', body: 'B' })).json();
    expect(expectError(await a.post(T, { name: 'weekly', subject: 'S', body: 'B' }), 409)).toMatch(/Weekly|weekly/);
    await a.post(T, { name: 'Other', subject: 'S', body: 'B' });
    expectError(await a.put(`${T}/${tpl.id}`, { name: 'OTHER' }), 409);
    expect(expectError(await a.put(`${T}/${tpl.id}`, { body: '{{church}}' }), 400)).toMatch(/church/);
    expect((await a.get(`${T}/${tpl.id}`)).json()).toMatchObject({ name: 'Weekly', body: 'B' });
  });

  it('messages: empty audience, unknown merge fields, no subject/body, unknown contacts, groups and templates, unknown saved list → 400/404, nothing queued', async () => {
    const contact = await newContact(ctx, t);
    const tree = await newTree(ctx, t);
    expect(expectError(await a.post(M, { audience: {}, subject: 'S', body: 'B' }), 400)).toMatch(/audience/);
    expect(expectError(await a.post(M, { audience: { contactIds: [] }, subject: 'S', body: 'B' }), 400)).toMatch(/audience/);
    expect(expectError(await a.post(M, { subject: 'S', body: 'B' }), 400)).toMatch(/audience/);
    expect(expectError(await a.post(M, { audience: { contactIds: [contact] }, subject: 'S {{first_name}}', body: 'B' }), 400)).toMatch(/first_name/);
    expect(expectError(await a.post(M, { audience: { contactIds: [contact] }, body: 'B' }), 400)).toMatch(/subject/);
    expect(expectError(await a.post(M, { audience: { contactIds: [contact] }, subject: 'S' }), 400)).toMatch(/body/);
    expect(expectError(await a.post(M, { audience: { contactIds: [contact] }, subject: 'S', body: 'B', channel: 'Sms' }), 400)).toMatch(/channel/);
    expect(expectError(await a.post(M, { audience: { contactIds: [contact, 999998, 999999] }, subject: 'S', body: 'B' }), 404)).toBe('Contact with id 999998, 999999 not found');
    expect(expectError(await a.post(M, { audience: { groupIds: [999999] }, subject: 'S', body: 'B' }), 404)).toBe('Group with id 999999 not found');
    expect(expectError(await a.post(M, { audience: { contactIds: [contact] }, templateId: 999999 }), 404)).toBe('Message template with id 999999 not found');
    expectError(await a.post(M, { audience: { listId: 999999 }, subject: 'S', body: 'B' }), 404);
    // A group the sender cannot see is 404 like a missing one.
    const leader = await newLeaderOf(ctx, t, tree.zoneA);
    await letLeadersSend(ctx, t);
    expect(expectError(await api(ctx.app, leader.token).post(M, { audience: { groupIds: [tree.zoneA.id, tree.fellowshipB1.id] }, subject: 'S', body: 'B' }), 404))
      .toBe(`Group with id ${tree.fellowshipB1.id} not found`);
    expect(await count('messages', t.id)).toBe(0);
    expect(await count('message_deliveries', t.id)).toBe(0);
    expect(Number((await queryRows<{ n: string }>(ctx, sql`select count(*) as n from jobs where tenant_id = ${t.id} and kind = 'messages.send'`))[0].n)).toBe(0);
  });

  it('preferences: a non-boolean value → 400', async () => {
    expectError(await a.put('/api/notifications/preferences', { email: { 'task.assigned': 'no' } }), 400);
    expectError(await a.put('/api/notifications/preferences', { inApp: 'off' }), 400);
  });

  it('a receiver that hangs is cut at 10 s and retried later', async () => {
    const receiver = await startWebhookReceiver();
    receiver.respond(0);
    try {
      const hook = (await a.post(W, { url: receiver.url, events: ['webhook.test'] })).json();
      await a.post(`${W}/${hook.id}/test`);
      const started = Date.now();
      await ctx.app.worker.drain();
      const elapsed = Date.now() - started;
      expect(elapsed).toBeGreaterThanOrEqual(9_900);
      expect(elapsed).toBeLessThan(20_000);
      expect(receiver.received).toHaveLength(1);
      const [d] = (await a.get(`${W}/${hook.id}/deliveries`)).json().data;
      expect(d).toMatchObject({ status: 'Pending', attempts: 1, lastStatusCode: null, lastError: 'No response within 10 s', nextAttemptAt: expect.any(String) });
    } finally {
      await receiver.close();
    }
  }, 30_000);

  it('a receiver that is down: the delivery stays Pending with the connection error and a retry time', async () => {
    // Port 9 (discard) on loopback: nothing listens, the connection is refused.
    const hook = (await a.post(W, { url: 'http://127.0.0.1:9/hook', events: ['webhook.test'] })).json();
    await a.post(`${W}/${hook.id}/test`);
    await ctx.app.worker.drain();
    const [d] = (await a.get(`${W}/${hook.id}/deliveries`)).json().data;
    expect(d).toMatchObject({ status: 'Pending', attempts: 1, lastStatusCode: null, lastError: expect.stringMatching(/ECONNREFUSED/), nextAttemptAt: expect.any(String) });
  });
});
