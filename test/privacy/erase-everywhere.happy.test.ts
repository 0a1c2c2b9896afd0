import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { withTenant } from '../../src/db/client.js';
import { api, setupTestApp } from '../helpers/app.js';
import { newEvent } from '../helpers/events.factories.js';
import { newTenant, type TestTenant, type TestUser } from '../helpers/factories.js';
import { newFund } from '../helpers/finance.factories.js';
import { addMembership, newGroup, newLeaderOf } from '../helpers/groups.factories.js';
import { person, post, query, type Row } from './privacy.helpers.js';

/**
 * Erase means erased (issue 29): a person seeded into every corner of the tenant (memberships,
 * automation and pipeline tasks made by the worker, comments, notes, gifts, pledges, messages queued
 * and sent, saved lists, notifications, idempotent creates, attendance), then erased: no API answer
 * and no text, json or array column of any table — every one the catalog lists, so a table added
 * later cannot slip past — still holds their name, emails or phone numbers.
 */
const ctx = setupTestApp();

const FIRST = 'Zebulonia';
const MIDDLE = 'Ottoline';
const LAST = 'Quaxworth';
const EMAIL = 'zebulonia.quaxworth@example.net';
const EMAIL2 = 'zq.private@example.org';
const PHONE = '+256 772 913 482';
const DIGITS = '256772913482';
const FULL = `${FIRST} ${LAST}`;
/** What must be gone: every value, and the phone's digits as the search columns keep them. */
const ERASED = [FIRST, MIDDLE, LAST, EMAIL, EMAIL2, PHONE, DIGITS, '772913482'];

/** Every table and every column of a textual type (text, varchar, char, json, jsonb, arrays, tsvector …), from the catalog. */
async function textColumns(): Promise<{ table: string; column: string }[]> {
  const res = (await ctx.db.execute(sql`
    SELECT c.table_name AS "table", c.column_name AS "column"
    FROM information_schema.columns c
    JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name AND t.table_type = 'BASE TABLE'
    WHERE c.table_schema = 'public' AND (c.data_type IN ('text', 'character varying', 'character', 'json', 'jsonb', 'ARRAY', 'tsvector', 'USER-DEFINED', 'name'))
    ORDER BY 1, 2`)) as unknown as { rows: { table: string; column: string }[] };
  return res.rows;
}

/** "table.column: value" for each erased value found anywhere in the database (case-insensitive), read in the tenant's transaction. */
async function grepDatabase(tenant: TestTenant, values: string[]): Promise<string[]> {
  const columns = await textColumns();
  const hits: string[] = [];
  await withTenant(ctx.db, tenant.id, async (tx) => {
    for (const { table, column } of columns) {
      const col = sql.identifier(column);
      const matches = sql.join(values.map((v) => sql`${col}::text ILIKE ${`%${v}%`}`), sql` OR `);
      const res = (await tx.execute(sql`SELECT ${col}::text AS v FROM ${sql.identifier(table)} WHERE ${matches} LIMIT 3`)) as unknown as { rows: { v: string }[] };
      for (const r of res.rows) hits.push(`${table}.${column}: ${r.v.slice(0, 200)}`);
    }
  });
  return hits;
}

const found = (text: string) => ERASED.filter((v) => text.toLowerCase().includes(v.toLowerCase()));

