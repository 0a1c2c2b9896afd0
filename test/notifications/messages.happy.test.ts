import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { withTenant } from '../../src/db/client.js';
import { groupMemberships } from '../../src/db/schema/index.js';
import { insertPersonContact } from '../../src/modules/contacts/contacts.repository.js';
import { api } from '../helpers/app.js';
import { newTenant, type TestTenant, type TestUser } from '../helpers/factories.js';
import { addMembership, newGroup, newLeaderOf, newTree } from '../helpers/groups.factories.js';
import { letLeadersSend, newRecipient, queryRows, setupSmtpTestApp } from '../helpers/notifications.factories.js';

const ctx = setupSmtpTestApp();
const M = '/api/notifications/messages';

const person = (t: TestTenant, first: string, last: string, email?: string, extra: Record<string, unknown> = {}) => newRecipient(ctx, t, first, last, email, extra);

describe('messages: happy paths (a real SMTP server on loopback)', () => {
  let t: TestTenant;
  let sender: TestUser;
  let tree: Awaited<ReturnType<typeof newTree>>;
  const c: Record<string, number> = {};
  beforeAll(async () => {
    t = await newTenant(ctx);
    tree = await newTree(ctx, t);
    // A zone leader who may send: sees zone A's subtree and the public groups, not zone B.
    sender = await newLeaderOf(ctx, t, tree.zoneA);
    await letLeadersSend(ctx, t);
    c.ada = await person(t, 'Ada', 'Lovelace', 'ada@example.org');
    c.opted = await person(t, 'Olga', 'Optout', 'olga@example.org', { emailOptOut: true });
    c.noEmail = await person(t, 'Nemo', 'Nomail');
    c.grace = await person(t, 'Grace', 'Hopper', 'grace@example.org');
    c.alan = await person(t, 'Alan', 'Turing', 'alan@example.org');
    c.hidden = await person(t, 'Hidden', 'Member', 'hidden@example.org');
    await addMembership(ctx, t, tree.clusterA, c.grace);
    await addMembership(ctx, t, tree.fellowshipA2, c.alan); // private, but inside the sender's led zone
    await addMembership(ctx, t, tree.fellowshipA1, c.ada); // also reached through contactIds: sent once
    await addMembership(ctx, t, tree.fellowshipA1, c.opted);
    await addMembership(ctx, t, tree.fellowshipB1, c.hidden); // zone B: invisible to the sender
    await addMembership(ctx, t, tree.fellowshipA1, c.noEmail, 'Member', false); // inactive membership
  });

  it('queues to contacts and group subtrees (202), skips opted-out and email-less contacts, and sends merged emails in the background', async () => {
    const s = api(ctx.app, sender.token);
    const res = await s.post(M, {
      channel: 'Email',
      audience: { contactIds: [c.ada, c.opted, c.noEmail], groupIds: [tree.zoneA.id] },
      subject: 'Hello {{firstName}}',
      body: 'Dear {{firstName}} {{ lastName }},\nwelcome to {{churchName}}.',
    });
    expect(res.statusCode, res.body).toBe(202);
    const accepted = res.json();
    // noEmail: Nemo, and the sender's own contact (the zone's leader, a member of the zone, without an email).
    expect(accepted).toEqual({ id: expect.any(Number), status: 'Queued', recipientCount: 3, skipped: { noEmail: 2, optedOut: 1 } });

    const queued = (await s.get(`${M}/${accepted.id}`)).json();
    expect(queued).toMatchObject({ id: accepted.id, status: 'Queued', sent: 0, failed: 0, recipientCount: 3, skipped: { noEmail: 2, optedOut: 1 }, createdBy: sender.id, completedAt: null });
    expect(ctx.smtp.mails).toHaveLength(0);

    await ctx.app.worker.drain();
    const mails = ctx.smtp.mails.filter((m) => m.subject.startsWith('Hello'));
    expect(mails.map((m) => m.to[0]).sort()).toEqual(['ada@example.org', 'alan@example.org', 'grace@example.org']);
    const ada = mails.find((m) => m.to[0] === 'ada@example.org')!;
    expect(ada.subject).toBe('Hello Ada');
    expect(ada.text).toBe(`Dear Ada Lovelace,\nwelcome to Church ${t.slug}.`.replace(/\n/g, '\r\n'));
    expect(mails.find((m) => m.to[0] === 'grace@example.org')!.subject).toBe('Hello Grace');

    const sent = (await s.get(`${M}/${accepted.id}`)).json();
    expect(sent).toMatchObject({ status: 'Sent', sent: 3, failed: 0, completedAt: expect.any(String) });
    const deliveries = (await s.get(`${M}/${accepted.id}/deliveries`)).json();
    expect(deliveries.total).toBe(3);
    expect(deliveries.data.find((d: { email: string }) => d.email === 'ada@example.org')).toEqual({
      id: expect.any(Number), contact: { id: c.ada, firstName: 'Ada', lastName: 'Lovelace' }, email: 'ada@example.org', status: 'Sent', error: null, sentAt: expect.any(String),
    });
    expect((await s.get(`${M}/${accepted.id}/deliveries?status=Queued`)).json().total).toBe(0);

    // message.created when queued (by the sender), message.sent when the job finished (no user).
    const [queuedChange, change] = await queryRows<{ type: string; actor_user_id: unknown; data: Record<string, unknown> }>(ctx,
      sql`select type, actor_user_id, data from changes where tenant_id = ${t.id} and entity_type = 'message' and entity_id = ${accepted.id} order by id`);
    expect(queuedChange).toMatchObject({ type: 'message.created', data: { messageId: accepted.id, subject: 'Hello {{firstName}}', recipientCount: 3 } });
    expect(Number(queuedChange.actor_user_id)).toBe(sender.id);
    expect(change).toEqual({ type: 'message.sent', actor_user_id: null, data: { messageId: accepted.id, senderUserId: sender.id, subject: 'Hello {{firstName}}', recipientCount: 3, sent: 3, failed: 0 } });
  });

  it('sends to a saved list (a smart list of the search module), evaluated when queued', async () => {
    const s = api(ctx.app, sender.token);
    const list = await s.post('/api/search/lists', { name: 'The Hoppers', criteria: { conditions: [{ field: 'lastName', operator: 'eq', value: 'Hopper' }] } });
    expect(list.statusCode, list.body).toBe(201);
    const res = await s.post(M, { audience: { listId: list.json().id }, subject: 'For the list', body: 'Hi {{firstName}}' });
    expect(res.statusCode, res.body).toBe(202);
    expect(res.json()).toMatchObject({ recipientCount: 1, skipped: { noEmail: 0, optedOut: 0 } });
    await ctx.app.worker.drain();
    expect(ctx.smtp.mails.filter((m) => m.subject === 'For the list').map((m) => [m.to[0], m.text.trim()])).toEqual([['grace@example.org', 'Hi Grace']]);
  });

  it('a refused recipient fails its delivery; a message whose every delivery failed is Failed and notifies its sender', async () => {
    const bad = await person(t, 'Bad', 'Address', 'bad@example.org');
    ctx.smtp.refuse((address) => address.startsWith('bad@'));
    const s = api(ctx.app, sender.token);
    const res = await s.post(M, { audience: { contactIds: [bad] }, subject: 'Notice', body: 'Hi {{firstName}}' });
    expect(res.statusCode).toBe(202);
    const { id } = res.json();
    await ctx.app.worker.drain();
    ctx.smtp.refuse(() => false);
    expect((await s.get(`${M}/${id}`)).json()).toMatchObject({ status: 'Failed', sent: 0, failed: 1 });
    const [d] = (await s.get(`${M}/${id}/deliveries?status=Failed`)).json().data;
    expect(d).toMatchObject({ email: 'bad@example.org', status: 'Failed', sentAt: null, error: expect.stringMatching(/550|unavailable/i) });
    // message.failed -> the sender's inbox
    const inbox = (await s.get('/api/notifications')).json();
    expect(inbox.data[0]).toMatchObject({ type: 'message.failed', link: { entityType: 'message', entityId: id }, readAt: null });
    expect(inbox.data[0].body).toContain('Notice');
  });

  it('a mail server answering "try later" (4xx): the batch waits and is retried with a backoff, nothing is lost or failed', async () => {
    const later = await person(t, 'Tess', 'Later', 'later@example.org');
    ctx.smtp.refuse((address) => address.startsWith('later@'), 451);
    const s = api(ctx.app, sender.token);
    const { id } = (await s.post(M, { audience: { contactIds: [later, c.grace] }, subject: 'Retry', body: 'Hi {{firstName}}' })).json();
    await ctx.app.worker.drain();
    expect((await s.get(`${M}/${id}`)).json()).toMatchObject({ status: 'Sending', failed: 0 });
    expect((await s.get(`${M}/${id}/deliveries?status=Queued`)).json().total).toBe(1);
    const [job] = await queryRows<{ status: string; run_at: string; last_error: string }>(ctx,
      sql`select status, run_at, last_error from jobs where kind = 'messages.send' and payload->>'messageId' = ${String(id)} order by id desc limit 1`);
    expect(job.status).toBe('Pending');
    expect(job.last_error).toMatch(/retry/);
    expect(new Date(job.run_at).getTime() - Date.now()).toBeGreaterThan(50_000);

    ctx.smtp.refuse(() => false);
    await ctx.db.execute(sql`update jobs set run_at = now() where kind = 'messages.send' and status = 'Pending' and payload->>'messageId' = ${String(id)}`);
    await ctx.app.worker.drain();
    expect((await s.get(`${M}/${id}`)).json()).toMatchObject({ status: 'Sent', sent: 2, failed: 0 });
    expect(ctx.smtp.mails.filter((m) => m.subject === 'Retry').map((m) => m.to[0]).sort()).toEqual(['grace@example.org', 'later@example.org']);
  });

  it('a "try later" in the middle of a later batch: the retry resumes where that batch began; nobody is lost or sent twice', async () => {
    const group = await newGroup(ctx, t, { name: 'Ushers', category: 'Fellowship' });
    await withTenant(ctx.db, t.id, async (tx) => {
      for (let i = 0; i < 120; i++) {
        const id = await insertPersonContact(tx, t.id, { firstName: `Usher${i}`, lastName: 'Team', email: `usher${i}@example.org` });
        await tx.insert(groupMemberships).values({ tenantId: t.id, groupId: group.id, contactId: id });
      }
    });
    const s = api(ctx.app, t.admin.token);
    const { id } = (await s.post(M, { audience: { groupIds: [group.id] }, subject: 'Rota', body: 'Hi {{firstName}}' })).json();
    const [late] = await queryRows<{ email: string }>(ctx, sql`select email from message_deliveries where tenant_id = ${t.id} and message_id = ${id} order by id offset 74 limit 1`);
    ctx.smtp.refuse((address) => address === late.email, 451);
    await ctx.app.worker.drain();
    expect((await s.get(`${M}/${id}`)).json()).toMatchObject({ status: 'Sending', sent: 74, failed: 0 });
    ctx.smtp.refuse(() => false);
    await ctx.db.execute(sql`update jobs set run_at = now() where kind = 'messages.send' and status = 'Pending' and payload->>'messageId' = ${String(id)}`);
    await ctx.app.worker.drain();
    expect((await s.get(`${M}/${id}`)).json()).toMatchObject({ status: 'Sent', sent: 120, failed: 0 });
    const rota = ctx.smtp.mails.filter((m) => m.subject === 'Rota').map((m) => m.to[0]);
    expect(rota).toHaveLength(120);
    expect(new Set(rota).size).toBe(120);
  });

  it('still unavailable at the last attempt: what is left fails, and the message settles', async () => {
    const gone = await person(t, 'Gus', 'Gone', 'gone@example.org');
    ctx.smtp.refuse((address) => address.startsWith('gone@'), 421);
    const s = api(ctx.app, sender.token);
    const { id } = (await s.post(M, { audience: { contactIds: [gone] }, subject: 'Last try', body: 'x' })).json();
    await ctx.app.worker.drain();
    // The next run is the last one allowed.
    await ctx.db.execute(sql`update jobs set run_at = now(), max_attempts = attempts + 1 where kind = 'messages.send' and status = 'Pending' and payload->>'messageId' = ${String(id)}`);
    await ctx.app.worker.drain();
    ctx.smtp.refuse(() => false);
    expect((await s.get(`${M}/${id}`)).json()).toMatchObject({ status: 'Failed', sent: 0, failed: 1, completedAt: expect.any(String) });
    expect((await s.get(`${M}/${id}/deliveries`)).json().data[0]).toMatchObject({ status: 'Failed', error: expect.stringMatching(/421|later/i) });
  });

  it('templates: CRUD, and a message from a template takes its subject and body', async () => {
    const s = api(ctx.app, sender.token);
    const created = await s.post('/api/notifications/templates', { name: 'Welcome', subject: 'Welcome {{firstName}}', body: 'Hello {{firstName}} from {{churchName}}' });
    expect(created.statusCode).toBe(201);
    const tpl = created.json();
    expect(tpl).toEqual({ id: expect.any(Number), name: 'Welcome', subject: 'Welcome {{firstName}}', body: 'Hello {{firstName}} from {{churchName}}', createdAt: expect.any(String), updatedAt: expect.any(String) });
    expect((await s.get(`/api/notifications/templates/${tpl.id}`)).json()).toEqual(tpl);
    const updated = await s.put(`/api/notifications/templates/${tpl.id}`, { subject: 'Welcome, {{firstName}}!' });
    expect(updated.statusCode).toBe(200);
    expect(updated.json()).toMatchObject({ name: 'Welcome', subject: 'Welcome, {{firstName}}!' });
    await s.post('/api/notifications/templates', { name: 'Another', subject: 'x', body: 'y' });
    expect((await s.get('/api/notifications/templates')).json()).toMatchObject({ total: 2, data: [{ name: 'Another' }, { name: 'Welcome' }] });

    const res = await s.post(M, { audience: { contactIds: [c.grace] }, templateId: tpl.id });
    expect(res.statusCode).toBe(202);
    await ctx.app.worker.drain();
    const mail = ctx.smtp.mails.find((m) => m.subject === 'Welcome, Grace!');
    expect(mail?.text).toBe(`Hello Grace from Church ${t.slug}`);
    expect((await s.get(`${M}/${res.json().id}`)).json()).toMatchObject({ templateId: tpl.id, subject: 'Welcome, {{firstName}}!', status: 'Sent' });

    expect((await s.delete(`/api/notifications/templates/${tpl.id}`)).statusCode).toBe(204);
    expect((await s.get(`/api/notifications/templates/${tpl.id}`)).statusCode).toBe(404);
    // The message keeps its text.
    expect((await s.get(`${M}/${res.json().id}`)).json().subject).toBe('Welcome, {{firstName}}!');
  });

  it('sends a large audience in batches of 50, one job after another; lists messages newest first with a status filter', async () => {
    const group = await newGroup(ctx, t, { name: 'Choir', category: 'Fellowship' });
    await withTenant(ctx.db, t.id, async (tx) => {
      for (let i = 0; i < 60; i++) {
        const id = await insertPersonContact(tx, t.id, { firstName: `Singer${i}`, lastName: 'Choir', email: `singer${i}@example.org` });
        await tx.insert(groupMemberships).values({ tenantId: t.id, groupId: group.id, contactId: id });
      }
    });
    const a = api(ctx.app, t.admin.token);
    const before = ctx.smtp.mails.length;
    const res = await a.post(M, { audience: { groupIds: [group.id] }, subject: 'Rehearsal', body: 'See you, {{firstName}}' });
    expect(res.json()).toMatchObject({ recipientCount: 60, skipped: { noEmail: 0, optedOut: 0 } });
    await ctx.app.worker.drain();
    expect(ctx.smtp.mails.length - before).toBe(60);
    expect(new Set(ctx.smtp.mails.slice(before).map((m) => m.to[0])).size).toBe(60);
    const jobs = await queryRows<{ n: string }>(ctx, sql`select count(*) as n from jobs where kind = 'messages.send' and tenant_id = ${t.id} and payload->>'messageId' = ${String(res.json().id)}`);
    expect(Number(jobs[0].n)).toBe(2);
    expect((await a.get(`${M}/${res.json().id}`)).json()).toMatchObject({ status: 'Sent', sent: 60, failed: 0 });
    // The second run starts after the first's last delivery, not at the head of the queue.
    const [second] = await queryRows<{ after: string }>(ctx, sql`select payload->>'afterId' as after from jobs
      where kind = 'messages.send' and tenant_id = ${t.id} and payload->>'messageId' = ${String(res.json().id)} and payload ? 'afterId'`);
    const [fiftieth] = await queryRows<{ id: string }>(ctx, sql`select id from message_deliveries
      where tenant_id = ${t.id} and message_id = ${res.json().id} order by id offset 49 limit 1`);
    expect(Number(second.after)).toBe(Number(fiftieth.id));

    const list = (await a.get(M)).json();
    expect(list.data[0].id).toBe(res.json().id);
    expect(list.total).toBeGreaterThanOrEqual(4);
    const failed = (await a.get(`${M}?status=Failed`)).json();
    expect(failed.total).toBe(2); // the refused one and the one given up on
    expect(failed.data[0].status).toBe('Failed');
  });
});
