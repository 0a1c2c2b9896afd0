import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { newTenant, type TestTenant, type TestUser } from '../helpers/factories.js';
import { addMembership, newLeaderOf, newTree } from '../helpers/groups.factories.js';
import { letLeadersSend, newRecipient, queryRows } from '../helpers/notifications.factories.js';

const ctx = setupTestApp();
const P = '/api/notifications/messages/preview';

const person = (t: TestTenant, first: string, last: string, email?: string, extra: Record<string, unknown> = {}) => newRecipient(ctx, t, first, last, email, extra);

describe('POST /api/notifications/messages/preview: what a send would do, writing nothing', () => {
  let t: TestTenant;
  let sender: TestUser;
  let tree: Awaited<ReturnType<typeof newTree>>;
  const c: Record<string, number> = {};
  beforeAll(async () => {
    t = await newTenant(ctx);
    tree = await newTree(ctx, t);
    sender = await newLeaderOf(ctx, t, tree.zoneA);
    await letLeadersSend(ctx, t);
    c.ada = await person(t, 'Ada', 'Lovelace', 'ada@example.org');
    c.opted = await person(t, 'Olga', 'Optout', 'olga@example.org', { emailOptOut: true });
    c.noEmail = await person(t, 'Nemo', 'Nomail');
    c.grace = await person(t, 'Grace', 'Hopper', 'grace@example.org');
    c.hidden = await person(t, 'Hidden', 'Member', 'hidden@example.org');
    await addMembership(ctx, t, tree.fellowshipA1, c.ada);
    await addMembership(ctx, t, tree.fellowshipA1, c.opted);
    await addMembership(ctx, t, tree.fellowshipA1, c.noEmail);
    await addMembership(ctx, t, tree.clusterA, c.grace);
    await addMembership(ctx, t, tree.fellowshipB1, c.hidden); // zone B: invisible to the sender
  });

  it('answers the count, the skipped contacts and why, and the first recipient\'s merged text; the send then agrees', async () => {
    const s = api(ctx.app, sender.token);
    const body = { audience: { groupIds: [tree.clusterA.id], contactIds: [c.ada] }, subject: 'Hello {{firstName}}', body: 'Dear {{firstName}} {{lastName}}, welcome to {{churchName}}.' };
    const before = await queryRows<{ n: string | number }>(ctx, sql`select count(*) as n from messages where tenant_id = ${t.id}`);
    const res = await s.post(P, body);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      recipientCount: 2,
      skippedCount: { noEmail: 1, optedOut: 1 },
      skipped: [
        { contact: { id: c.opted, firstName: 'Olga', lastName: 'Optout' }, reason: 'optedOut' },
        { contact: { id: c.noEmail, firstName: 'Nemo', lastName: 'Nomail' }, reason: 'noEmail' },
      ],
      first: { contact: { id: c.ada, firstName: 'Ada', lastName: 'Lovelace' }, to: 'ada@example.org', subject: 'Hello Ada', body: `Dear Ada Lovelace, welcome to Church ${t.slug}.` },
    });
    // Nothing written: no message, no delivery, no change.
    const after = await queryRows<{ n: string | number }>(ctx, sql`select count(*) as n from messages where tenant_id = ${t.id}`);
    expect(Number(after[0].n)).toBe(Number(before[0].n));
    expect(await queryRows(ctx, sql`select 1 from changes where tenant_id = ${t.id} and type = 'message.created'`)).toHaveLength(0);

    const sent = await s.post('/api/notifications/messages', body);
    expect(sent.statusCode, sent.body).toBe(202);
    expect(sent.json()).toMatchObject({ recipientCount: 2, skipped: { noEmail: 1, optedOut: 1 } });
  });

  it('nobody reachable: first is null', async () => {
    const res = await api(ctx.app, sender.token).post(P, { audience: { contactIds: [c.noEmail] }, subject: 's', body: 'b' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ recipientCount: 0, skippedCount: { noEmail: 1, optedOut: 0 }, first: null });
  });

  it('the send\'s errors: an unknown merge field 400, an invisible group 404, an empty audience 400, without notifications:send 403', async () => {
    const s = api(ctx.app, sender.token);
    expect(expectError(await s.post(P, { audience: { contactIds: [c.ada] }, subject: 'Hi {{nickname}}', body: 'b' }), 400)).toMatch(/nickname/);
    expectError(await s.post(P, { audience: { groupIds: [tree.zoneB.id] }, subject: 's', body: 'b' }), 404);
    expectError(await s.post(P, { audience: {}, subject: 's', body: 'b' }), 400);
    const member = await newLeaderOf(ctx, t, tree.fellowshipB1);
    await ctx.db.execute(sql`update roles set permissions = array_remove(permissions, 'notifications:send') where tenant_id = ${t.id} and name = 'Leader'`);
    try {
      expectError(await api(ctx.app, member.token).post(P, { audience: { contactIds: [c.ada] }, subject: 's', body: 'b' }), 403);
    } finally {
      await letLeadersSend(ctx, t);
    }
  });
});