describe('POST /api/crm/contacts/:id/erase: erased everywhere', () => {
  let t: TestTenant;
  let leader: TestUser;
  let contactId: number;
  let sessionId: number;
  let groupId: number;
  let sessionBefore: Row;
  let queuedMessageId: number;
  const replays: { url: string; body: Record<string, unknown>; key: string }[] = [];

  beforeAll(async () => {
    t = await newTenant(ctx);
    const admin = api(ctx.app, t.admin.token);
    const fellowship = await newGroup(ctx, t, { name: 'Riverside', category: 'Fellowship' });
    groupId = fellowship.id;
    leader = await newLeaderOf(ctx, t, fellowship);
    const neighbour = await person(ctx, t, 'Nora', 'Neighbour', { emails: [{ value: 'nora@example.org', isPrimary: true }] });

    // The person, created with an Idempotency-Key (the stored response holds every value).
    const contactBody = {
      category: 'Person', person: { firstName: FIRST, middleName: MIDDLE, lastName: LAST },
      emails: [{ value: EMAIL, isPrimary: true }, { value: EMAIL2, isPrimary: false }], phones: [{ value: PHONE, isPrimary: true }],
    };
    const created = await admin.post('/api/crm/contacts', contactBody, { 'idempotency-key': 'erase-contact' });
    expect(created.statusCode, created.body).toBe(201);
    contactId = created.json().id;
    replays.push({ url: '/api/crm/contacts', body: contactBody, key: 'erase-contact' });
    await addMembership(ctx, t, fellowship, contactId);

    // Worker-made tasks: "Pray with …" from a prayer request, "Welcome call: …" from the first visit.
    await post(ctx, t.admin.token, '/api/crm/requests', { contactId, type: 'Prayer', description: `${FIRST} asks for prayer, call ${PHONE}` });
    const session = await post(ctx, t.admin.token, '/api/attendance/sessions', { groupId: fellowship.id, date: '2026-03-01', notes: `The ${LAST} family came; ${FIRST} sang` });
    sessionId = session.id;
    await post(ctx, t.admin.token, `/api/attendance/sessions/${sessionId}/records`, { contactIds: [contactId, neighbour.id] });
    await ctx.app.worker.drain();

    // Free text people wrote about them, on rows that are not theirs too.
    const taskBody = { title: `Visit ${FULL} at home`, description: `Write to ${EMAIL} or ring ${PHONE}`, assigneeUserId: leader.id };
    const task = await admin.post('/api/tasks', taskBody, { 'idempotency-key': 'erase-task' });
    expect(task.statusCode, task.body).toBe(201);
    replays.push({ url: '/api/tasks', body: taskBody, key: 'erase-task' });
    const other = await post(ctx, t.admin.token, '/api/tasks', { title: 'Plan the picnic', contactId: neighbour.id });
    await post(ctx, t.admin.token, `/api/tasks/${other.id}/comments`, { body: `Ask ${FIRST} ${LAST} (${EMAIL2}) to bring chairs` });
    await post(ctx, t.admin.token, `/api/tasks/${task.json().id}/comments`, { body: `${FIRST} was out` });
    const event = await newEvent(ctx, t, { groupId: fellowship.id });
    await post(ctx, t.admin.token, `/api/events/${event.id}/activities`, { activityType: 'Testimony', contactIds: [contactId], notes: `Visited ${FULL}` });

    // Money: their gift, someone else's gift naming them, a pledge.
    const fund = await newFund(ctx, t.admin.token);
    const giftBody = { contactId, date: '2026-03-01', method: 'Cash', amount: 5000, reference: `${LAST}-0001`, notes: `From ${FULL}`, lines: [{ fundId: fund.id, amount: 5000 }] };
    const gift = await admin.post('/api/finance/contributions', giftBody, { 'idempotency-key': 'erase-gift' });
    expect(gift.statusCode, gift.body).toBe(201);
    replays.push({ url: '/api/finance/contributions', body: giftBody, key: 'erase-gift' });
    await post(ctx, t.admin.token, '/api/finance/contributions', { contactId: neighbour.id, date: '2026-03-02', method: 'Cash', amount: 700, notes: `In memory of ${FIRST}'s mother`, lines: [{ fundId: fund.id, amount: 700 }] });
    await post(ctx, t.admin.token, '/api/finance/pledges', { contactId, fundId: fund.id, amount: 10000, frequency: 'Monthly', startDate: '2026-01-01', endDate: '2026-12-31', campaign: `${LAST} roof appeal` });

    // A saved list whose criteria name them, changed once (a saved-list change in the feed).
    const list = await post(ctx, t.admin.token, '/api/search/lists', { name: `${LAST} circle`, criteria: { conditions: [{ field: 'lastName', operator: 'eq', value: LAST }] } });
    expect((await admin.put(`/api/search/lists/${list.id}`, { criteria: { conditions: [{ field: 'firstName', operator: 'eq', value: FIRST }] } })).statusCode).toBe(200);

    // A message sent to them, and one still queued when they are erased.
    await post(ctx, t.admin.token, '/api/notifications/messages', { audience: { contactIds: [contactId] }, subject: `For ${FIRST}`, body: `Dear ${FULL}, welcome` }, 202);
    await ctx.app.worker.drain();
    expect(ctx.mailer.sent.some((m) => m.to === EMAIL)).toBe(true);
    queuedMessageId = (await post(ctx, t.admin.token, '/api/notifications/messages', { audience: { contactIds: [contactId, neighbour.id] }, subject: 'News', body: `${FIRST}, see you Sunday` }, 202)).id;

    // Everything the seed meant to put there is there (a seed that missed would prove nothing).
    const before = await grepDatabase(t, ERASED);
    const tables = new Set(before.map((h) => h.split('.')[0]));
    for (const table of ['persons', 'contact_emails', 'contact_phones', 'contacts', 'tasks', 'task_comments', 'notifications', 'attendance_sessions',
      'event_activities', 'contributions', 'pledges', 'saved_lists', 'messages', 'message_deliveries', 'changes', 'contact_requests', 'jobs']) {
      expect(tables, table).toContain(table);
    }
    const titles = (await admin.get(`/api/tasks?q=${LAST}`)).json().data.map((x: { title: string }) => x.title);
    expect(titles).toEqual(expect.arrayContaining([`Pray with ${FULL}`, `Welcome call: ${FULL}`, `Visit ${FULL} at home`]));
    sessionBefore = (await admin.get(`/api/attendance/sessions/${sessionId}`)).json();

    const erase = await admin.post(`/api/crm/contacts/${contactId}/erase`, { confirm: true });
    expect(erase.statusCode, erase.body).toBe(200);
    await ctx.app.worker.drain();
  });

  it('no text, json or array column of any table holds the name, an email or a phone number', async () => {
    expect(await grepDatabase(t, ERASED)).toEqual([]);
  });

  it('search, tasks, inboxes, gifts and their CSV export, pledges, lists, messages, audit and timeline answer nothing of them', async () => {
    const admin = api(ctx.app, t.admin.token);
    const urls = [
      `/api/search?q=${FIRST}`, `/api/search?q=${LAST}`, `/api/search?q=${encodeURIComponent(EMAIL)}`, `/api/search?q=${DIGITS}`,
      `/api/tasks?q=${FIRST}`, `/api/tasks?q=${LAST}`, '/api/tasks?limit=100', '/api/notifications?limit=100',
      '/api/finance/contributions?limit=100', '/api/finance/contributions/export', '/api/finance/pledges?limit=100',
      '/api/search/lists?limit=100', '/api/notifications/messages?limit=100', `/api/notifications/messages/${queuedMessageId}/deliveries`,
      '/api/audit?limit=100', `/api/crm/contacts/${contactId}/timeline?limit=100`, `/api/crm/contacts/${contactId}`, `/api/crm/contacts/${contactId}/export`,
      `/api/attendance/records?groupId=${groupId}`, '/api/crm/contacts?limit=100',
    ];
    for (const url of urls) {
      const res = await admin.get(url);
      expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
      // The search box echoes its query ("q"): everything else of the answer counts.
      expect(found(res.body.replace(/"q":"[^"]*"/, '')), url).toEqual([]);
      if (url.startsWith('/api/search?')) expect(Object.values(res.json().totals).every((n) => n === 0), url).toBe(true);
    }
    const inbox = await api(ctx.app, leader.token).get('/api/notifications?limit=100');
    expect(inbox.json().total).toBeGreaterThan(0);
    expect(found(inbox.body)).toEqual([]);
    // What people wrote stays, minus the person.
    const titles = (await admin.get('/api/tasks?limit=100')).json().data.map((x: { title: string }) => x.title);
    expect(titles).toEqual(expect.arrayContaining(['Pray with [erased]', 'Welcome call: [erased]', 'Visit [erased] at home', 'Plan the picnic']));
  });

  it('a replay of an idempotent create that showed them answers 410, and does not run again', async () => {
    for (const { url, body, key } of replays) {
      const res = await api(ctx.app, t.admin.token).post(url, body, { 'idempotency-key': key });
      expect(res.statusCode, res.body).toBe(410);
      expect(res.json()).toEqual({ statusCode: 410, error: 'Gone', message: expect.stringMatching(/withdrawn/) });
    }
    const [{ n }] = await query(ctx, t, sql`SELECT count(*)::int AS n FROM persons WHERE tenant_id = ${t.id} AND first_name ILIKE ${FIRST}`);
    expect(n).toBe(0);
  });

  it('attendance stays as counts, no longer linked to the person', async () => {
    const [{ linked, records }] = await query(ctx, t, sql`SELECT count(*) FILTER (WHERE contact_id = ${contactId})::int AS linked, count(*)::int AS records
      FROM attendance_records WHERE tenant_id = ${t.id} AND session_id = ${sessionId}`);
    expect({ linked, records }).toEqual({ linked: 0, records: 2 });
    const after = (await api(ctx.app, t.admin.token).get(`/api/attendance/sessions/${sessionId}`)).json();
    const counts = (s: Row) => [s.presentCount, s.guestCount, s.firstTimeCount, s.headcountTotal];
    expect(counts(after)).toEqual(counts(sessionBefore));
    expect(after.notes).toBe('The [erased] family came; [erased] sang');
    const feed = (await api(ctx.app, t.admin.token).get(`/api/attendance/records?groupId=${groupId}`)).json();
    expect(feed.data.map((r: { contact: { lastName: string } | null }) => r.contact?.lastName ?? null).sort()).toEqual(['Neighbour', null]);
  });

  it('the message still queued is not sent to them; the neighbour gets theirs', async () => {
    const deliveries = await query(ctx, t, sql`SELECT contact_id, email, status, error FROM message_deliveries WHERE tenant_id = ${t.id} AND message_id = ${queuedMessageId} ORDER BY id`);
    const theirs = deliveries.find((d) => Number(d.contact_id) === contactId);
    expect(theirs).toMatchObject({ email: '[erased]', status: 'Failed', error: 'Contact erased' });
    expect(deliveries.filter((d) => d.status === 'Sent')).toHaveLength(1);
    expect(ctx.mailer.sent.filter((m) => m.subject === 'News').map((m) => m.to)).not.toContain(EMAIL);
  });
});
